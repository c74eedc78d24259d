import { AppShell, Group, Tabs, Title } from '@mantine/core';
import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { consoleApi } from './api/console-api.js';
import { CentralPanel } from './pages/CentralPanel.js';
import { TerminalsPage } from './pages/TerminalsPage.js';
import { DiagnosticsPage } from './pages/DiagnosticsPage.js';
import { AcceptancePage } from './pages/AcceptancePage.js';

export function App() {
  const queryClient = useQueryClient();
  // Terminal changes arrive as events; they refresh the list query.
  useEffect(
    () =>
      consoleApi.onTerminalsChanged((terminals) => {
        queryClient.setQueryData(['terminals'], terminals);
      }),
    [queryClient],
  );
  return (
    <AppShell header={{ height: 56 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md">
          <Title order={1} size="h3">
            svc console
          </Title>
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <CentralPanel />
        <Tabs defaultValue="terminals" mt="md">
          <Tabs.List>
            <Tabs.Tab value="terminals">Terminals</Tabs.Tab>
            <Tabs.Tab value="diagnostics">Diagnostics</Tabs.Tab>
            <Tabs.Tab value="acceptance">Acceptance</Tabs.Tab>
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
