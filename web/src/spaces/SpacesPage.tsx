import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Loader,
  Modal,
  NavLink,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import type { SpaceCreate, SpaceOut } from '@svc/shared';
import { getRouteApi } from '@tanstack/react-router';
import { useState } from 'react';
import { useCanEdit } from '../access';
import { useT } from '../i18n';
import { saidFailure, say, type Said } from '../said';
import { Link } from '../nav';
import { keys, queryClient, useApiQuery } from '../query';
import { listAllDevices } from '../devices/api';
import { listPeople } from '../people/api';
import { useDocumentTitle } from '../useDocumentTitle';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { useDiscardGuard } from '../components/DiscardGuard';
import { createSpace, deleteSpace, listAllSpaces, updateSpace } from './api';
import { SpaceForm } from './SpaceForm';
import { spaceTree } from './tree';
import { Serial } from '../components/Serial';
import { wrapAnywhere, wrapInCell } from '../components/badgeStyles';

const route = getRouteApi('/spaces');

type Dialog = { kind: 'create'; parentId: string | null } | { kind: 'edit'; space: SpaceOut };

/** The space tree; the chosen space (`?space=`) with its people and devices. */
export function SpacesPage() {
  const t = useT();
  useDocumentTitle(t('nav.spaces'));
  const canEdit = useCanEdit();
  const { space: selectedId } = route.useSearch();
  const navigate = route.useNavigate();
  const spaces = useApiQuery(keys.spaces, (signal) => listAllSpaces(signal));
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const discard = useDiscardGuard(() => setDialog(null));
  const all = spaces.data ?? [];
  const selected = all.find((s) => s.id === selectedId) ?? null;
  const select = (id: string | undefined) => void navigate({ search: { space: id } });

  const saved = async (space: SpaceOut) => {
    await queryClient.invalidateQueries({ queryKey: keys.spaces });
    setDialog(null);
    select(space.id);
  };

  return (
    <>
      <Group justify="space-between">
        <Title order={1}>{t('nav.spaces')}</Title>
        {canEdit && (
          <Button onClick={() => setDialog({ kind: 'create', parentId: null })}>
            {t('spaces.new')}
          </Button>
        )}
      </Group>
      {spaces.error !== null && (
        <Alert color="red" title={t('spaces.notLoaded')}>
          {spaces.error}
        </Alert>
      )}
      {spaces.data === null && spaces.loading && (
        <Loader role="status" aria-label={t('spaces.loading')} />
      )}
      {spaces.data !== null && all.length === 0 && (
        <Alert color="blue" title={t('spaces.emptyTitle')} data-testid="spaces-empty">
          {canEdit ? t('spaces.emptyEdit') : t('spaces.emptyRead')}
        </Alert>
      )}
      {all.length > 0 && (
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
          <Card withBorder component="nav" aria-label={t('spaces.tree')} padding="xs">
            {spaceTree(all).map((node) => (
              <NavLink
                key={node.space.id}
                component="button"
                label={node.space.name}
                active={node.space.id === selectedId}
                aria-current={node.space.id === selectedId ? 'true' : undefined}
                pl={12 + node.depth * 20}
                onClick={() => select(node.space.id)}
              />
            ))}
          </Card>
          {selected === null ? (
            <Text c="dimmed">{t('spaces.choose')}</Text>
          ) : (
            <SpaceDetails
              key={selected.id}
              space={selected}
              path={spaceTree(all).find((n) => n.space.id === selected.id)?.path ?? selected.name}
              canEdit={canEdit}
              onAddChild={() => setDialog({ kind: 'create', parentId: selected.id })}
              onEdit={() => setDialog({ kind: 'edit', space: selected })}
              onDeleted={() => select(undefined)}
            />
          )}
        </SimpleGrid>
      )}
      <Modal
        opened={dialog !== null}
        onClose={discard.requestClose}
        title={
          dialog?.kind === 'edit'
            ? t('spaces.editTitle', { name: dialog.space.name })
            : t('spaces.new')
        }
      >
        {dialog?.kind === 'create' && (
          <SpaceForm
            spaces={all}
            defaultParentId={dialog.parentId}
            submitLabel={t('spaces.create')}
            onDirty={discard.setDirty}
            onSubmit={async (values: SpaceCreate) => saved(await createSpace(values))}
          />
        )}
        {dialog?.kind === 'edit' && (
          <SpaceForm
            spaces={all}
            space={dialog.space}
            submitLabel={t('common.save')}
            onDirty={discard.setDirty}
            onSubmit={async (values: SpaceCreate, etag?: string) =>
              saved(await updateSpace(dialog.space.id, values, etag))
            }
            reread={async () => {
              await queryClient.invalidateQueries({ queryKey: keys.spaces });
              const fresh = await listAllSpaces();
              return fresh.find((s) => s.id === dialog.space.id);
            }}
          />
        )}
      </Modal>
      {discard.question}
    </>
  );
}

