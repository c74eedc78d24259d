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
import { ScrollHint } from '../components/ScrollHint';
import { wrapInCell } from '../components/badgeStyles';
import type { DeviceOut } from '@svc/shared';
import { useState } from 'react';
import { useCanEdit } from '../access';
import { useT } from '../i18n';
import { useAction } from '../useAction';
import { formatTime } from '../people/format';
import { keys, queryClient, useApiQuery } from '../query';
import { listAllSpaces } from '../spaces/api';
import { spaceOptions, spaceTree } from '../spaces/tree';
import { useDocumentTitle } from '../useDocumentTitle';
import { getDevicesSync, type PersonSyncCounts } from '../sync/api';
import { listAllDevices, registerDevice, removeDevice, rotateDeviceKey, updateDevice } from './api';
import { EditDeviceForm, RemoveDevice } from './EditDeviceForm';
import { KeyRefused, RotateKeyDialog } from './KeyRefused';
import { KeyShownOnce } from './KeyShownOnce';
import { RegisterDeviceForm } from './RegisterDeviceForm';
import { useDiscardGuard } from '../components/DiscardGuard';
import { Serial } from '../components/Serial';

type Dialog =
  | { kind: 'register' }
  | { kind: 'move'; device: DeviceOut }
  | { kind: 'edit'; device: DeviceOut }
  | { kind: 'remove'; device: DeviceOut };

