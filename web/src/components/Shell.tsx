import {
  Alert,
  AppShell,
  Badge,
  Box,
  Burger,
  Button,
  Group,
  Menu,
  Modal,
  Stack,
  Text,
} from '@mantine/core';
import { useDiscardGuard } from './DiscardGuard';
import { useDisclosure } from '@mantine/hooks';
import { SERVICE_NAME, type SessionUser } from '@svc/shared';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { useLocation } from '@tanstack/react-router';
import { Trans } from 'react-i18next';
import { engineInstance, useT } from '../i18n';
import { NavLinkTo } from '../nav';
import { useSession } from '../session';
import { OrganizationSwitcher } from './OrganizationSwitcher';
import { LanguageSwitch } from './LanguageSwitch';
import { displayName } from '../i18n/seeded';
import { say, type Said } from '../said';

// The form (and its validation code) loads when first opened, not with every page.
const OwnPasswordForm = lazy(async () => ({
  default: (await import('./OwnPasswordForm')).OwnPasswordForm,
}));
const TwoFactorPanel = lazy(() => import('../account/TwoFactorPanel'));

interface Section {
  to: string;
  /** Key under `nav.` in the catalogs. */
  label: string;
  exact: boolean;
  adminsOnly?: boolean;
}

/** The pages grouped by the job they serve, in the order a first session meets them. */
const groups: { title: string | null; sections: Section[] }[] = [
  { title: null, sections: [{ to: '/', label: 'dashboard', exact: true }] },
  {
    title: 'setup',
    sections: [
      { to: '/organizations', label: 'organizations', exact: false },
      { to: '/spaces', label: 'spaces', exact: false },
      { to: '/system', label: 'system', exact: false },
      { to: '/devices', label: 'devices', exact: false },
    ],
  },
  {
    title: 'peopleAndAccess',
    sections: [
      { to: '/people', label: 'people', exact: false },
      { to: '/import', label: 'import', exact: false, adminsOnly: true },
      { to: '/enrollment/changes', label: 'pendingChanges', exact: false },
    ],
  },
  {
    title: 'operations',
    sections: [
      { to: '/events', label: 'events', exact: false },
      { to: '/sync', label: 'sync', exact: false },
    ],
  },
  {
    title: 'administration',
    sections: [
      { to: '/administrators', label: 'administrators', exact: false, adminsOnly: true },
      { to: '/audit', label: 'audit', exact: false, adminsOnly: true },
      { to: '/settings', label: 'settings', exact: false },
    ],
  },
];

const sectionPaths = groups.flatMap((group) => group.sections.map((section) => section.to));

