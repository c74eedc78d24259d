import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Image,
  Loader,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import type { PersonOut } from '@svc/shared';
import type { ReactNode } from 'react';
import type { SyncState } from '@svc/shared';
import { getPerson, getPersonSync, listAllDevices, listAllSpaces, photoUrl } from '../resources';
import { getRouteApi } from '@tanstack/react-router';
import { useCanEdit } from '../access';
import { ButtonLink, Link } from '../nav';
import { keys, useApiQuery } from '../query';
import { useDocumentTitle } from '../useDocumentTitle';
import { PendingChangeNotice } from '../enrollment/PendingChangeNotice';
import { formatTime, formatValidity, spaceNames } from './format';
import { FaceCheck } from './FaceCheck';

const stateColor: Record<SyncState, string> = {
  pending: 'yellow',
  running: 'blue',
  succeeded: 'green',
  failed: 'red',
};

const route = getRouteApi('/people/$id');

export function PersonPage() {
  const { id } = route.useParams();
  const canEdit = useCanEdit();
  const person = useApiQuery(keys.person(id), (signal) => getPerson(id, signal));
  const spaces = useApiQuery(keys.spaces, (signal) => listAllSpaces(signal));
  useDocumentTitle(person.data?.name ?? 'Person');

  return (
    <>
      <Link to="/people">← People</Link>
      {person.error !== null && (
        <Alert color="red" title="This person could not be loaded" data-testid="person-error">
          {person.error}
        </Alert>
      )}
      {person.data === null && person.loading && <Loader aria-label="Loading person" />}
      {person.data !== null && (
        <>
          <Group justify="space-between">
            <Title order={1}>{person.data.name}</Title>
            {canEdit && (
              <ButtonLink to="/people/$id/edit" params={{ id }}>
                Edit
              </ButtonLink>
            )}
          </Group>
          <PendingChangeNotice personId={id} />
          <PersonDetails
            person={person.data}
            spaces={spaceNames(person.data.spaceIds, spaces.data)}
          />
          <FaceCheck personId={id} photoSha256={person.data.photoSha256} />
          <SyncTable personId={id} />
        </>
      )}
    </>
  );
}

function Field({
  label,
  testId,
  children,
}: {
  label: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text data-testid={testId}>{children}</Text>
    </div>
  );
}

function PersonDetails({ person, spaces }: { person: PersonOut; spaces: string }) {
  const photo = photoUrl(person);
  return (
    <Card withBorder component="section" aria-label="Details">
      <Group align="start" wrap="nowrap" gap="xl">
        {photo === null ? (
          <Text c="dimmed" w={160} data-testid="person-no-photo">
            No photo
          </Text>
        ) : (
          <Image src={photo} alt={`Photo of ${person.name}`} w={160} radius="sm" />
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" style={{ flex: 1 }}>
          <Field label="Name" testId="person-name">
            {person.name}
          </Field>
          <Field label="ID number" testId="person-id-number">
            {person.idNumber}
          </Field>
          <Field label="Spaces" testId="person-spaces">
            {spaces}
          </Field>
          <Field label="Valid" testId="person-validity">
            {formatValidity(person)}
          </Field>
          <Field label="Status" testId="person-enabled">
            {person.enabled ? 'Enabled' : 'Disabled'}
          </Field>
          <Field label="Phone" testId="person-phone">
            {person.phone ?? '—'}
          </Field>
          <Field label="Last changed" testId="person-updated">
            {formatTime(person.updatedAt)}
          </Field>
        </SimpleGrid>
      </Group>
    </Card>
  );
}

/** Where this person stands on every device, refreshed when the stream says it changed. */
function SyncTable({ personId }: { personId: string }) {
  // The live stream's `sync` messages about this person invalidate this query (live.tsx).
  const sync = useApiQuery(keys.personSync(personId), (signal) => getPersonSync(personId, signal));
  const devices = useApiQuery(keys.devices, (signal) => listAllDevices(signal));
  const deviceName = new Map((devices.data ?? []).map((device) => [device.id, device.name]));

  return (
    <Stack component="section" aria-label="Devices" gap="xs">
      <Group gap="sm">
        <Title order={2}>Devices</Title>
        <Button variant="subtle" size="xs" onClick={sync.reload} loading={sync.loading}>
          Refresh
        </Button>
      </Group>
      {sync.error !== null && (
        <Alert color="red" data-testid="sync-error">
          {sync.error}
        </Alert>
      )}
      {sync.data !== null && sync.data.length === 0 && (
        <Text c="dimmed" data-testid="sync-empty">
          No device holds or expects this person.
        </Text>
      )}
      {sync.data !== null && sync.data.length > 0 && (
        <Table aria-label="Synchronization" data-testid="sync-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Device</Table.Th>
              <Table.Th>Action</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>Attempts</Table.Th>
              <Table.Th>Error</Table.Th>
              <Table.Th>Updated</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {sync.data.map((row) => (
              <Table.Tr key={row.deviceId} data-testid="sync-row">
                <Table.Td>
                  {deviceName.get(row.deviceId) ?? row.sn}
                  <Text size="xs" c="dimmed">
                    {row.sn}
                  </Text>
                </Table.Td>
                <Table.Td>{row.action === 'put' ? 'Add / update' : 'Remove'}</Table.Td>
                <Table.Td>
                  <Badge color={stateColor[row.state]} variant="light" data-testid="sync-state">
                    {row.state}
                  </Badge>
                </Table.Td>
                <Table.Td data-testid="sync-attempts">{row.attempts}</Table.Td>
                <Table.Td data-testid="sync-message">
                  {row.error === undefined ? '—' : row.error.message || row.error.code}
                </Table.Td>
                <Table.Td>{formatTime(row.updatedAt)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
