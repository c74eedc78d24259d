import {
  Alert,
  Badge,
  Button,
  Group,
  Loader,
  Menu,
  Modal,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { NotAllowed } from '../access';
import { useT } from '../i18n';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ScrollHint } from '../components/ScrollHint';
import { SecretShownOnce } from '../components/SecretShownOnce';
import { useAction } from '../useAction';
import { formatTime } from '../people/format';
import { keys, queryClient, useApiQuery } from '../query';
import { listOrganizations } from '../organizations/api';
import { useSession } from '../session';
import { useDocumentTitle } from '../useDocumentTitle';
import {
  clearLockout,
  createAdministrator,
  listAdministrators,
  listLockouts,
  resetPassword,
  setDisabled,
  type Administrator,
  type WithPassword,
} from './api';
import { CreateAdministratorForm } from './CreateAdministratorForm';
import { EditAdministratorForm } from './EditAdministratorForm';
import { useDiscardGuard } from '../components/DiscardGuard';
import { displayName, organizationName } from '../i18n/seeded';

/** Accounts with role and state; create, disable, reset password; sign-in lockouts cleared. */
export function AdministratorsPage() {
  const t = useT();
  useDocumentTitle(t('nav.administrators'));
  const { state } = useSession();
  const role = state.status === 'signedIn' ? state.user.role : 'operator';
  // Operators cannot list accounts (the API answers 403): the page says so instead.
  if (role === 'operator' || state.status !== 'signedIn')
    return <NotAllowed reason="administrators" />;
  const { user } = state;
  return (
    <Administrators
      actorRole={role}
      actorId={user.id}
      workingIn={user.workingOrganizationId ?? user.organizationId}
    />
  );
}