function SpaceDetails({
  space,
  path,
  canEdit,
  onAddChild,
  onEdit,
  onDeleted,
}: {
  space: SpaceOut;
  path: string;
  canEdit: boolean;
  onAddChild: () => void;
  onEdit: () => void;
  onDeleted: () => void;
}) {
  const t = useT();
  const people = useApiQuery([...keys.people, 'space', space.id], (signal) =>
    listPeople({ spaceId: space.id, page: 1, pageSize: 25 }, signal),
  );
  const devices = useApiQuery(keys.devices, (signal) => listAllDevices(signal));
  const here = (devices.data ?? []).filter((d) => d.spaceId === space.id);
  const [refusal, setRefusal] = useState<Said | null>(null);
  const [confirming, setConfirming] = useState(false);

  const remove = async () => {
    setRefusal(null);
    try {
      await deleteSpace(space.id);
      setConfirming(false);
      await queryClient.invalidateQueries({ queryKey: keys.spaces });
      onDeleted();
    } catch (error) {
      setConfirming(false);
      setRefusal(saidFailure(error));
    }
  };

  return (
    <Stack component="section" aria-label={t('spaces.section', { name: space.name })}>
      <div>
        <Title order={2} style={wrapAnywhere}>
          {space.name}
        </Title>
        <Text size="sm" c="dimmed" style={wrapAnywhere}>
          {path}
        </Text>
      </div>
      {canEdit && (
        <Group gap="xs">
          <Button variant="default" size="xs" onClick={onAddChild}>
            {t('spaces.addInside')}
          </Button>
          <Button variant="default" size="xs" onClick={onEdit}>
            {t('spaces.renameOrMove')}
          </Button>
          <Button color="red" variant="outline" size="xs" onClick={() => setConfirming(true)}>
            {t('spaces.delete')}
          </Button>
        </Group>
      )}
      <ConfirmDialog
        opened={confirming}
        title={t('spaces.deleteTitle', { name: space.name })}
        confirmLabel={t('spaces.deleteConfirm')}
        onCancel={() => setConfirming(false)}
        onConfirm={remove}
      >
        {t('spaces.deleteText', { path })}
      </ConfirmDialog>
      {refusal !== null && (
        <Alert color="red" title={t('common.notDeleted')} role="alert" data-testid="space-refusal">
          {say(refusal)}
        </Alert>
      )}
      <Title order={3}>{t('nav.people')}</Title>
      {people.data !== null && people.data.total === 0 && (
        <Text c="dimmed" data-testid="space-people-empty">
          {t('spaces.noPeople')}
        </Text>
      )}
      {people.data !== null && people.data.total > 0 && (
        <>
          <Table aria-label={t('spaces.peopleHere')}>
            <Table.Tbody>
              {people.data.items.map((person) => (
                <Table.Tr key={person.id}>
                  <Table.Td style={wrapInCell}>
                    <Link to="/people/$id" params={{ id: person.id }}>
                      {person.name}
                    </Link>
                  </Table.Td>
                  <Table.Td style={wrapInCell}>{person.idNumber}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Link to="/people" search={{ space: space.id }} style={wrapAnywhere}>
            {t('spaces.allPeople', { count: people.data.total, name: space.name })}
          </Link>
        </>
      )}
      <Title order={3}>{t('nav.devices')}</Title>
      {devices.data !== null && here.length === 0 && (
        <Text c="dimmed" data-testid="space-devices-empty">
          {t('spaces.noDevices')}
        </Text>
      )}
      {here.length > 0 && (
        <Table aria-label={t('spaces.devicesHere')}>
          <Table.Tbody>
            {here.map((device) => (
              <Table.Tr key={device.id}>
                <Table.Td style={wrapInCell}>{device.name}</Table.Td>
                <Table.Td style={wrapInCell}>
                  <Serial sn={device.sn} />
                </Table.Td>
                <Table.Td>
                  <Badge color={device.online ? 'green' : 'gray'} variant="light">
                    {device.online ? t('devices.online') : t('devices.offline')}
                  </Badge>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
