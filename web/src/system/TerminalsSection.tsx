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
import { ScrollHint } from '../components/ScrollHint';
import { wholeTextBadge } from '../components/badgeStyles';
import { useForm } from '@mantine/form';
import { centralUrl, terminalKey, type ConfigureResult, type KnownTerminal } from '@svc/shared';
import { useState } from 'react';
import { z } from 'zod';
import { schemaResolver } from '../forms';
import { useT } from '../i18n';
import { saidFailure } from '../said';
import { formatTime } from '../people/format';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { formatAgo } from '../i18n/format';
import { warningText } from '../i18n/warnings';
import { keys, queryClient, useApiQuery } from '../query';
import { useFormSubmit } from '../useFormSubmit';
import { configureTerminals, listKnownTerminals, removeTerminal } from './api';

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
  const t = useT();
  // Online and offline alike: a terminal that went silent stays, with when it was last heard,
  // until an administrator removes it.
  const nodes = useApiQuery([...keys.discovery, 'known'], (signal) => listKnownTerminals(signal), {
    refetchInterval: REFRESH_MS,
  });
  const [removing, setRemoving] = useState<string | null>(null);
  const [selected, setSelected] = useState<string[]>([]);
  const [pushed, setPushed] = useState<Record<string, Pushed>>({});
  const form = useForm({
    mode: 'controlled',
    initialValues: { centralUrl: advertised ?? '', terminalKey: '' },
    validate: schemaResolver<PushValues>(pushSchema),
    validateInputOnChange: true,
  });
  const list = nodes.data?.items ?? [];
  const hasConflicts = list.some((n) => n.conflict !== undefined);
  const toggle = (id: string, on: boolean) =>
    setSelected((current) => (on ? [...current, id] : current.filter((x) => x !== id)));

  const submit = useFormSubmit(form);
  const push = submit.handler(async (values) => {
    const before = new Map(list.map((n) => [n.id, n.lastCheckin]));
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
    return null;
  });

  return (
    <Stack component="section" aria-labelledby="terminals-title">
      <Title order={2} id="terminals-title">
        {t('dashboard.terminalsHeard')}
      </Title>
      {nodes.error !== null && <Alert color="red">{nodes.error}</Alert>}
      {nodes.data !== null && list.length === 0 && (
        <Text c="dimmed" data-testid="terminals-empty">
          {t('system.noTerminals')}
        </Text>
      )}
      {list.length > 0 && (
        <>
          <ScrollHint />
          <Table.ScrollContainer minWidth={900}>
            <Table aria-label={t('system.terminals')} striped>
              <Table.Thead>
                <Table.Tr>
                  {canEdit && <Table.Th>{t('system.col.select')}</Table.Th>}
                  <Table.Th>{t('system.col.kind')}</Table.Th>
                  <Table.Th>{t('system.col.id')}</Table.Th>
                  <Table.Th>{t('system.col.name')}</Table.Th>
                  <Table.Th>{t('system.col.model')}</Table.Th>
                  <Table.Th>{t('system.col.address')}</Table.Th>
                  <Table.Th>{t('system.col.central')}</Table.Th>
                  <Table.Th>{t('system.col.lastSeen')}</Table.Th>
                  <Table.Th>{t('system.col.lastCheckin')}</Table.Th>
                  {hasConflicts && <Table.Th>{t('system.col.conflict')}</Table.Th>}
                  <Table.Th>{t('system.col.push')}</Table.Th>
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
                    onRemove={() => setRemoving(node.id)}
                    pushed={pushed[node.id]}
                    showConflict={hasConflicts}
                  />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {nodes.data !== null && nodes.data.offlineNotListed > 0 && (
            <Text size="sm" c="dimmed">
              {t('terminals.notListed', { count: nodes.data.offlineNotListed })}
            </Text>
          )}
        </>
      )}
      <ConfirmDialog
        opened={removing !== null}
        title={t('terminals.removeTitle', { id: removing ?? '' })}
        confirmLabel={t('terminals.removeConfirm')}
        onCancel={() => setRemoving(null)}
        onConfirm={async () => {
          submit.clear();
          try {
            await removeTerminal(removing ?? '');
            setSelected((current) => current.filter((x) => x !== removing));
            await queryClient.invalidateQueries({ queryKey: keys.discovery });
          } catch (error) {
            submit.show({ ok: false, text: saidFailure(error) });
          } finally {
            setRemoving(null);
          }
        }}
      >
        {t('terminals.removeConsequence')}
      </ConfirmDialog>
      {canEdit && list.length > 0 && (
        <form onSubmit={push} aria-label={t('system.pushForm')} noValidate>
          <Group align="end">
            <TextInput
              label={t('system.central')}
              description={t('system.centralHelp')}
              w={340}
              {...form.getInputProps('centralUrl')}
            />
            <PasswordInput
              visibilityToggleButtonProps={{ 'aria-label': t('common.showPassword') }}
              label={t('system.terminalKey')}
              description={t('system.terminalKeyHelp')}
              w={300}
              autoComplete="off"
              {...form.getInputProps('terminalKey')}
              // Mantine marks the inner input data-invalid only; assistive technology needs this.
              aria-invalid={form.errors.terminalKey !== undefined}
            />
            <Button type="submit" loading={submit.busy} disabled={selected.length === 0}>
              {t('system.push', { count: selected.length })}
            </Button>
          </Group>
        </form>
      )}
      {submit.message !== null && (
        <Alert color="red" title={t('system.notPushed')} role="alert">
          {submit.message.text}
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
  onRemove,
  pushed,
  showConflict,
}: {
  node: KnownTerminal;
  canEdit: boolean;
  selected: boolean;
  onSelect: (on: boolean) => void;
  onRemove: () => void;
  pushed: Pushed | undefined;
  showConflict: boolean;
}) {
  const t = useT();
  return (
    <Table.Tr data-testid="terminal-row" data-id={node.id} data-online={node.online}>
      {canEdit && (
        <Table.Td>
          {/* An offline terminal cannot take a push; it can be removed from the list. */}
          {node.online ? (
            <Checkbox
              aria-label={t('system.selectTerminal', { id: node.id })}
              checked={selected}
              onChange={(e) => onSelect(e.currentTarget.checked)}
            />
          ) : (
            <Button
              variant="subtle"
              color="red"
              size="compact-sm"
              aria-label={t('terminals.removeLabel', { id: node.id })}
              onClick={onRemove}
            >
              {t('terminals.remove')}
            </Button>
          )}
        </Table.Td>
      )}
      <Table.Td>
        {node.kind === 'enrollment' ? t('system.enrollment') : t('system.display')}
      </Table.Td>
      <Table.Td>{node.id}</Table.Td>
      <Table.Td>{node.name}</Table.Td>
      <Table.Td>
        {node.model} {node.version}
      </Table.Td>
      <Table.Td>
        {node.address}:{node.port}
      </Table.Td>
      <Table.Td data-testid="terminal-central">{node.central || '—'}</Table.Td>
      <Table.Td data-testid="terminal-seen">
        {formatTime(node.lastSeen)}
        {!node.online && (
          <Group gap={4} mt={2} wrap="wrap">
            <Badge color="gray" variant="light">
              {t('terminals.offline')}
            </Badge>
            <Text span size="sm">
              {t('terminals.lastHeard', { ago: formatAgo(node.silentS) })}
            </Text>
          </Group>
        )}
      </Table.Td>
      <Table.Td data-testid="terminal-checkin">
        {node.lastCheckin === null ? t('devices.never') : formatTime(node.lastCheckin)}
      </Table.Td>
      {showConflict && (
        <Table.Td data-testid="terminal-conflict">
          {node.conflict
            ? t('system.alsoHeard', {
                address: `${node.conflict.address}:${node.conflict.port}`,
                time: formatTime(node.conflict.lastHeard),
              })
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
function PushOutcome({ node, pushed }: { node: KnownTerminal; pushed: Pushed }) {
  const t = useT();
  if (!pushed.result.ok) {
    return (
      <Text size="sm" c="red.9">
        {t('system.pushFailed', {
          // Worded from its code (issue 34); the service's English from an older service.
          error:
            pushed.result.errorDetail !== undefined
              ? warningText(pushed.result.errorDetail)
              : pushed.result.error,
        })}
      </Text>
    );
  }
  const checkedIn = node.lastCheckin !== null && node.lastCheckin !== pushed.before;
  return (
    <Group gap={4} wrap="wrap">
      <Badge color="green" variant="light">
        {t('system.saved')}
      </Badge>
      <Badge
        color="green"
        variant="light"
        title={pushed.result.saved.centralUrl}
        styles={wholeTextBadge}
        data-testid="push-read-back"
      >
        {t('system.readBack', { url: pushed.result.saved.centralUrl })}
      </Badge>
      <Badge color={checkedIn ? 'green' : 'yellow'} variant="light">
        {checkedIn ? t('system.checkedIn') : t('system.waitingCheckin')}
      </Badge>
    </Group>
  );
}
