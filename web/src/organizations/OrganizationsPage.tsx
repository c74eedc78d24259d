import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  List,
  Loader,
  Modal,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import type { AdminRole, OrganizationOut } from '@svc/shared';
import { useState } from 'react';
import { formatTime } from '../people/format';
import { keys, queryClient, useApiQuery } from '../query';
import { useSession } from '../session';
import { useDocumentTitle } from '../useDocumentTitle';
import { createOrganization, listOrganizations, renameOrganization } from './api';
import { OrganizationForm } from './OrganizationForm';

const roleLabel: Record<AdminRole, string> = {
  superadmin: 'Super administrator',
  admin: 'Administrator',
  operator: 'Operator',
};

/** What each role may do, as the server enforces it (PROTOCOL §6–§7). */
const permissions: Record<AdminRole, string[]> = {
  superadmin: [
    'See every organization',
    'Create administrators of any role, including super administrators',
    'Manage spaces, devices, people and System Configuration',
    'Approve or reject pending changes; read the audit log',
  ],
  admin: [
    'See your own organization',
    'Create administrators and operators; disable them, reset their passwords',
    'Manage spaces, devices, people and System Configuration',
    'Approve or reject pending changes; read the audit log',
  ],
  operator: [
    'See your own organization',
    'View spaces, devices, people, events and System Configuration',
    'No changes: creating, editing and deleting are for administrators',
  ],
};

/** The organization(s) the signed-in administrator may see, and what their role allows. */
export function OrganizationsPage() {
  useDocumentTitle('Organizations');
  const { state } = useSession();
  const orgs = useApiQuery(keys.organizations, (signal) => listOrganizations(signal));
  // null: closed; 'new': creating; an organization: renaming it.
  const [editing, setEditing] = useState<OrganizationOut | 'new' | null>(null);
  if (state.status !== 'signedIn') return null;
  const { user } = state;
  const canRename = (org: OrganizationOut) =>
    user.role === 'superadmin' || (user.role === 'admin' && org.id === user.organizationId);
  const done = async () => {
    setEditing(null);
    await queryClient.invalidateQueries({ queryKey: keys.organizations });
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Organizations</Title>
        {user.role === 'superadmin' && (
          <Button onClick={() => setEditing('new')}>New organization</Button>
        )}
      </Group>
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? 'New organization' : 'Rename organization'}
      >
        {editing !== null && (
          <OrganizationForm
            name={editing === 'new' ? '' : editing.name}
            submitLabel={editing === 'new' ? 'Create' : 'Save'}
            onSubmit={async (body) => {
              if (editing === 'new') await createOrganization(body);
              else await renameOrganization(editing.id, body);
              await done();
            }}
          />
        )}
      </Modal>
      {orgs.error !== null && (
        <Alert color="red" role="alert">
          {orgs.error}
        </Alert>
      )}
      {orgs.loading && orgs.data === null && <Loader aria-label="Loading" />}
      {orgs.data !== null && (
        <Stack
          component="ul"
          aria-label="Organizations"
          gap="xs"
          p={0}
          m={0}
          style={{ listStyle: 'none' }}
        >
          {orgs.data.items.map((org) => (
            <Card component="li" withBorder key={org.id} data-testid="organization-row">
              <Group justify="space-between" gap="xs">
                <Text fw={600}>{org.name}</Text>
                <Group gap="xs">
                  {org.id === user.organizationId && (
                    <Badge variant="light" color="teal">
                      Your organization
                    </Badge>
                  )}
                  {canRename(org) && (
                    <Button
                      variant="default"
                      size="xs"
                      aria-label={`Rename ${org.name}`}
                      onClick={() => setEditing(org)}
                    >
                      Rename
                    </Button>
                  )}
                </Group>
              </Group>
              <Text size="sm" c="dimmed">
                Created {formatTime(org.createdAt)}
              </Text>
            </Card>
          ))}
        </Stack>
      )}
      <Card withBorder component="section" aria-labelledby="own-permissions">
        <Title order={2} size="h4" id="own-permissions">
          Your permissions
        </Title>
        <Text mt="xs">
          Signed in as <b>{user.username}</b>, role{' '}
          <Text span fw={600} data-testid="own-role">
            {roleLabel[user.role]}
          </Text>
          .
        </Text>
        <List mt="xs" data-testid="own-permissions">
          {permissions[user.role].map((line) => (
            <List.Item key={line}>{line}</List.Item>
          ))}
        </List>
      </Card>
    </Stack>
  );
}
