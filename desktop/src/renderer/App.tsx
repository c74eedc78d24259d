import {
  AppShell,
  Flex,
  Group,
  SegmentedControl,
  Tabs,
  Title,
  useMantineTheme,
} from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { consoleApi } from './api/console-api.js';
import { CentralPanel } from './pages/CentralPanel.js';
import { TerminalsPage } from './pages/TerminalsPage.js';
import { DiagnosticsPage } from './pages/DiagnosticsPage.js';
import { AcceptancePage } from './pages/AcceptancePage.js';
import { CentralHeartbeat } from './pages/CentralHeartbeat.js';
import { LANGUAGES, LANGUAGE_NAMES, pickLanguage } from '../core/language.js';
import { language } from '../core/i18n.js';
import { showLanguage, useT } from './i18n.js';

/** The technician's language, switched at once and kept with the console's settings. */
function LanguageSwitch() {
  const t = useT();
  const queryClient = useQueryClient();
  return (
    <SegmentedControl
      size="xs"
      aria-label={t('app.language')}
      value={language()}
      onChange={(value) =>
        void showLanguage(pickLanguage(value), true).then(() =>
          // What the core said (findings, evidence, the header) is asked again in this language.
          queryClient.invalidateQueries(),
        )
      }
      data={LANGUAGES.map((l) => ({ value: l, label: LANGUAGE_NAMES[l] }))}
    />
  );
}

export function App() {
  const t = useT();
  const queryClient = useQueryClient();
  const theme = useMantineTheme();
  const tabs = useRef<HTMLDivElement>(null);
  // On a phone the central service's card fills the first screen: a chosen tab is brought up
  // under the header, so what the tab holds (a layer's Run button) is in view, not below.
  const showTab = () => {
    if (!window.matchMedia(`(max-width: ${theme.breakpoints.md})`).matches) return;
    requestAnimationFrame(() => tabs.current?.scrollIntoView({ block: 'start' }));
  };
  // Terminal changes arrive as events; they refresh the list query.
  useEffect(
    () =>
      consoleApi.onTerminalsChanged((terminals) => {
        queryClient.setQueryData(['terminals'], terminals);
      }),
    [queryClient],
  );
  return (
    // On a phone the live status sits under the title, with room for its whole reason.
    <AppShell header={{ height: { base: 112, sm: 72 } }} padding="md">
      <AppShell.Header>
        <Flex
          h="100%"
          px="md"
          py={6}
          direction={{ base: 'column', sm: 'row' }}
          justify={{ base: 'center', sm: 'space-between' }}
          align={{ base: 'stretch', sm: 'center' }}
          gap={{ base: 4, sm: 'md' }}
        >
          <Group justify="space-between" wrap="nowrap" style={{ flexShrink: 0 }} gap="md">
            <Title order={1} size="h3">
              {t('app.title')}
            </Title>
            <LanguageSwitch />
          </Group>
          <CentralHeartbeat />
        </Flex>
      </AppShell.Header>
      <AppShell.Main>
        <CentralPanel />
        <Tabs defaultValue="terminals" mt="md" onChange={showTab}>
          <Tabs.List
            ref={tabs}
            style={{ scrollMarginTop: 'calc(var(--app-shell-header-height, 0px) + 8px)' }}
          >
            <Tabs.Tab value="terminals">{t('app.tabs.terminals')}</Tabs.Tab>
            <Tabs.Tab value="diagnostics">{t('app.tabs.diagnostics')}</Tabs.Tab>
            <Tabs.Tab value="acceptance">{t('app.tabs.acceptance')}</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="terminals" pt="md">
            <TerminalsPage />
          </Tabs.Panel>
          <Tabs.Panel value="diagnostics" pt="md">
            <DiagnosticsPage />
          </Tabs.Panel>
          <Tabs.Panel value="acceptance" pt="md">
            <AcceptancePage />
          </Tabs.Panel>
        </Tabs>
      </AppShell.Main>
    </AppShell>
  );
}
