import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Image,
  Loader,
  Modal,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import type { EnrollmentChangeOut } from '@svc/shared';
import { useMutation } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { useState, type ReactNode } from 'react';
import { useCanEdit } from '../access';
import { describeError } from '../messages';
import { Link } from '../nav';
import { formatTime } from '../people/format';
import { keys, queryClient, useApiQuery } from '../query';
import { useDocumentTitle } from '../useDocumentTitle';
import { FaceDistance } from './FaceDistance';
import { changePhotoUrl, changedParts, decideChange, getChange, stateLabel } from './api';

const route = getRouteApi('/enrollment/changes/$id');

type Decision = 'approve' | 'reject';

const confirmText: Record<Decision, string> = {
  approve:
    'The new name and photo become the person’s own and are sent to every device that holds the person.',
  reject: 'The person stays as they are. The photo the terminal sent is kept as evidence.',
};

/** One held re-enrollment: old and new photo side by side, the name change, the decision. */
export function ChangePage() {
  const { id } = route.useParams();
  const canEdit = useCanEdit();
  const change = useApiQuery(keys.enrollmentChange(id), (signal) => getChange(id, signal));
  useDocumentTitle(change.data ? `Change for ${change.data.oldName}` : 'Pending change');
  const [asking, setAsking] = useState<Decision | null>(null);
  const decide = useMutation({
    mutationFn: (decision: Decision) => decideChange(id, decision),
    onSuccess: async (decided) => {
      setAsking(null);
      queryClient.setQueryData(keys.enrollmentChange(id), decided);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.enrollmentChanges }),
        queryClient.invalidateQueries({ queryKey: keys.person(decided.personId) }),
        queryClient.invalidateQueries({ queryKey: keys.people }),
      ]);
    },
  });

  return (
    <>
      <Link to="/enrollment/changes">← Pending changes</Link>
      {change.error !== null && (
        <Alert color="red" title="This change could not be loaded" data-testid="change-error">
          {change.error}
        </Alert>
      )}
      {change.data === null && change.loading && <Loader aria-label="Loading change" />}
      {change.data !== null && (
        <>
          <Group justify="space-between">
            <Title order={1}>Change for {change.data.oldName}</Title>
            {canEdit && change.data.state === 'pending' && (
              <Group gap="xs">
                <Button onClick={() => setAsking('approve')}>Approve</Button>
                <Button color="red" variant="outline" onClick={() => setAsking('reject')}>
                  Reject
                </Button>
              </Group>
            )}
          </Group>
          <ChangeSummary change={change.data} />
          <Photos change={change.data} />
          <FaceDistance changeId={id} />
        </>
      )}
      <Modal
        opened={asking !== null}
        onClose={() => setAsking(null)}
        title={asking === 'approve' ? 'Approve this change?' : 'Reject this change?'}
      >
        <Stack>
          <Text>{asking !== null && confirmText[asking]}</Text>
          {decide.error !== null && (
            <Alert color="red" data-testid="decide-error">
              {describeError(decide.error, 'other')}
            </Alert>
          )}
          <Group justify="end">
            <Button variant="default" onClick={() => setAsking(null)}>
              Cancel
            </Button>
            <Button
              // red.9: white on Mantine's default red (shade 6) is below 4.5:1.
              color={asking === 'approve' ? undefined : 'red.9'}
              loading={decide.isPending}
              onClick={() => asking !== null && decide.mutate(asking)}
            >
              {asking === 'approve' ? 'Approve change' : 'Reject change'}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text component="div">{children}</Text>
    </div>
  );
}

function ChangeSummary({ change }: { change: EnrollmentChangeOut }) {
  const state = stateLabel[change.state];
  return (
    <Card withBorder component="section" aria-label="Change">
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
        <Field label="State">
          <Badge color={state.color} variant="light" data-testid="change-state">
            {state.text}
          </Badge>
        </Field>
        <Field label="Person">
          <Link to="/people/$id" params={{ id: change.personId }}>
            {change.oldName}
          </Link>
        </Field>
        <Field label="Name">
          <span data-testid="change-name">
            {change.newName === change.oldName
              ? `${change.oldName} (unchanged)`
              : `${change.oldName} → ${change.newName}`}
          </span>
        </Field>
        <Field label="Would change">{changedParts(change).join(' and ')}</Field>
        <Field label="Sent by terminal">
          {change.terminalId}
          {change.ip !== null && ` from ${change.ip}`}
        </Field>
        <Field label="Received">{formatTime(change.createdAt)}</Field>
        {change.decidedAt !== null && (
          <Field label="Decided">
            <span data-testid="change-decided">
              {formatTime(change.decidedAt)}
              {change.decidedBy !== null && ` by ${change.decidedBy}`}
            </span>
          </Field>
        )}
      </SimpleGrid>
    </Card>
  );
}

function Photos({ change }: { change: EnrollmentChangeOut }) {
  return (
    <SimpleGrid cols={2} spacing="md" component="section" aria-label="Photos">
      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          Photo before
        </Title>
        {change.oldPhotoSha256 === null ? (
          <Text c="dimmed" data-testid="old-photo-none">
            The person had no photo.
          </Text>
        ) : (
          <Image
            src={changePhotoUrl(change.id, 'old')}
            alt={`Photo of ${change.oldName} before the change`}
            radius="sm"
            fit="contain"
            mah={320}
          />
        )}
      </Card>
      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          Photo sent by the terminal
        </Title>
        <Image
          src={changePhotoUrl(change.id, 'new')}
          alt={`Photo sent for ${change.newName}`}
          radius="sm"
          fit="contain"
          mah={320}
        />
        {change.newPhotoSha256 === change.oldPhotoSha256 && (
          <Text size="sm" c="dimmed">
            The same photo as before.
          </Text>
        )}
      </Card>
    </SimpleGrid>
  );
}
