import { STATUS_COLOR } from './colors.js';
import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Group,
  PasswordInput,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import type { PushRequestInput, PushResult } from '../../core/api.js';
import { pushRequest } from '../../core/ipc.js';
import { consoleApi } from '../api/console-api.js';
import { download } from './download.js';

const mark = (ok: boolean, label: string) => (
  <Badge color={ok ? STATUS_COLOR.ok : STATUS_COLOR.bad}>{ok ? label : `not ${label}`}</Badge>
);

export function TerminalsPage() {
  const terminals = useQuery({
    queryKey: ['terminals'],
    queryFn: () => consoleApi.listTerminals(),
  });
  const central = useQuery({ queryKey: ['central'], queryFn: () => consoleApi.getCentral() });
  const [filter, setFilter] = useState('');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [centralUrl, setCentralUrl] = useState('');
  const [panelUrl, setPanelUrl] = useState('');
  const [key, setKey] = useState('');
  const probe = useMutation({ mutationFn: () => consoleApi.probe() });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const push = useMutation({
    mutationFn: (request: PushRequestInput) => consoleApi.push(request),
    onSuccess: () => setKey(''),
  });
  // Checked with the schema the core checks with (the shared centralUrl rule), field by field.
  const submitPush = () => {
    const parsed = pushRequest.safeParse({
      ids: [...selected],
      centralUrl: centralUrl || central.data?.url || '',
      ...(panelUrl && { panelUrl }),
      ...(key && { key }),
    });
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message])));
      return;
    }
    setErrors({});
    push.mutate(parsed.data);
  };
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return (terminals.data ?? []).filter(
      (t) =>
        !f ||
        [t.id, t.kind, t.name, t.model, t.address, t.heardOn].some((v) =>
          v?.toLowerCase().includes(f),
        ),
    );
  }, [terminals.data, filter]);
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return (
    <Stack>
      <Group>
        <Button onClick={() => probe.mutate()} loading={probe.isPending}>
          Probe now
        </Button>
        <TextInput
          aria-label="Filter terminals"
          placeholder="Filter"
          value={filter}
          onChange={(e) => setFilter(e.currentTarget.value)}
        />
        <Button
          variant="default"
          onClick={() =>
            void consoleApi
              .terminalsCsv()
              .then((text) => download('terminals.csv', 'text/csv', { text }))
          }
        >
          Export CSV
        </Button>
        {probe.data && (
          <Text size="sm">
            {probe.data.error ?? `probe sent to ${probe.data.outcomes.length} address(es)`}
          </Text>
        )}
      </Group>
      <Table.ScrollContainer minWidth={900}>
        <Table aria-label="Terminals" striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Select</Table.Th>
              {[
                'Kind',
                'ID',
                'Name',
                'Model',
                'Version',
                'Address',
                'Port',
                'Heard on',
                'Central announced',
                'Last seen',
                'Online',
              ].map((h) => (
                <Table.Th key={h}>{h}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((t) => (
              <Table.Tr key={t.id}>
                <Table.Td>
                  <Checkbox
                    aria-label={`Select ${t.id}`}
                    checked={selected.has(t.id)}
                    onChange={() => toggle(t.id)}
                  />
                </Table.Td>
                <Table.Td>{t.kind}</Table.Td>
                <Table.Td>{t.id}</Table.Td>
                <Table.Td>{t.name ?? ''}</Table.Td>
                <Table.Td>{t.model ?? ''}</Table.Td>
                <Table.Td>{t.version ?? ''}</Table.Td>
                <Table.Td>{t.address}</Table.Td>
                <Table.Td>{t.port}</Table.Td>
                <Table.Td>{t.heardOn ?? 'no local subnet'}</Table.Td>
                <Table.Td>{t.central === null ? '' : t.central || '(none)'}</Table.Td>
                <Table.Td>{t.lastSeen}</Table.Td>
                <Table.Td>{t.online ? 'online' : 'offline'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {shown.length === 0 && <Text>No terminal heard yet. See Diagnostics if one is missing.</Text>}
      <Title order={2} size="h4">
        Push the central address
      </Title>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submitPush();
        }}
      >
        <Group align="end">
          <TextInput
            label="Central address to push"
            placeholder={central.data?.url ?? 'http://192.168.1.10'}
            value={centralUrl}
            onChange={(e) => setCentralUrl(e.currentTarget.value)}
            error={errors.centralUrl}
          />
          <TextInput
            label="Panel address (displays)"
            value={panelUrl}
            onChange={(e) => setPanelUrl(e.currentTarget.value)}
            error={errors.panelUrl}
          />
          <PasswordInput
            label="Terminal key (if set)"
            value={key}
            onChange={(e) => setKey(e.currentTarget.value)}
          />
          <Button type="submit" disabled={selected.size === 0} loading={push.isPending}>
            Push to {selected.size} selected
          </Button>
        </Group>
      </form>
      {push.error && <Alert color="red">{push.error.message}</Alert>}
      {push.data && <PushResults results={push.data} />}
    </Stack>
  );
}

function PushResults({ results }: { results: PushResult[] }) {
  return (
    <Table aria-label="Push results">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Terminal</Table.Th>
          <Table.Th>Saved</Table.Th>
          <Table.Th>Read back</Table.Th>
          <Table.Th>Checked in</Table.Th>
          <Table.Th>Details</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {results.map((r) => (
          <Table.Tr key={r.id}>
            <Table.Td>{r.id}</Table.Td>
            <Table.Td>{mark(r.saved.ok, 'saved')}</Table.Td>
            <Table.Td>{mark(r.readBack.ok, 'read back')}</Table.Td>
            <Table.Td>{mark(r.checkedIn.ok, 'checked in')}</Table.Td>
            <Table.Td>
              {[r.saved, r.readBack, r.checkedIn].map((s) => s.detail).join(' · ')}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