function Administrators({
  actorRole,
  actorId,
  workingIn,
}: {
  actorRole: 'admin' | 'superadmin';
  /** The signed-in administrator: their own row offers no Disable, no reset, no role change. */
  actorId: string;
  /** Where a new account goes unless a superadmin picks another organization. */
  workingIn: string;
}) {
  const t = useT();
  const admins = useApiQuery(keys.administrators, (signal) => listAdministrators(signal));
  const superadmin = actorRole === 'superadmin';
  const orgs = useApiQuery(keys.organizations, (signal) => listOrganizations(signal), {
    enabled: superadmin,
  });
  const orgOptions = (orgs.data?.items ?? []).map((o) => ({
    value: o.id,
    label: organizationName(o.name),
  }));
  const orgName = new Map(orgOptions.map((o) => [o.value, o.label]));
  const lockouts = useApiQuery([...keys.administrators, 'lockouts'], (signal) =>
    listLockouts(signal),
  );
  const [creating, setCreating] = useState(false);
  const discard = useDiscardGuard(() => setCreating(false));
  const [shown, setShown] = useState<WithPassword | null>(null);
  const [disabling, setDisabling] = useState<Administrator | null>(null);
  const [editing, setEditing] = useState<Administrator | null>(null);
  const editDiscard = useDiscardGuard(() => setEditing(null));
  const [resetting, setResetting] = useState<Administrator | null>(null);
  const { problem, act } = useAction(keys.administrators);
  const locked = new Set(
    (lockouts.data ?? []).map((l) => l.username).filter((u): u is string => u !== null),
  );

  return (
    <>
      <Group justify="space-between">
        <Title order={1}>{t('nav.administrators')}</Title>
        <Button onClick={() => setCreating(true)}>{t('administrators.new')}</Button>
      </Group>
      {admins.error !== null && <Alert color="red">{admins.error}</Alert>}
      {problem !== null && (
        <Alert
          color="red"
          title={t('common.notDone')}
          role="alert"
          data-testid="administrators-error"
        >
          {problem}
        </Alert>
      )}
      {admins.data === null && admins.loading && (
        <Loader role="status" aria-label={t('administrators.loading')} />
      )}
      {admins.data !== null && <ScrollHint />}
      {admins.data !== null && (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label={t('nav.administrators')} striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('administrators.username')}</Table.Th>
                {superadmin && <Table.Th>{t('administrators.organization')}</Table.Th>}
                <Table.Th>{t('administrators.role')}</Table.Th>
                <Table.Th>{t('administrators.state')}</Table.Th>
                <Table.Th>{t('administrators.lastSignIn')}</Table.Th>
                <Table.Th>{t('common.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {admins.data.map((a) => (
                <Table.Tr key={a.id} data-testid="administrator-row" data-username={a.username}>
                  <Table.Td>
                    {/* The catalog places the marker: "admin (you)", "admin（您）" with no space. */}
                    {a.id === actorId
                      ? t('administrators.you', { username: a.username })
                      : a.username}
                    {a.displayName !== '' && a.displayName !== a.username && (
                      <Text size="xs" c="dimmed">
                        {displayName(a.displayName)}
                      </Text>
                    )}
                  </Table.Td>
                  {superadmin && (
                    <Table.Td data-testid="administrator-organization">
                      {orgName.get(a.organizationId) ?? ''}
                    </Table.Td>
                  )}
                  <Table.Td>{t(`roles.${a.role}`)}</Table.Td>
                  <Table.Td data-testid="administrator-state">
                    <Group gap={4}>
                      <Badge color={a.disabled ? 'red' : 'green'} variant="light">
                        {a.disabled ? t('administrators.disabled') : t('administrators.active')}
                      </Badge>
                      {a.mustChangePassword && (
                        <Badge color="yellow" variant="light">
                          {t('administrators.mustChange')}
                        </Badge>
                      )}
                      {locked.has(a.username) && (
                        <Badge color="orange" variant="light">
                          {t('administrators.lockedOut')}
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    {a.lastLoginAt === null ? t('devices.never') : formatTime(a.lastLoginAt)}
                  </Table.Td>
                  <Table.Td>
                    <Menu position="bottom-end">
                      <Menu.Target>
                        <Button
                          variant="default"
                          size="xs"
                          aria-label={t('common.actionsFor', { name: a.username })}
                        >
                          {t('common.actions')}
                        </Button>
                      </Menu.Target>
                      <Menu.Dropdown>
                        {(superadmin || a.role !== 'superadmin') && (
                          <Menu.Item onClick={() => setEditing(a)}>
                            {t('administrators.edit')}
                          </Menu.Item>
                        )}
                        {a.id !== actorId && (
                          <Menu.Item
                            onClick={() =>
                              a.disabled
                                ? void act(() => setDisabled(a.id, false, a.etag))
                                : setDisabling(a)
                            }
                          >
                            {a.disabled
                              ? t('administrators.enable')
                              : t('administrators.disableMenu')}
                          </Menu.Item>
                        )}
                        {a.id !== actorId && (
                          <Menu.Item onClick={() => setResetting(a)}>
                            {t('administrators.resetPassword')}
                          </Menu.Item>
                        )}
                        {locked.has(a.username) && (
                          <Menu.Item onClick={() => void act(() => clearLockout(a.username))}>
                            {t('administrators.clearLockout')}
                          </Menu.Item>
                        )}
                      </Menu.Dropdown>
                    </Menu>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Modal opened={creating} onClose={discard.requestClose} title={t('administrators.new')}>
        <CreateAdministratorForm
          onDirty={discard.setDirty}
          actorRole={actorRole}
          {...(superadmin && { organizations: orgOptions, organizationId: workingIn })}
          onSubmit={async (body) => {
            const created = await createAdministrator(body);
            await queryClient.invalidateQueries({ queryKey: keys.administrators });
            setCreating(false);
            setShown(created);
          }}
        />
      </Modal>
      {discard.question}
      <Modal
        opened={editing !== null}
        onClose={editDiscard.requestClose}
        title={t('administrators.editTitle', { username: editing?.username ?? '' })}
      >
        {editing !== null && (
          <EditAdministratorForm
            administrator={editing}
            actorRole={actorRole}
            self={editing.id === actorId}
            {...(superadmin && { organizations: orgOptions })}
            onDirty={editDiscard.setDirty}
            onSaved={async () => {
              await queryClient.invalidateQueries({ queryKey: keys.administrators });
              setEditing(null);
            }}
          />
        )}
      </Modal>
      {editDiscard.question}
      <SecretShownOnce
        opened={shown !== null}
        title={t('administrators.oneTime')}
        label={t('administrators.oneTimeFor', { username: shown?.username ?? '' })}
        secret={shown?.temporaryPassword ?? ''}
        copyLabel={t('administrators.copyPassword')}
        storedLabel={t('administrators.stored')}
        testId="one-time-password"
        onStored={() => setShown(null)}
      >
        {t('administrators.oneTimeText', { username: shown?.username ?? '' })}
      </SecretShownOnce>
      <ConfirmDialog
        opened={disabling !== null}
        title={t('administrators.disableTitle', { username: disabling?.username ?? '' })}
        confirmLabel={t('administrators.disable')}
        onCancel={() => setDisabling(null)}
        onConfirm={async () => {
          const account = disabling;
          if (account !== null) await act(() => setDisabled(account.id, true, account.etag));
          setDisabling(null);
        }}
      >
        {t('administrators.disableText', { username: disabling?.username ?? '' })}
      </ConfirmDialog>
      <ConfirmDialog
        opened={resetting !== null}
        title={t('administrators.resetTitle', { username: resetting?.username ?? '' })}
        confirmLabel={t('administrators.resetConfirm')}
        onCancel={() => setResetting(null)}
        onConfirm={async () => {
          const account = resetting;
          setResetting(null);
          if (account !== null) await act(async () => setShown(await resetPassword(account.id)));
        }}
      >
        {t('administrators.resetText', { username: resetting?.username ?? '' })}
      </ConfirmDialog>
    </>
  );
}
