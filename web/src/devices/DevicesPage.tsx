import { Link } from '../nav';
import {
  Alert,
  Badge,
  Button,
  Group,
  Loader,
  Menu,
  Modal,
  Select,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import type { DeviceOut } from '@svc/shared';
import { useState } from 'react';
import { useCanEdit } from '../access';
import { useAction } from '../useAction';
import { formatTime } from '../people/format';
import { keys, queryClient, useApiQuery } from '../query';
import { listAllDevices, listAllSpaces } from '../resources';
import { spaceOptions, spaceTree } from '../spaces/tree';
import { useDocumentTitle } from '../useDocumentTitle';
import { getDevicesSync, type PersonSyncCounts } from '../sync/api';
import { registerDevice, rotateDeviceKey, updateDevice } from './api';
import { KeyShownOnce } from './KeyShownOnce';
import { RegisterDeviceForm } from './RegisterDeviceForm';

type Dialog =
  | { kind: 'register' }
  | { kind: 'key'; sn: string; key: string }
  | { kind: 'move'; device: DeviceOut };

/** Recognition devices: online state, space; register (key shown once), rotate, enable, move. */
export function DevicesPage() {
  useDocumentTitle('Devices');
  const canEdit = useCanEdit();
  const devices = useApiQuery(keys.devices, (signal) => listAllDevices(signal), {
    // Online state follows heartbeats, which the stream does not announce.
    refetchInterval: 15_000,
  });
  const spaces = useApiQuery(keys.spaces, (signal) => listAllSpaces(signal));
  const ids = (devices.data ?? []).map((d) => d.id);
  // Under keys.sync: the stream's sync messages refresh the counts.
  const sync = useApiQuery([...keys.sync, 'devices', ids], (signal) => getDevicesSync(ids, signal));
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const { problem, act } = useAction(keys.devices);
  const paths = new Map(spaceTree(spaces.data ?? []).map((n) => [n.space.id, n.path]));

  return (
    <>
      <Group justify="space-between">
        <Title order={1}>Devices</Title>
        {canEdit && (
          <Button onClick={() => setDialog({ kind: 'register' })}>Register device</Button>
        )}
      </Group>
      {devices.error !== null && (
        <Alert color="red" title="The devices could not be loaded">
          {devices.error}
        </Alert>
      )}
      {problem !== null && (
        <Alert color="red" title="Not done" role="alert" data-testid="devices-error">
          {problem}
        </Alert>
      )}
      {devices.data === null && devices.loading && <Loader aria-label="Loading devices" />}
      {devices.data !== null && devices.data.length === 0 && (
        <Alert color="blue" title="No devices yet" data-testid="devices-empty">
          {canEdit
            ? 'Register a recognition device with its serial number and address; its key is shown once, to enter in the device.'
            : 'An administrator registers them.'}
        </Alert>
      )}
      {devices.data !== null && devices.data.length > 0 && (
        <Table.ScrollContainer minWidth={720}>
          <Table aria-label="Devices" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Serial number</Table.Th>
                <Table.Th>Space</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Last heartbeat</Table.Th>
                <Table.Th>Capacity</Table.Th>
                <Table.Th>Synchronization</Table.Th>
                {canEdit && <Table.Th>Actions</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {devices.data.map((device) => (
                <Table.Tr key={device.id} data-testid="device-row" data-sn={device.sn}>
                  <Table.Td>
                    <Link to="/devices/$id" params={{ id: device.id }}>
                      {device.name}
                    </Link>
                  </Table.Td>
                  <Table.Td>{device.sn}</Table.Td>
                  <Table.Td data-testid="device-space">
                    {device.spaceId === null ? '—' : (paths.get(device.spaceId) ?? '…')}
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      <Badge color={device.online ? 'green' : 'gray'} variant="light">
                        {device.online ? 'Online' : 'Offline'}
                      </Badge>
                      {!device.enabled && (
                        <Badge color="red" variant="light" data-testid="device-disabled">
                          Disabled
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    {device.lastHeartbeatAt === null ? 'Never' : formatTime(device.lastHeartbeatAt)}
                  </Table.Td>
                  <Table.Td>{device.capacity ?? '—'}</Table.Td>
                  <Table.Td data-testid="device-sync">
                    {sync.data === null ? '…' : <SyncCounts counts={sync.data.get(device.id)} />}
                  </Table.Td>
                  {canEdit && (
                    <Table.Td>
                      <Menu position="bottom-end">
                        <Menu.Target>
                          <Button
                            variant="default"
                            size="xs"
                            aria-label={`Actions for ${device.name}`}
                          >
                            Actions
                          </Button>
                        </Menu.Target>
                        <Menu.Dropdown>
                          <Menu.Item
                            onClick={() =>
                              void act(() => updateDevice(device.id, { enabled: !device.enabled }))
                            }
                          >
                            {device.enabled ? 'Disable' : 'Enable'}
                          </Menu.Item>
                          <Menu.Item onClick={() => setDialog({ kind: 'move', device })}>
                            Move to another space
                          </Menu.Item>
                          <Menu.Item
                            color="red"
                            onClick={() =>
                              void act(async () => {
                                const rotated = await rotateDeviceKey(device.id);
                                setDialog({ kind: 'key', sn: rotated.sn, key: rotated.key });
                              })
                            }
                          >
                            Rotate key
                          </Menu.Item>
                        </Menu.Dropdown>
                      </Menu>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Modal
        opened={dialog !== null}
        onClose={() => setDialog(null)}
        // The key must not vanish by a stray click: only its own button closes that dialog.
        closeOnClickOutside={dialog?.kind !== 'key'}
        title={
          dialog?.kind === 'register'
            ? 'Register device'
            : dialog?.kind === 'key'
              ? 'Device key'
              : dialog?.kind === 'move'
                ? `Move ${dialog.device.name}`
                : ''
        }
      >
        {dialog?.kind === 'register' && (
          <RegisterDeviceForm
            spaces={spaces.data ?? []}
            onSubmit={async (body) => {
              const device = await registerDevice(body);
              await queryClient.invalidateQueries({ queryKey: keys.devices });
              setDialog({ kind: 'key', sn: device.sn, key: device.key });
            }}
          />
        )}
        {dialog?.kind === 'key' && (
          <KeyShownOnce sn={dialog.sn} deviceKey={dialog.key} onDone={() => setDialog(null)} />
        )}
        {dialog?.kind === 'move' && (
          <MoveDevice
            device={dialog.device}
            options={spaceOptions(spaces.data ?? [])}
            onMove={async (spaceId) => {
              await act(() => updateDevice(dialog.device.id, { spaceId }));
              setDialog(null);
            }}
          />
        )}
      </Modal>
    </>
  );
}

function MoveDevice({
  device,
  options,
  onMove,
}: {
  device: DeviceOut;
  options: { value: string; label: string }[];
  onMove: (spaceId: string | null) => Promise<void>;
}) {
  const [spaceId, setSpaceId] = useState<string | null>(device.spaceId);
  const [saving, setSaving] = useState(false);
  return (
    <Stack>
      <Select
        label="Space"
        placeholder="No space"
        data={options}
        value={spaceId}
        onChange={setSpaceId}
        searchable
        clearable
      />
      <Text size="sm" c="dimmed">
        The people of the new space are added to the device, the others removed from it.
      </Text>
      <Group justify="flex-end">
        <Button
          loading={saving}
          onClick={() => {
            setSaving(true);
            void onMove(spaceId).finally(() => setSaving(false));
          }}
        >
          Move
        </Button>
      </Group>
    </Stack>
  );
}

/** A device's tasks by state, as the /sync page filters them (a link per state with tasks). */
function SyncCounts({ counts }: { counts: PersonSyncCounts | undefined }) {
  if (counts === undefined) return <>—</>;
  const parts = (
    [
      ['failed', 'red'],
      ['pending', 'yellow'],
      ['running', 'blue'],
      ['succeeded', 'green'],
    ] as const
  ).filter(([state]) => counts[state] > 0);
  if (parts.length === 0) return <Text c="dimmed">No tasks</Text>;
  return (
    <Group gap={4} wrap="wrap">
      {parts.map(([state, color]) => (
        <Badge key={state} color={color} variant="light">
          {counts[state]} {state}
        </Badge>
      ))}
    </Group>
  );
}