/** Recognition devices: online state, space; register (key shown once), rotate, enable, move. */
export function DevicesPage() {
  const t = useT();
  useDocumentTitle(t('nav.devices'));
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
  const discard = useDiscardGuard(() => setDialog(null));
  const [shownKey, setShownKey] = useState<{ sn: string; key: string } | null>(null);
  const [rotating, setRotating] = useState<DeviceOut | null>(null);
  const { problem, act } = useAction(keys.devices);
  const paths = new Map(spaceTree(spaces.data ?? []).map((n) => [n.space.id, n.path]));

  return (
    <>
      <Group justify="space-between">
        <Title order={1}>{t('nav.devices')}</Title>
        {canEdit && (
          <Button onClick={() => setDialog({ kind: 'register' })}>{t('devices.register')}</Button>
        )}
      </Group>
      {devices.error !== null && (
        <Alert color="red" title={t('devices.notLoaded')}>
          {devices.error}
        </Alert>
      )}
      {problem !== null && (
        <Alert color="red" title={t('common.notDone')} role="alert" data-testid="devices-error">
          {problem}
        </Alert>
      )}
      {devices.data === null && devices.loading && (
        <Loader role="status" aria-label={t('devices.loading')} />
      )}
      {devices.data !== null && devices.data.length === 0 && (
        <Alert color="blue" title={t('devices.emptyTitle')} data-testid="devices-empty">
          {canEdit ? t('devices.emptyEdit') : t('devices.emptyRead')}
        </Alert>
      )}
      {devices.data !== null && devices.data.length > 0 && (
        <>
          <ScrollHint />
          <Table.ScrollContainer minWidth={720}>
            <Table aria-label={t('nav.devices')} striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('devices.col.name')}</Table.Th>
                  <Table.Th>{t('devices.col.state')}</Table.Th>
                  <Table.Th>{t('devices.col.sn')}</Table.Th>
                  <Table.Th>{t('devices.col.space')}</Table.Th>
                  <Table.Th>{t('devices.col.lastHeartbeat')}</Table.Th>
                  <Table.Th>{t('devices.col.capacity')}</Table.Th>
                  <Table.Th>{t('nav.sync')}</Table.Th>
                  {canEdit && <Table.Th>{t('common.actions')}</Table.Th>}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {devices.data.map((device) => (
                  <Table.Tr key={device.id} data-testid="device-row" data-sn={device.sn}>
                    <Table.Td style={wrapInCell}>
                      <Link to="/devices/$id" params={{ id: device.id }}>
                        {device.name}
                      </Link>
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4}>
                        <Badge color={device.online ? 'green' : 'gray'} variant="light">
                          {device.online ? t('devices.online') : t('devices.offline')}
                        </Badge>
                        <KeyRefused device={device} />
                        {!device.enabled && (
                          <Badge color="red" variant="light" data-testid="device-disabled">
                            {t('devices.disabled')}
                          </Badge>
                        )}
                      </Group>
                    </Table.Td>
                    <Table.Td style={wrapInCell}>
                      <Serial sn={device.sn} />
                    </Table.Td>
                    <Table.Td data-testid="device-space" style={wrapInCell}>
                      {device.spaceId === null ? '—' : (paths.get(device.spaceId) ?? '…')}
                    </Table.Td>
                    <Table.Td>
                      {device.lastHeartbeatAt === null
                        ? t('devices.never')
                        : formatTime(device.lastHeartbeatAt)}
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
                              aria-label={t('common.actionsFor', { name: device.name })}
                            >
                              {t('common.actions')}
                            </Button>
                          </Menu.Target>
                          <Menu.Dropdown>
                            <Menu.Item
                              onClick={() =>
                                void act(() =>
                                  updateDevice(
                                    device.id,
                                    { enabled: !device.enabled },
                                    device.etag,
                                  ),
                                )
                              }
                            >
                              {device.enabled ? t('devices.disable') : t('devices.enable')}
                            </Menu.Item>
                            <Menu.Item onClick={() => setDialog({ kind: 'edit', device })}>
                              {t('devices.editMenu')}
                            </Menu.Item>
                            <Menu.Item onClick={() => setDialog({ kind: 'move', device })}>
                              {t('devices.moveMenu')}
                            </Menu.Item>
                            <Menu.Item color="red.9" onClick={() => setRotating(device)}>
                              {t('devices.rotateKey')}
                            </Menu.Item>
                            <Menu.Item
                              color="red.9"
                              onClick={() => setDialog({ kind: 'remove', device })}
                            >
                              {t('devices.remove')}
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
        </>
      )}
      <Modal
        opened={dialog !== null}
        onClose={discard.requestClose}
        title={
          dialog?.kind === 'register'
            ? t('devices.register')
            : dialog?.kind === 'move'
              ? t('devices.moveTitle', { name: dialog.device.name })
              : dialog?.kind === 'edit'
                ? t('devices.editTitle', { name: dialog.device.name })
                : dialog?.kind === 'remove'
                  ? t('devices.removeTitle', { name: dialog.device.name })
                  : ''
        }
      >
        {dialog?.kind === 'register' && (
          <RegisterDeviceForm
            spaces={spaces.data ?? []}
            onDirty={discard.setDirty}
            onSubmit={async (body) => {
              const device = await registerDevice(body);
              await queryClient.invalidateQueries({ queryKey: keys.devices });
              setDialog(null);
              setShownKey({ sn: device.sn, key: device.key });
            }}
          />
        )}
        {dialog?.kind === 'move' && (
          <MoveDevice
            device={dialog.device}
            options={spaceOptions(spaces.data ?? [])}
            onMove={async (spaceId) => {
              await act(() => updateDevice(dialog.device.id, { spaceId }, dialog.device.etag));
              setDialog(null);
            }}
          />
        )}
        {dialog?.kind === 'edit' && (
          <EditDeviceForm
            device={dialog.device}
            onDirty={discard.setDirty}
            onSaved={async () => {
              await queryClient.invalidateQueries({ queryKey: keys.devices });
              setDialog(null);
            }}
          />
        )}
        {dialog?.kind === 'remove' && (
          <RemoveDevice
            device={dialog.device}
            onCancel={() => setDialog(null)}
            onRemove={async () => {
              await act(() => removeDevice(dialog.device.id));
              setDialog(null);
            }}
          />
        )}
      </Modal>
      {discard.question}
      <KeyShownOnce shown={shownKey} onDone={() => setShownKey(null)} />
      <RotateKeyDialog
        device={rotating}
        onCancel={() => setRotating(null)}
        onRotate={(device) =>
          act(async () => {
            const rotated = await rotateDeviceKey(device.id);
            setShownKey({ sn: rotated.sn, key: rotated.key });
          }).then(() => setRotating(null))
        }
      />
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
  const t = useT();
  const [spaceId, setSpaceId] = useState<string | null>(device.spaceId);
  const [saving, setSaving] = useState(false);
  return (
    <Stack>
      <Select
        label={t('devices.space')}
        placeholder={t('devices.noSpace')}
        data={options}
        value={spaceId}
        onChange={setSpaceId}
        searchable
        clearable
      />
      <Text size="sm" c="dimmed">
        {t('devices.moveHelp')}
      </Text>
      <Group justify="flex-end">
        <Button
          loading={saving}
          onClick={() => {
            setSaving(true);
            void onMove(spaceId).finally(() => setSaving(false));
          }}
        >
          {t('devices.move')}
        </Button>
      </Group>
    </Stack>
  );
}

/** A device's tasks by state, as the /sync page filters them (a link per state with tasks). */
function SyncCounts({ counts }: { counts: PersonSyncCounts | undefined }) {
  const t = useT();
  if (counts === undefined) return <>—</>;
  const parts = (
    [
      ['failed', 'red'],
      ['pending', 'yellow'],
      ['running', 'blue'],
      ['succeeded', 'green'],
      // No failure: these run once the person has a photo (issue 30, item 9).
      ['waitingPhoto', 'gray'],
    ] as const
  ).filter(([state]) => counts[state] > 0);
  if (parts.length === 0) return <Text c="dimmed">{t('devices.noTasks')}</Text>;
  return (
    <Group gap={4} wrap="wrap">
      {parts.map(([state, color]) => (
        <Badge key={state} color={color} variant="light" data-testid={`sync-count-${state}`}>
          {state === 'waitingPhoto'
            ? t('syncCounts.waitingPhoto', { count: counts[state] })
            : t(`sync.count.${state}`, { count: counts[state] })}
        </Badge>
      ))}
    </Group>
  );
}
