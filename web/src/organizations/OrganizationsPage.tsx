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
import { namesOrganization, type AdminRole, type OrganizationOut } from '@svc/shared';
import { useState } from 'react';
import { useT } from '../i18n';
import { Tx } from '../i18n/Tx';
import { formatTime } from '../people/format';
import { keys, queryClient, useApiQuery } from '../query';
import { useSession } from '../session';
import { saidFailure, say, type Said } from '../said';
import { useDocumentTitle } from '../useDocumentTitle';
import { isEditConflict } from '../conflict';
import { createOrganization, listOrganizations, renameOrganization } from './api';
import { OrganizationForm } from './OrganizationForm';
import { organizationName } from '../i18n/seeded';

/** What each role may do, as the server enforces it (PROTOCOL §6–§7): catalog keys. */
const permissions: Record<AdminRole, string[]> = {
  superadmin: [
    'organizations.can.seeAll',
    'organizations.can.createAny',
    'organizations.can.manage',
    'organizations.can.approve',
  ],
  admin: [
    'organizations.can.seeOwn',
    'organizations.can.createOthers',
    'organizations.can.manage',
    'organizations.can.approve',
  ],
  operator: ['organizations.can.seeOwn', 'organizations.can.view', 'organizations.can.noChanges'],
};

/** The organization(s) the signed-in administrator may see, and what their role allows. */
export function OrganizationsPage() {
  const t = useT();
  useDocumentTitle(t('nav.organizations'));
  const { state, chooseOrganization } = useSession();
  const orgs = useApiQuery(keys.organizations, (signal) => listOrganizations(signal));
  // null: closed; 'new': creating; an organization: renaming it.
  const [editing, setEditing] = useState<OrganizationOut | 'new' | null>(null);
  const [problem, setProblem] = useState<Said | null>(null);
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
        <Title order={1}>{t('nav.organizations')}</Title>
        {user.role === 'superadmin' && (
          <Button onClick={() => setEditing('new')}>{t('organizations.new')}</Button>
        )}
      </Group>
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? t('organizations.new') : t('organizations.renameTitle')}
      >
        {editing !== null && (
          <OrganizationForm
            name={editing === 'new' ? '' : organizationName(editing.name)}
            submitLabel={editing === 'new' ? t('spaces.create') : t('common.save')}
            onSubmit={async (body) => {
              if (editing === 'new') await createOrganization(body);
              // The seed's name, shown in the reader's language, saved as shown is no rename:
              // the stored name stays the seed's, worded for every reader in their own.
              else if (!(await namesOrganization(editing.name, body.name))) {
                try {
                  await renameOrganization(editing.id, body, editing.etag);
                } catch (error) {
                  // Someone renamed it first: the form says so, and Save again goes over theirs.
                  if (isEditConflict(error)) {
                    const fresh = (await listOrganizations(new AbortController().signal)).items;
                    const now = fresh.find((o) => o.id === editing.id);
                    if (now !== undefined) setEditing(now);
                  }
                  throw error;
                }
              }
              await done();
            }}
          />
        )}
      </Modal>
      {problem !== null && (
        <Alert color="red" role="alert">
          {say(problem)}
        </Alert>
      )}
      {orgs.error !== null && (
        <Alert color="red" role="alert">
          {orgs.error}
        </Alert>
      )}
      {orgs.loading && orgs.data === null && (
        <Loader role="status" aria-label={t('common.loading')} />
      )}
      {orgs.data !== null && (
        <Stack
          component="ul"
          aria-label={t('nav.organizations')}
          gap="xs"
          p={0}
          m={0}
          style={{ listStyle: 'none' }}
        >
          {orgs.data.items.map((org) => (
            <Card component="li" withBorder key={org.id} data-testid="organization-row">
              <Group justify="space-between" gap="xs">
                <Text fw={600}>{organizationName(org.name)}</Text>
                <Group gap="xs">
                  {org.id === user.organizationId && (
                    <Badge variant="light" color="teal">
                      {t('organizations.yours')}
                    </Badge>
                  )}
                  {user.role === 'superadmin' &&
                    (org.id === user.workingOrganizationId ? (
                      <Badge variant="light">{t('organizations.workingInIt')}</Badge>
                    ) : (
                      <Button
                        variant="default"
                        size="xs"
                        aria-label={t('organizations.workInLabel', {
                          name: organizationName(org.name),
                        })}
                        onClick={() =>
                          void chooseOrganization(org.id).catch((error: unknown) =>
                            setProblem(saidFailure(error)),
                          )
                        }
                      >
                        {t('organizations.workIn')}
                      </Button>
                    ))}
                  {canRename(org) && (
                    <Button
                      variant="default"
                      size="xs"
                      aria-label={t('organizations.renameLabel', {
                        name: organizationName(org.name),
                      })}
                      onClick={() => setEditing(org)}
                    >
                      {t('organizations.rename')}
                    </Button>
                  )}
                </Group>
              </Group>
              <Text size="sm" c="dimmed">
                {t('organizations.created', { time: formatTime(org.createdAt) })}
              </Text>
            </Card>
          ))}
        </Stack>
      )}
      <Card withBorder component="section" aria-labelledby="own-permissions">
        <Title order={2} size="h4" id="own-permissions">
          {t('organizations.permissions')}
        </Title>
        <Text mt="xs">
          <Tx
            k="organizations.signedInAs"
            values={{ username: user.username, role: t(`roles.${user.role}`) }}
            components={{ b: <b />, role: <Text span fw={600} data-testid="own-role" /> }}
          />
        </Text>
        <List mt="xs" data-testid="own-permissions">
          {permissions[user.role].map((line) => (
            <List.Item key={line}>{t(line)}</List.Item>
          ))}
        </List>
      </Card>
    </Stack>
  );
}
