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
import { describeError } from '../messages';
import { Link } from '../nav';
import { keys, queryClient, useApiQuery } from '../query';
import { listAllDevices, listAllSpaces, listPeople } from '../resources';
import { useDocumentTitle } from '../useDocumentTitle';
import { createSpace, deleteSpace, updateSpace } from './api';
import { SpaceForm } from './SpaceForm';
import { spaceTree } from './tree';

const route = getRouteApi('/spaces');

type Dialog = { kind: 'create'; parentId: string | null } | { kind: 'edit'; space: SpaceOut };

/** The space tree; the chosen space (`?space=`) with its people and devices. */
export function SpacesPage() {
  useDocumentTitle('Spaces');
  const canEdit = useCanEdit();
  const { space: selectedId } = route.useSearch();
  const navigate = route.useNavigate();
  const spaces = useApiQuery(keys.spaces, (signal) => listAllSpaces(signal));
  const [dialog, setDialog] = useState<Dialog | null>(null);
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
        <Title order={1}>Spaces</Title>
        {canEdit && (
          <Button onClick={() => setDialog({ kind: 'create', parentId: null })}>New space</Button>
        )}
      </Group>
      {spaces.error !== null && (
        <Alert color="red" title="The spaces could not be loaded">
          {spaces.error}
        </Alert>
      )}
      {spaces.data === null && spaces.loading && <Loader aria-label="Loading spaces" />}
      {spaces.data !== null && all.length === 0 && (
        <Alert color="blue" title="No spaces yet" data-testid="spaces-empty">
          Spaces are the places people may enter: a site, a building, a floor, a door.{' '}
          {canEdit
            ? 'Create the first one with New space; people and devices are then placed in spaces.'
            : 'An administrator creates them.'}
        </Alert>
      )}
      {all.length > 0 && (
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
          <Card withBorder component="nav" aria-label="Space tree" padding="xs">
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
            <Text c="dimmed">Choose a space to see its people and devices.</Text>
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
        onClose={() => setDialog(null)}
        title={dialog?.kind === 'edit' ? `Rename or move ${dialog.space.name}` : 'New space'}
      >
        {dialog?.kind === 'create' && (
          <SpaceForm
            spaces={all}
            defaultParentId={dialog.parentId}
            submitLabel="Create"
            onSubmit={async (values: SpaceCreate) => saved(await createSpace(values))}
          />
        )}
        {dialog?.kind === 'edit' && (
          <SpaceForm
            spaces={all}
            space={dialog.space}
            submitLabel="Save"
            onSubmit={async (values: SpaceCreate) =>
              saved(await updateSpace(dialog.space.id, values))
            }
          />
        )}
      </Modal>
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
  const people = useApiQuery([...keys.people, 'space', space.id], (signal) =>
    listPeople({ spaceId: space.id, page: 1, pageSize: 25 }, signal),
  );
  const devices = useApiQuery(keys.devices, (signal) => listAllDevices(signal));
  const here = (devices.data ?? []).filter((d) => d.spaceId === space.id);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);

  const remove = async () => {
    setDeleting(true);
    setRefusal(null);
    try {
      await deleteSpace(space.id);
      await queryClient.invalidateQueries({ queryKey: keys.spaces });
      onDeleted();
    } catch (error) {
      setRefusal(describeError(error, 'other'));
    } finally {
      setDeleting(false);
    }
  };

  return (
    <Stack component="section" aria-label={`Space ${space.name}`}>
      <div>
        <Title order={2}>{space.name}</Title>
        <Text size="sm" c="dimmed">
          {path}
        </Text>
      </div>
      {canEdit && (
        <Group gap="xs">
          <Button variant="default" size="xs" onClick={onAddChild}>
            Add space inside
          </Button>
          <Button variant="default" size="xs" onClick={onEdit}>
            Rename or move
          </Button>
          <Button
            color="red"
            variant="outline"
            size="xs"
            loading={deleting}
            onClick={() => void remove()}
          >
            Delete
          </Button>
        </Group>
      )}
      {refusal !== null && (
        <Alert color="red" title="Not deleted" role="alert" data-testid="space-refusal">
          {refusal}
        </Alert>
      )}
      <Title order={3}>People</Title>
      {people.data !== null && people.data.total === 0 && (
        <Text c="dimmed" data-testid="space-people-empty">
          No one is in this space yet. Add people from the People page and choose this space.
        </Text>
      )}
      {people.data !== null && people.data.total > 0 && (
        <>
          <Table aria-label="People in this space">
            <Table.Tbody>
              {people.data.items.map((person) => (
                <Table.Tr key={person.id}>
                  <Table.Td>
                    <Link to="/people/$id" params={{ id: person.id }}>
                      {person.name}
                    </Link>
                  </Table.Td>
                  <Table.Td>{person.idNumber}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Link to="/people" search={{ space: space.id }}>
            All {people.data.total} people of {space.name}
          </Link>
        </>
      )}
      <Title order={3}>Devices</Title>
      {devices.data !== null && here.length === 0 && (
        <Text c="dimmed" data-testid="space-devices-empty">
          No device is in this space. Register one on the Devices page and choose this space.
        </Text>
      )}
      {here.length > 0 && (
        <Table aria-label="Devices in this space">
          <Table.Tbody>
            {here.map((device) => (
              <Table.Tr key={device.id}>
                <Table.Td>{device.name}</Table.Td>
                <Table.Td>{device.sn}</Table.Td>
                <Table.Td>
                  <Badge color={device.online ? 'green' : 'gray'} variant="light">
                    {device.online ? 'Online' : 'Offline'}
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
