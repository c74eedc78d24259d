import { Alert, Button, Group, List, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { consoleApi } from '../api/console-api.js';
import { localTime } from '../../core/texts.js';
import { useT } from '../i18n.js';

/** "Why don't I see my terminal?" — findings from facts measured on this laptop. */
export function DiagnosticsPage() {
  const t = useT();
  const qc = useQueryClient();
  const [expected, setExpected] = useState('');
  const run = useMutation({ mutationFn: () => consoleApi.diagnose(expected.trim() || null) });
  // Opens the discovery port again, then measures again: the finding goes once the port is ours.
  const listen = useMutation({
    mutationFn: () => consoleApi.listenAgain(),
    onSuccess: (status) => {
      qc.setQueryData(['status'], status);
      run.mutate();
    },
  });
  // The findings' facts hold what a terminal just did: probing asks them all to announce now.
  const probe = useMutation({
    mutationFn: () => consoleApi.probe(),
    onSuccess: () => run.mutate(),
  });
  const r = run.data;
  return (
    <Stack>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          run.mutate();
        }}
      >
        <Group align="end">
          <TextInput
            label={t('diagnostics.page.address')}
            placeholder="192.168.1.50"
            value={expected}
            onChange={(e) => setExpected(e.currentTarget.value)}
          />
          <Button type="submit" loading={run.isPending}>
            {t('diagnostics.page.run')}
          </Button>
          <Button variant="default" onClick={() => probe.mutate()} loading={probe.isPending}>
            {t('terminals.probe.button')}
          </Button>
        </Group>
      </form>
      {run.error && <Alert color="red">{run.error.message}</Alert>}
      {r && (
        <section aria-label={t('diagnostics.page.findings')}>
          <Group>
            <Text>
              {t(r.listening ? 'diagnostics.page.listening' : 'diagnostics.page.notListening', {
                port: r.port,
                at: localTime(r.at),
              })}
            </Text>
            {!r.listening && (
              <Button onClick={() => listen.mutate()} loading={listen.isPending}>
                {t('terminals.listenAgain')}
              </Button>
            )}
          </Group>
          {r.findings.length === 0 && <Alert color="green">{t('diagnostics.page.nothing')}</Alert>}
          {r.findings.map((f) => (
            <Alert
              key={f.code + f.title}
              color={f.severity === 'problem' ? 'red' : 'yellow'}
              title={f.title}
              mt="sm"
              // A holder's command line or a path is one long word: it wraps, never is cut.
              styles={{ body: { minWidth: 0 }, root: { overflowWrap: 'anywhere' } }}
            >
              <List size="sm">
                {f.facts.map((x) => (
                  <List.Item key={x}>{x}</List.Item>
                ))}
              </List>
              <Text size="sm" fw={600} mt="xs">
                {t('diagnostics.page.whatToDo')}
              </Text>
              <List size="sm">
                {f.advice.map((x) => (
                  <List.Item key={x}>{x}</List.Item>
                ))}
              </List>
            </Alert>
          ))}
          <Title order={2} size="h4" mt="md">
            {t('diagnostics.page.interfaces')}
          </Title>
          <Table.ScrollContainer minWidth={360}>
            <Table aria-label={t('diagnostics.page.interfacesTable')}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('diagnostics.page.name')}</Table.Th>
                  <Table.Th>{t('diagnostics.page.ip')}</Table.Th>
                  <Table.Th>{t('diagnostics.page.mask')}</Table.Th>
                  <Table.Th>{t('diagnostics.page.subnet')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {r.interfaces.map((i) => (
                  <Table.Tr key={i.name + i.address}>
                    <Table.Td>{i.name}</Table.Td>
                    <Table.Td>{i.address}</Table.Td>
                    <Table.Td>{i.netmask}</Table.Td>
                    <Table.Td>{i.cidr}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </section>
      )}
    </Stack>
  );
}
