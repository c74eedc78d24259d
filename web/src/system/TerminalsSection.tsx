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
import { useForm } from '@mantine/form';
import { centralUrl, terminalKey, type ConfigureResult } from '@svc/shared';
import { useState } from 'react';
import { z } from 'zod';
import { schemaResolver } from '../forms';
import { describeError } from '../messages';
import { formatTime } from '../people/format';
import { keys, useApiQuery } from '../query';
import { configureTerminals, listNodes, type HeardNode } from './api';

/** Terminals announce every 10 s; the list is asked for more often so a change shows soon. */
const REFRESH_MS = 2_000;

interface Pushed {
  /** The terminal's last check-in when the push was sent: a later one proves it reconnected. */
  before: string | null;
  result: ConfigureResult;
}

const pushSchema = z.object({ centralUrl, terminalKey: terminalKey.or(z.literal('')) });
type PushValues = z.infer<typeof pushSchema>;

/** Terminals heard, live; select some and push the central address, result per terminal. */
export function TerminalsSection({
  advertised,
  canEdit,
}: {
  advertised: string | null;
  canEdit: boolean;
}) {
  const nodes = useApiQuery(keys.discovery, (signal) => listNodes(signal), {
    refetchInterval: REFRESH_MS,
  });
  const [selected, setSelected] = useState<string[]>([]);
  const [pushed, setPushed] = useState<Record<string, Pushed>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useForm({
    mode: 'controlled',
    initialValues: { centralUrl: advertised ?? '', terminalKey: '' },
    validate: schemaResolver<PushValues>(pushSchema),
    validateInputOnChange: true,
  });
  const list = nodes.data ?? [];
  const hasConflicts = list.some((n) => n.conflict !== undefined);
  const toggle = (id: string, on: boolean) =>
    setSelected((current) => (on ? [...current, id] : current.filter((x) => x !== id)));

  const push = form.onSubmit(async (values) => {
    setBusy(true);
    setProblem(null);
    const before = new Map(list.map((n) => [n.id, n.lastCheckin]));
    try {
      const key = values.terminalKey.trim();
      const results = await configureTerminals({
        ids: selected,
        centralUrl: values.centralUrl,
        ...(key !== '' && { keys: Object.fromEntries(selected.map((id) => [id, key])) }),
      });
      // The key was for this push only: it is not kept in the page either.
      form.setFieldValue('terminalKey', '');
      setPushed((current) => {
        const next = { ...current };
        for (const result of results)
          next[result.id] = { before: before.get(result.id) ?? null, result };
        return next;
      });
    } catch (error) {
      setProblem(describeError(error, 'other'));
    } finally {
      setBusy(false);
    }
  });

  return (
    <Stack component="section" aria-labelledby="terminals-title">
      <Title order={2} id="terminals-title">
        Terminals heard
      </Title>
      {nodes.error !== null && <Alert color="red">{nodes.error}</Alert>}
      {nodes.data !== null && list.length === 0 && (
        <Text c="dimmed" data-testid="terminals-empty">
          No terminal heard yet. Terminals announce themselves on the LAN every 10 seconds once
          powered on; check they are on this network.
        </Text>
      )}
      {list.length > 0 && (
        <Table.ScrollContainer minWidth={900}>
          <Table aria-label="Terminals" striped>
            <Table.Thead>
              <Table.Tr>
                {canEdit && <Table.Th>Select</Table.Th>}
                <Table.Th>Kind</Table.Th>
                <Table.Th>ID</Table.Th>
                <Table.Th>Name</Table.Th>
                <Table.Th>Model / version</Table.Th>
                <Table.Th>Address</Table.Th>
                <Table.Th>Central it announces</Table.Th>
                <Table.Th>Last seen</Table.Th>
                <Table.Th>Last check-in</Table.Th>
                {hasConflicts && <Table.Th>Conflict</Table.Th>}
                <Table.Th>Push result</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((node) => (
                <TerminalRow
                  key={node.id}
                  node={node}
                  canEdit={canEdit}
                  selected={selected.includes(node.id)}
                  onSelect={(on) => toggle(node.id, on)}
                  pushed={pushed[node.id]}
                  showConflict={hasConflicts}
                />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {canEdit && list.length > 0 && (
        <form onSubmit={(e) => void push(e)} aria-label="Push central address" noValidate>
          <Group align="end">
            <TextInput
              label="Central address"
              description="What the selected terminals will call: http://host:port"
              w={340}
              {...form.getInputProps('centralUrl')}
            />
            <PasswordInput
              label="Terminal key"
              description="Only for terminals with a management key; used for this push only"
              w={300}
              autoComplete="off"
              {...form.getInputProps('terminalKey')}
              // Mantine marks the inner input data-invalid only; assistive technology needs this.
              aria-invalid={form.errors.terminalKey !== undefined}
            />
            <Button type="submit" loading={busy} disabled={selected.length === 0}>
              Push central address ({selected.length})
            </Button>
          </Group>
        </form>
      )}
      {problem !== null && (
        <Alert color="red" title="Not pushed" role="alert">
          {problem}
        </Alert>
      )}
    </Stack>
  );
}

function TerminalRow({
  node,
  canEdit,
  selected,
  onSelect,
  pushed,
  showConflict,
}: {
  node: HeardNode;
  canEdit: boolean;
  selected: boolean;
  onSelect: (on: boolean) => void;
  pushed: Pushed | undefined;
  showConflict: boolean;
}) {
  return (
    <Table.Tr data-testid="terminal-row" data-id={node.id}>
      {canEdit && (
        <Table.Td>
          <Checkbox
            aria-label={`Select ${node.id}`}
            checked={selected}
            onChange={(e) => onSelect(e.currentTarget.checked)}
          />
        </Table.Td>
      )}
      <Table.Td>{node.kind === 'enrollment' ? 'Enrollment' : 'Display'}</Table.Td>
      <Table.Td>{node.id}</Table.Td>
      <Table.Td>{node.name}</Table.Td>
      <Table.Td>
        {node.model} {node.version}
      </Table.Td>
      <Table.Td>
        {node.address}:{node.port}
      </Table.Td>
      <Table.Td data-testid="terminal-central">{node.central || '—'}</Table.Td>
      <Table.Td>{formatTime(node.lastSeen)}</Table.Td>
      <Table.Td data-testid="terminal-checkin">
        {node.lastCheckin === null ? 'Never' : formatTime(node.lastCheckin)}
      </Table.Td>
      {showConflict && (
        <Table.Td data-testid="terminal-conflict">
          {node.conflict
            ? `Also heard from ${node.conflict.address}:${node.conflict.port} (last ${formatTime(node.conflict.lastHeard)})`
            : '—'}
        </Table.Td>
      )}
      <Table.Td data-testid="terminal-push">
        {pushed !== undefined && <PushOutcome node={node} pushed={pushed} />}
      </Table.Td>
    </Table.Tr>
  );
}

/** Saved → read back (the terminal's own answer) → checked in (after the push), live. */
function PushOutcome({ node, pushed }: { node: HeardNode; pushed: Pushed }) {
  if (!pushed.result.ok) {
    return (
      <Text size="sm" c="red.9">
        Failed: {pushed.result.error}
      </Text>
    );
  }
  const checkedIn = node.lastCheckin !== null && node.lastCheckin !== pushed.before;
  return (
    <Group gap={4}>
      <Badge color="green" variant="light">
        Saved
      </Badge>
      <Badge color="green" variant="light" title={pushed.result.saved.centralUrl}>
        Read back {pushed.result.saved.centralUrl}
      </Badge>
      <Badge color={checkedIn ? 'green' : 'yellow'} variant="light">
        {checkedIn ? 'Checked in' : 'Waiting for check-in'}
      </Badge>
    </Group>
  );
}
