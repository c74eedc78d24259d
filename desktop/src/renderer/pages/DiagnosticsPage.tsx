import { Alert, Button, Group, List, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { consoleApi } from '../api/console-api.js';

/** "Why don't I see my terminal?" — findings from facts measured on this laptop. */
export function DiagnosticsPage() {
  const [expected, setExpected] = useState('');
  const run = useMutation({ mutationFn: () => consoleApi.diagnose(expected.trim() || null) });
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
            label="Terminal address (optional, from its label)"
            placeholder="192.168.1.50"
            value={expected}
            onChange={(e) => setExpected(e.currentTarget.value)}
          />
          <Button type="submit" loading={run.isPending}>
            Run diagnostics
          </Button>
        </Group>
      </form>
      {run.error && <Alert color="red">{run.error.message}</Alert>}
      {r && (
        <section aria-label="Findings">
          <Text>
            UDP {r.port}: {r.listening ? 'listening' : 'not listening'} · measured {r.at}
          </Text>
          {r.findings.length === 0 && <Alert color="green">Nothing looks wrong.</Alert>}
          {r.findings.map((f) => (
            <Alert
              key={f.code + f.title}
              color={f.severity === 'problem' ? 'red' : 'yellow'}
              title={f.title}
              mt="sm"
            >
              <List size="sm">
                {f.facts.map((x) => (
                  <List.Item key={x}>{x}</List.Item>
                ))}
              </List>
              <Text size="sm" fw={600} mt="xs">
                What to do
              </Text>
              <List size="sm">
                {f.advice.map((x) => (
                  <List.Item key={x}>{x}</List.Item>
                ))}
              </List>
            </Alert>
          ))}
          <Title order={2} size="h4" mt="md">
            Interfaces of this laptop
          </Title>
          <Table aria-label="Interfaces">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Address</Table.Th>
                <Table.Th>Mask</Table.Th>
                <Table.Th>Subnet</Table.Th>
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
        </section>
      )}
    </Stack>
  );
}
