import { Alert, Button, Checkbox, Group, Stack, Table, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMediaQuery } from '@mantine/hooks';
import { Fragment, useMemo, useState } from 'react';
import type { ConsoleTerminal, PushResult } from '../../core/api.js';
import { consoleApi } from '../api/console-api.js';
import { TERMINAL_WORDS, changedSince, localTime } from '../../core/texts.js';
import { socketProblemWords } from '../../core/diagnostics/port-words.js';
import { useT } from '../i18n.js';
import { download } from './download.js';
import { PushPanel } from './PushPanel.js';
import { ProofBadge, ProofBadges } from './ProofBadge.js';

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/** The terminal announces a saved central address other than the one this console works with. */
function otherCentral(t: ConsoleTerminal, central: string | null): boolean {
  return !!central && !!t.central && !sameUrl(t.central, central);
}

/** Each terminal's latest push on this site. */
function latestPushes(pushes: PushResult[]): Map<string, PushResult> {
  const latest = new Map<string, PushResult>();
  for (const p of pushes) latest.set(p.id, p);
  return latest;
}

/** A push whose every proof holds, for a terminal that still announces what was proven. */
const holds = (t: ConsoleTerminal, p: PushResult | undefined): boolean =>
  !!p && p.ok && !changedSince(t, p);

/** The list's columns, what a technician looks for first on the left (a phone shows those). */
const COLUMNS = [
  'id',
  'kind',
  'online',
  'proof',
  'address',
  'port',
  'heardOn',
  'central',
  'name',
  'model',
  'version',
  'lastSeen',
] as const;

