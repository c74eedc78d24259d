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
import { useRef, useState, type ReactNode } from 'react';
import { useCanEdit } from '../access';
import { useT } from '../i18n';
import { describeError } from '../messages';
import { Link } from '../nav';
import { formatTime } from '../people/format';
import { keys, queryClient, useApiQuery } from '../query';
import { useDocumentTitle } from '../useDocumentTitle';
import { FaceDistance } from './FaceDistance';
import { changePhotoUrl, changedText, decideChange, getChange, stateLabel } from './api';

const route = getRouteApi('/enrollment/changes/$id');

type Decision = 'approve' | 'reject';

/** One held re-enrollment: old and new photo side by side, the name change, the decision. */
export function ChangePage() {
  const { id } = route.useParams();
  const t = useT();
  const canEdit = useCanEdit();
  const change = useApiQuery(keys.enrollmentChange(id), (signal) => getChange(id, signal));
  useDocumentTitle(
    change.data ? t('enrollment.changeFor', { name: change.data.oldName }) : t('enrollment.one'),
  );
  const [asking, setAsking] = useState<Decision | null>(null);
  const deciding = useRef(false);
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
      <Link to="/enrollment/changes">{t('enrollment.back')}</Link>
      {change.error !== null && (
        <Alert color="red" title={t('enrollment.notLoadedOne')} data-testid="change-error">
          {change.error}
        </Alert>
      )}
      {change.data === null && change.loading && (
        <Loader role="status" aria-label={t('enrollment.loadingOne')} />
      )}
      {change.data !== null && (
        <>
          <Group justify="space-between">
            <Title order={1}>{t('enrollment.changeFor', { name: change.data.oldName })}</Title>
            {canEdit && change.data.state === 'pending' && (
              <Group gap="xs">
                <Button onClick={() => setAsking('approve')}>{t('enrollment.approve')}</Button>
                <Button color="red" variant="outline" onClick={() => setAsking('reject')}>
                  {t('enrollment.reject')}
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
        title={asking === 'approve' ? t('enrollment.approveTitle') : t('enrollment.rejectTitle')}
      >
        <Stack>
          <Text>
            {asking === 'approve'
              ? t('enrollment.approveText')
              : asking === 'reject'
                ? t('enrollment.rejectText')
                : null}
          </Text>
          {decide.error !== null && (
            <Alert color="red" data-testid="decide-error">
              {describeError(decide.error, 'other')}
            </Alert>
          )}
          <Group justify="end">
            <Button variant="default" onClick={() => setAsking(null)}>
              {t('common.cancel')}
            </Button>
            <Button
              // red.9: white on Mantine's default red (shade 6) is below 4.5:1.
              color={asking === 'approve' ? undefined : 'red.9'}
              loading={decide.isPending}
              onClick={() => {
                // A second click before the button turns busy (a slow machine) is not a
                // second decision: it would be refused as "already decided".
                if (asking === null || deciding.current) return;
                deciding.current = true;
                decide.mutate(asking, { onSettled: () => (deciding.current = false) });
              }}
            >
              {asking === 'approve' ? t('enrollment.approveChange') : t('enrollment.rejectChange')}
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
  const t = useT();
  const state = stateLabel[change.state];
  return (
    <Card withBorder component="section" aria-label={t('enrollment.change')}>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
        <Field label={t('sync.col.state')}>
          <Badge color={state.color} variant="light" data-testid="change-state">
            {t(state.text)}
          </Badge>
        </Field>
        <Field label={t('events.col.person')}>
          <Link to="/people/$id" params={{ id: change.personId }}>
            {change.oldName}
          </Link>
        </Field>
        <Field label={t('devices.name')}>
          <span data-testid="change-name">
            {change.newName === change.oldName
              ? t('enrollment.unchanged', { name: change.oldName })
              : `${change.oldName} → ${change.newName}`}
          </span>
        </Field>
        <Field label={t('enrollment.wouldChange')}>{changedText(change)}</Field>
        <Field label={t('enrollment.sentBy')}>
          {change.ip === null
            ? change.terminalId
            : t('enrollment.terminalFrom', { terminal: change.terminalId, ip: change.ip })}
        </Field>
        <Field label={t('enrollment.received')}>{formatTime(change.createdAt)}</Field>
        {change.decidedAt !== null && (
          <Field label={t('enrollment.decided')}>
            <span data-testid="change-decided">
              {change.decidedBy === null
                ? formatTime(change.decidedAt)
                : t('enrollment.decidedBy', {
                    time: formatTime(change.decidedAt),
                    name: change.decidedBy,
                  })}
            </span>
          </Field>
        )}
      </SimpleGrid>
    </Card>
  );
}

function Photos({ change }: { change: EnrollmentChangeOut }) {
  const t = useT();
  return (
    <SimpleGrid cols={2} spacing="md" component="section" aria-label={t('enrollment.photos')}>
      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          {t('enrollment.photoBefore')}
        </Title>
        {change.oldPhotoSha256 === null ? (
          <Text c="dimmed" data-testid="old-photo-none">
            {t('enrollment.noOldPhoto')}
          </Text>
        ) : (
          <Image
            src={changePhotoUrl(change.id, 'old')}
            alt={t('enrollment.oldPhotoAlt', { name: change.oldName })}
            radius="sm"
            fit="contain"
            mah={320}
          />
        )}
      </Card>
      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          {t('enrollment.photoSent')}
        </Title>
        <Image
          src={changePhotoUrl(change.id, 'new')}
          alt={t('enrollment.newPhotoAlt', { name: change.newName })}
          radius="sm"
          fit="contain"
          mah={320}
        />
        {change.newPhotoSha256 === change.oldPhotoSha256 && (
          <Text size="sm" c="dimmed">
            {t('enrollment.samePhoto')}
          </Text>
        )}
      </Card>
    </SimpleGrid>
  );
}
