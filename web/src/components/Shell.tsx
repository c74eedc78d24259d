import {
  Alert,
  AppShell,
  Badge,
  Burger,
  Button,
  Group,
  Menu,
  Modal,
  Stack,
  Text,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { SessionUser } from '@svc/shared';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { useLocation } from '@tanstack/react-router';
import { NavLinkTo } from '../nav';
import { useSession } from '../session';

// The form (and its validation code) loads when first opened, not with every page.
const OwnPasswordForm = lazy(async () => ({
  default: (await import('./OwnPasswordForm')).OwnPasswordForm,
}));

const roleLabel: Record<SessionUser['role'], string> = {
  superadmin: 'Super administrator',
  admin: 'Administrator',
  operator: 'Operator',
};

const sections = [
  { to: '/', label: 'Dashboard', exact: true },
  { to: '/spaces', label: 'Spaces', exact: false },
  { to: '/devices', label: 'Devices', exact: false },
  { to: '/sync', label: 'Synchronization', exact: false },
  { to: '/people', label: 'People', exact: false },
  { to: '/events', label: 'Events', exact: false },
  { to: '/system', label: 'System Configuration', exact: false },
  { to: '/organizations', label: 'Organizations', exact: false },
  { to: '/administrators', label: 'Administrators', exact: false, adminsOnly: true },
  { to: '/enrollment/changes', label: 'Pending changes', exact: false },
  { to: '/import', label: 'Import', exact: false, adminsOnly: true },
  { to: '/audit', label: 'Audit log', exact: false, adminsOnly: true },
  { to: '/settings', label: 'Settings', exact: false },
] as const;

/** The signed-in frame: who is signed in, sign-out, and the navigation between pages. */
export function Shell({ user, children }: { user: SessionUser; children: ReactNode }) {
  const { signOut } = useSession();
  const path = useLocation({ select: (location) => location.pathname });
  const [signingOut, setSigningOut] = useState(false);
  const [opened, { toggle, close }] = useDisclosure(false);
  const [changing, setChanging] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 200, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label="Navigation"
            />
            <Text fw={700} size="lg">
              svc
              <Text span inherit visibleFrom="xs">
                {' '}
                management
              </Text>
            </Text>
          </Group>
          <Group gap="sm" wrap="nowrap" data-testid="current-user">
            <Text size="sm" truncate visibleFrom="xs">
              Signed in as{' '}
              <Text span fw={600} data-testid="current-username">
                {user.username}
              </Text>
              {user.displayName !== '' && user.displayName !== user.username && (
                <Text span c="dimmed">
                  {' '}
                  ({user.displayName})
                </Text>
              )}
            </Text>
            <Badge variant="light" data-testid="current-role" title={user.role} visibleFrom="sm">
              {roleLabel[user.role]}
            </Badge>
            <Menu position="bottom-end">
              <Menu.Target>
                <Button variant="default" size="xs" loading={signingOut}>
                  Account
                </Button>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Label>
                  {user.username} · {roleLabel[user.role]}
                </Menu.Label>
                <Menu.Item onClick={() => setChanging(true)}>Change password</Menu.Item>
                <Menu.Item
                  onClick={() => {
                    setSigningOut(true);
                    void signOut();
                  }}
                >
                  Sign out
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main">
        <Stack gap={2} component="nav" aria-label="Sections">
          {sections
            .filter((section) => !('adminsOnly' in section) || user.role !== 'operator')
            .map((section) => {
              const active = section.exact
                ? path === section.to
                : path === section.to || path.startsWith(`${section.to}/`);
              return (
                <NavLinkTo
                  key={section.to}
                  to={section.to}
                  label={section.label}
                  active={active}
                  aria-current={active ? 'page' : undefined}
                  onClick={close}
                />
              );
            })}
        </Stack>
      </AppShell.Navbar>
      <Modal opened={changing} onClose={() => setChanging(false)} title="Change your password">
        <Suspense fallback={null}>
          <OwnPasswordForm
            onDone={(message) => {
              setChanging(false);
              setNotice(message);
            }}
          />
        </Suspense>
      </Modal>
      <AppShell.Main>
        {notice !== null && (
          <Alert
            color="green"
            role="status"
            withCloseButton
            closeButtonLabel="Dismiss"
            onClose={() => setNotice(null)}
            maw={1200}
            mx="auto"
            mb="md"
            data-testid="shell-notice"
          >
            {notice}
          </Alert>
        )}
        <Stack maw={1200} mx="auto">
          {children}
        </Stack>
      </AppShell.Main>
    </AppShell>
  );
}