export function TerminalsPage() {
  const t = useT();
  // Below Mantine's md (where the table starts to scroll sideways) the Proof column would be cut.
  const narrow = useMediaQuery('(max-width: 61.99em)') ?? false;
  const columns = narrow ? COLUMNS.filter((c) => c !== 'proof') : COLUMNS;
  const qc = useQueryClient();
  const terminals = useQuery({
    queryKey: ['terminals'],
    queryFn: () => consoleApi.listTerminals(),
  });
  const central = useQuery({ queryKey: ['central'], queryFn: () => consoleApi.getCentral() });
  const pushes = useQuery({ queryKey: ['pushes'], queryFn: () => consoleApi.listPushes() });
  const status = useQuery({
    queryKey: ['status'],
    queryFn: () => consoleApi.getStatus(),
    refetchInterval: 5000,
  });
  const [filter, setFilter] = useState('');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const probe = useMutation({
    mutationFn: () => consoleApi.probe(),
    onSettled: () => void qc.invalidateQueries({ queryKey: ['status'] }),
  });
  const listen = useMutation({
    mutationFn: () => consoleApi.listenAgain(),
    onSuccess: (s) => qc.setQueryData(['status'], s),
  });
  const centralUrl = central.data?.url ?? null;
  const all = terminals.data ?? [];
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return all.filter(
      (term) =>
        !f ||
        [term.id, term.kind, term.name, term.model, term.address, term.heardOn].some((v) =>
          v?.toLowerCase().includes(f),
        ),
    );
  }, [all, filter]);
  const latest = latestPushes(pushes.data ?? []);
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const allShownSelected = shown.length > 0 && shown.every((term) => selected.has(term.id));
  const selectAll = () =>
    setSelected((s) => {
      const next = new Set(s);
      for (const term of shown) {
        if (allShownSelected) next.delete(term.id);
        else next.add(term.id);
      }
      return next;
    });
  const proven = all.filter((term) => holds(term, latest.get(term.id))).length;
  return (
    <Stack>
      {status.data && !status.data.listening && (
        <Alert
          color="red"
          title={t('terminals.notListening.title')}
          // The holder's command line is one long word: it wraps, never is cut on a phone.
          styles={{ body: { minWidth: 0 }, root: { overflowWrap: 'anywhere' } }}
        >
          <Stack gap="xs">
            <Text size="sm">
              {status.data.socketProblem
                ? socketProblemWords(status.data.socketProblem)
                : t('terminals.notListening.text')}
            </Text>
            <Group>
              <Button onClick={() => listen.mutate()} loading={listen.isPending}>
                {t('terminals.listenAgain')}
              </Button>
            </Group>
          </Stack>
        </Alert>
      )}
      <Group>
        <Button onClick={() => probe.mutate()} loading={probe.isPending}>
          {t('terminals.probe.button')}
        </Button>
        <TextInput
          aria-label={t('terminals.filterLabel')}
          placeholder={t('terminals.filter')}
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
          {t('terminals.exportCsv')}
        </Button>
        {probe.data && (
          <Text size="sm">
            {probe.data.error ?? t('terminals.probe.sent', { count: probe.data.outcomes.length })}
          </Text>
        )}
      </Group>
      {all.length > 0 && (
        <Text fw={600} aria-label={t('terminals.summaryLabel')}>
          {t('terminals.summary', { proven, total: all.length })}
        </Text>
      )}
      <Text size="xs" hiddenFrom="md">
        {t('terminals.scrolls')}
      </Text>
      <Table.ScrollContainer minWidth={1000}>
        <Table aria-label={t('terminals.table')} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>
                <Checkbox
                  aria-label={t('terminals.selectAll')}
                  checked={allShownSelected}
                  indeterminate={!allShownSelected && shown.some((term) => selected.has(term.id))}
                  onChange={selectAll}
                />
              </Table.Th>
              {columns.map((c) => (
                <Table.Th key={c}>{t(`terminals.columns.${c}`)}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((term) => (
              <Fragment key={term.id}>
                <TerminalRow
                  term={term}
                  selected={selected.has(term.id)}
                  onToggle={() => toggle(term.id)}
                  otherCentral={otherCentral(term, centralUrl)}
                  push={latest.get(term.id)}
                  proofColumn={!narrow}
                />
                {narrow && (
                  // On a phone the proof is a row of its own under its terminal, held in view
                  // while the table scrolls sideways, and wrapped to the screen's width.
                  <Table.Tr>
                    <Table.Td colSpan={columns.length + 1} pt={0}>
                      <div
                        style={{
                          position: 'sticky',
                          left: 0,
                          width: 'calc(100vw - 4rem)',
                          overflowWrap: 'anywhere',
                        }}
                      >
                        <ProofCell term={term} push={latest.get(term.id)} />
                      </div>
                    </Table.Td>
                  </Table.Tr>
                )}
              </Fragment>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {shown.length === 0 && <Text>{t('terminals.none')}</Text>}
      <PushPanel selected={[...selected]} centralUrl={centralUrl} />
    </Stack>
  );
}

function TerminalRow({
  term,
  selected,
  onToggle,
  otherCentral: other,
  push,
  proofColumn,
}: {
  term: ConsoleTerminal;
  selected: boolean;
  onToggle: () => void;
  otherCentral: boolean;
  push: PushResult | undefined;
  /** False on a phone: the proof gets a row of its own. */
  proofColumn: boolean;
}) {
  const t = useT();
  const flagged = other || term.conflict !== null;
  return (
    <Table.Tr
      data-flagged={flagged || undefined}
      style={flagged ? { background: 'var(--mantine-color-yellow-1)' } : undefined}
    >
      <Table.Td>
        <Checkbox
          aria-label={t('terminals.select', { id: term.id })}
          checked={selected}
          onChange={onToggle}
        />
      </Table.Td>
      <Table.Td>
        {term.id}
        {term.conflict && (
          <Text size="xs" c="red.9" fw={600}>
            {t('terminals.conflict', { address: term.conflict.address })}
          </Text>
        )}
      </Table.Td>
      <Table.Td>{t(`terminals.kind.${term.kind}`)}</Table.Td>
      <Table.Td>{term.online ? t('terminals.online') : t('terminals.offline')}</Table.Td>
      {proofColumn && (
        <Table.Td miw={220} maw={320} style={{ overflowWrap: 'anywhere' }}>
          <ProofCell term={term} push={push} />
        </Table.Td>
      )}
      <Table.Td>{term.address}</Table.Td>
      <Table.Td>{term.port}</Table.Td>
      <Table.Td>{term.heardOn ?? t('terminals.noSubnet')}</Table.Td>
      <Table.Td>
        {term.central === null ? '' : term.central || t('terminals.noCentral')}
        {other && term.central && (
          <Text size="xs" c="orange.9" fw={600}>
            {t('terminals.otherCentral', { url: term.central })}
          </Text>
        )}
      </Table.Td>
      <Table.Td>{term.name ?? ''}</Table.Td>
      <Table.Td>{term.model ?? ''}</Table.Td>
      <Table.Td>{term.version ?? ''}</Table.Td>
      <Table.Td>{localTime(term.lastSeen)}</Table.Td>
    </Table.Tr>
  );
}

/**
 * What the terminal's latest push proved: saved, read back, checked in, or the step that
 * failed and why; a proof the terminal no longer matches (it announces another address since)
 * is not shown as one.
 */
function ProofCell({ term, push }: { term: ConsoleTerminal; push: PushResult | undefined }) {
  const t = useT();
  if (!push) return <Text size="sm">{t('proof.notPushed')}</Text>;
  if (push.ok && changedSince(term, push)) {
    return (
      <Stack gap={2} aria-label={t('proof.of', { id: term.id })}>
        <ProofBadge ok={false} label={t('proof.proof')} failed={t('proof.changed')} />
        <Text size="xs" c="red.9">
          {TERMINAL_WORDS.changedSince(push.centralUrl, term.central ?? '')}
        </Text>
      </Stack>
    );
  }
  const failed = [push.saved, push.readBack, push.checkedIn].find((s) => !s.ok && !s.skipped);
  return (
    <Stack gap={2} aria-label={t('proof.of', { id: term.id })}>
      <ProofBadges push={push} />
      {push.via === 'direct' && (
        <Text size="xs" c="orange.9">
          {t('push.viaDirect')}
        </Text>
      )}
      {failed && (
        <Text size="xs" c="red.9">
          {failed.detail}
        </Text>
      )}
      {push.ok && push.checkedIn.at && (
        <Text size="xs">{t('proof.checkedInAt', { at: localTime(push.checkedIn.at) })}</Text>
      )}
    </Stack>
  );
}
