import {
  Alert,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Loader,
  Menu,
  Modal,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { NotAllowed } from '../access';
import { useAction } from '../useAction';
import { formatTime } from '../people/format';
import { keys, queryClient, useApiQuery } from '../query';
import { useSession } from '../session';
import { useDocumentTitle } from '../useDocumentTitle';
import {
  clearLockout,
  createAdministrator,
  listAdministrators,
  listLockouts,
  resetPassword,
  setDisabled,
  type WithPassword,
} from './api';
import { CreateAdministratorForm } from './CreateAdministratorForm';

const roleLabel = {
  superadmin: 'Super administrator',
  admin: 'Administrator',
  operator: 'Operator',
};

/** Accounts with role and state; create, disable, reset password; sign-in lockouts cleared. */
export function AdministratorsPage() {
  useDocumentTitle('Administrators');
  const { state } = useSession();
  const role = state.status === 'signedIn' ? state.user.role : 'operator';
  // Operators cannot list accounts (the API answers 403): the page says so instead.
  if (role === 'operator') return <NotAllowed />;
  return <Administrators actorRole={role} />;
}

function Administrators({ actorRole }: { actorRole: 'admin' | 'superadmin' }) {
  const admins = useApiQuery(keys.administrators, (signal) => listAdministrators(signal));
  const lockouts = useApiQuery([...keys.administrators, 'lockouts'], (signal) =>
    listLockouts(signal),
  );
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<WithPassword | null>(null);
  const { problem, act } = useAction(keys.administrators);
  const locked = new Set(
    (lockouts.data ?? []).map((l) => l.username).filter((u): u is string => u !== null),
  );

  return (
    <>
      <Group justify="space-between">
        <Title order={1}>Administrators</Title>
        <Button onClick={() => setCreating(true)}>New administrator</Button>
      </Group>
      {admins.error !== null && <Alert color="red">{admins.error}</Alert>}
      {problem !== null && (
        <Alert color="red" title="Not done" role="alert" data-testid="administrators-error">
          {problem}
        </Alert>
      )}
      {admins.data === null && admins.loading && <Loader aria-label="Loading administrators" />}
      {admins.data !== null && (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label="Administrators" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Username</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Last sign-in</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {admins.data.map((a) => (
                <Table.Tr key={a.id} data-testid="administrator-row" data-username={a.username}>
                  <Table.Td>
                    {a.username}
                    {a.displayName !== '' && a.displayName !== a.username && (
                      <Text size="xs" c="dimmed">
                        {a.displayName}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{roleLabel[a.role]}</Table.Td>
                  <Table.Td data-testid="administrator-state">
                    <Group gap={4}>
                      <Badge color={a.disabled ? 'red' : 'green'} variant="light">
                        {a.disabled ? 'Disabled' : 'Active'}
                      </Badge>
                      {a.mustChangePassword && (
                        <Badge color="yellow" variant="light">
                          Must change password
                        </Badge>
                      )}
                      {locked.has(a.username) && (
                        <Badge color="orange" variant="light">
                          Locked out
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    {a.lastLoginAt === null ? 'Never' : formatTime(a.lastLoginAt)}
                  </Table.Td>
                  <Table.Td>
                    <Menu position="bottom-end">
                      <Menu.Target>
                        <Button
                          variant="default"
                          size="xs"
                          aria-label={`Actions for ${a.username}`}
                        >
                          Actions
                        </Button>
                      </Menu.Target>
                      <Menu.Dropdown>
                        <Menu.Item onClick={() => void act(() => setDisabled(a.id, !a.disabled))}>
                          {a.disabled ? 'Enable' : 'Disable (ends sessions)'}
                        </Menu.Item>
                        <Menu.Item
                          onClick={() => void act(async () => setShown(await resetPassword(a.id)))}
                        >
                          Reset password
                        </Menu.Item>
                        {locked.has(a.username) && (
                          <Menu.Item onClick={() => void act(() => clearLockout(a.username))}>
                            Clear sign-in lockout
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
      <Modal opened={creating} onClose={() => setCreating(false)} title="New administrator">
        <CreateAdministratorForm
          actorRole={actorRole}
          onSubmit={async (body) => {
            const created = await createAdministrator(body);
            await queryClient.invalidateQueries({ queryKey: keys.administrators });
            setCreating(false);
            setShown(created);
          }}
        />
      </Modal>
      <Modal
        opened={shown !== null}
        onClose={() => setShown(null)}
        closeOnClickOutside={false}
        title="One-time password"
      >
        {shown !== null && <OneTimePassword account={shown} onDone={() => setShown(null)} />}
      </Modal>
    </>
  );
}

function OneTimePassword({ account, onDone }: { account: WithPassword; onDone: () => void }) {
  return (
    <Stack>
      <Alert color="orange" title="Shown only now">
        Give this one-time password to {account.username} in person. It is not shown again; at the
        first sign-in it must be changed.
      </Alert>
      <Text size="sm" fw={600} id="otp-label">
        One-time password for {account.username}
      </Text>
      <Code block aria-labelledby="otp-label" data-testid="one-time-password">
        {account.temporaryPassword}
      </Code>
      <Group justify="space-between">
        <CopyButton value={account.temporaryPassword}>
          {({ copied, copy }) => (
            <Button variant="default" onClick={copy}>
              {copied ? 'Copied' : 'Copy password'}
            </Button>
          )}
        </CopyButton>
        <Button onClick={onDone}>Done</Button>
      </Group>
    </Stack>
  );
}