/** The signed-in frame: who is signed in, sign-out, and the navigation between pages. */
export function Shell({ user, children }: { user: SessionUser; children: ReactNode }) {
  const t = useT();
  const { signOut, chooseLanguage } = useSession();
  const roleLabel = t(`roles.${user.role}`);
  const path = useLocation({ select: (location) => location.pathname });
  const [signingOut, setSigningOut] = useState(false);
  const [opened, { toggle, close }] = useDisclosure(false);
  const [changing, setChanging] = useState(false);
  const passwordDiscard = useDiscardGuard(() => setChanging(false));
  const [twoFactor, setTwoFactor] = useState(false);
  const [twoFactorHeld, setTwoFactorHeld] = useState(false);
  const closeTwoFactor = () => {
    setTwoFactor(false);
    setTwoFactorHeld(false);
  };
  // A notice ("Your password was changed.") is said on the page where it happened: moving to
  // another page leaves it behind.
  // Kept as what it says: worded when shown, so a switch of language words it again.
  const [noticeAt, setNoticeAt] = useState<{ said: Said; path: string } | null>(null);
  const notice = noticeAt !== null && noticeAt.path === path ? say(noticeAt.said) : null;
  const setNotice = (said: Said | null) => setNoticeAt(said === null ? null : { said, path });
  // Below the navigation's breakpoint the header has room for the menu button, the name, the
  // language and Account only: a superadmin's organization switcher moves to the top of the
  // navigation (opened by the menu button), rather than pushing Account off a phone's screen.
  // By CSS, as the navigation itself collapses, so the two never disagree; the one not shown is
  // display: none, out of the accessibility tree.
  const switcher = user.role === 'superadmin' && (
    <OrganizationSwitcher user={user} sections={sectionPaths} />
  );

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
              aria-label={t('shell.navigation')}
            />
            <Text fw={700} size="lg">
              {SERVICE_NAME}
              <Text span inherit visibleFrom="xs">
                {t('shell.management')}
              </Text>
            </Text>
          </Group>
          <Group gap="sm" wrap="nowrap" data-testid="current-user">
            {switcher !== false && <Box visibleFrom="sm">{switcher}</Box>}
            <Text size="sm" truncate visibleFrom="xs">
              <Trans
                i18n={engineInstance()}
                i18nKey="shell.signedInAs"
                values={{ username: user.username }}
                components={{ name: <Text span fw={600} data-testid="current-username" /> }}
              />
              {user.displayName !== '' && user.displayName !== user.username && (
                <Text span c="dimmed">
                  {t('shell.displayName', { displayName: displayName(user.displayName) })}
                </Text>
              )}
            </Text>
            <Badge variant="light" data-testid="current-role" title={roleLabel} visibleFrom="sm">
              {roleLabel}
            </Badge>
            <LanguageSwitch choose={chooseLanguage} />
            <Menu position="bottom-end">
              <Menu.Target>
                <Button variant="default" size="xs" loading={signingOut}>
                  {t('shell.account')}
                </Button>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Label>
                  {t('shell.accountLabel', { username: user.username, role: roleLabel })}
                </Menu.Label>
                <Menu.Item onClick={() => setChanging(true)}>{t('shell.changePassword')}</Menu.Item>
                <Menu.Item onClick={() => setTwoFactor(true)}>{t('shell.twoFactor')}</Menu.Item>
                <Menu.Item
                  onClick={() => {
                    setSigningOut(true);
                    void signOut();
                  }}
                >
                  {t('shell.signOut')}
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label={t('shell.main')}>
        {switcher !== false && (
          <Box hiddenFrom="sm" px="sm" pb="sm">
            {switcher}
          </Box>
        )}
        <Stack gap={2} component="nav" aria-label={t('shell.sections')}>
          {groups.map((group) => (
            <Stack gap={2} key={group.title ?? 'home'} mt={group.title === null ? 0 : 'sm'}>
              {group.title !== null && (
                <Text component="h2" size="xs" fw={700} c="dimmed" px="sm" m={0}>
                  {t(`nav.${group.title}`)}
                </Text>
              )}
              {group.sections
                .filter((section) => !section.adminsOnly || user.role !== 'operator')
                .map((section) => {
                  const active = section.exact
                    ? path === section.to
                    : path === section.to || path.startsWith(`${section.to}/`);
                  return (
                    <NavLinkTo
                      key={section.to}
                      to={section.to}
                      label={t(`nav.${section.label}`)}
                      active={active}
                      aria-current={active ? 'page' : undefined}
                      onClick={close}
                    />
                  );
                })}
            </Stack>
          ))}
        </Stack>
      </AppShell.Navbar>
      <Modal
        opened={changing}
        onClose={passwordDiscard.requestClose}
        title={t('shell.changeYourPassword')}
      >
        <Suspense fallback={null}>
          <OwnPasswordForm
            onDone={(message) => {
              setChanging(false);
              setNotice(message);
            }}
            onDirty={passwordDiscard.setDirty}
          />
        </Suspense>
      </Modal>
      {passwordDiscard.question}
      <Modal
        opened={twoFactor}
        onClose={closeTwoFactor}
        title={t('shell.twoFactor')}
        // Once the app holds the secret, or the codes are shown once: only the form's buttons.
        closeOnEscape={!twoFactorHeld}
        closeOnClickOutside={!twoFactorHeld}
        withCloseButton={!twoFactorHeld}
      >
        <Suspense fallback={null}>
          <TwoFactorPanel
            onDone={(message) => {
              closeTwoFactor();
              setNotice(message);
            }}
            onHolding={setTwoFactorHeld}
            onCancel={closeTwoFactor}
          />
        </Suspense>
      </Modal>
      <AppShell.Main>
        {notice !== null && (
          <Alert
            color="green"
            role="status"
            withCloseButton
            closeButtonLabel={t('common.dismiss')}
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
