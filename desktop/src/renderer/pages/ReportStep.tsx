import { Alert, Button, Group, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { AcceptanceState } from '../../core/api.js';
import { language as consoleLanguage, list } from '../../core/i18n.js';
import { LANGUAGES, LANGUAGE_NAMES, pickLanguage, type Language } from '../../core/language.js';
import { layerTitle, localTime } from '../../core/texts.js';
import { consoleApi } from '../api/console-api.js';
import { useT } from '../i18n.js';
import { STATUS_COLOR } from './colors.js';
import { download } from './download.js';

type Report = NonNullable<AcceptanceState['report']>;

/** The layers a report names by id (by title in a report made before ids were kept). */
const named = (ids: string[] | undefined, titles: string[]) =>
  ids ? ids.map((id) => layerTitle(id)) : titles;

function ReportResult({ report }: { report: Report }) {
  const t = useT();
  const s = report.summary;
  const failed = named(s.failedIds, s.failedTitles);
  const notRun = named(s.notRunIds, s.notRun);
  const waitingCount = s.layers - s.passed - s.failed - s.notRun.length;
  const waiting = s.pendingIds?.map((id) => layerTitle(id)) ?? [];
  const accepted = s.passed === s.layers;
  const values = {
    verdict: !accepted
      ? t('report.verdict.notAccepted')
      : s.warnings > 0
        ? t('report.verdict.acceptedWithWarnings', { count: s.warnings })
        : t('report.verdict.accepted'),
    passed: s.passed,
    layers: s.layers,
  };
  return (
    <Stack gap="xs" aria-label={t('reportStep.result')}>
      {report.outdated === null ? (
        <Text
          fw={700}
          c={!accepted ? STATUS_COLOR.bad : s.warnings > 0 ? STATUS_COLOR.warn : STATUS_COLOR.ok}
        >
          {t('reportStep.verdict', values)}
        </Text>
      ) : (
        // The old verdict is history, not the site's state: grey, and said as past.
        <Text c={STATUS_COLOR.neutral}>
          {report.outdatedAt
            ? t('reportStep.verdictOutdatedSince', {
                ...values,
                made: localTime(report.createdAt),
                since: localTime(report.outdatedAt),
              })
            : t('reportStep.verdictOutdated', { ...values, made: localTime(report.createdAt) })}
        </Text>
      )}
      {failed.length > 0 && (
        <Text c="red.9">{t('report.failedList', { titles: list(failed) })}</Text>
      )}
      {notRun.length > 0 && (
        <Text c={STATUS_COLOR.warn}>{t('report.notRunList', { titles: list(notRun) })}</Text>
      )}
      {waitingCount > 0 && (
        <Text>
          {waiting.length > 0
            ? t('report.pendingList', { titles: list(waiting) })
            : t('reportStep.waiting', { count: waitingCount })}
        </Text>
      )}
      {s.warnings > 0 && (
        <Text c={STATUS_COLOR.warn}>{t('report.warningCount', { count: s.warnings })}</Text>
      )}
    </Stack>
  );
}

const LANGUAGE_KEY = 'svc-console.report-language';

/** The report's language: the technician's last choice for it, else the console's. */
function useReportLanguage(): [Language, (l: Language) => void] {
  const [chosen, setChosen] = useState<Language | null>(() => {
    const kept = localStorage.getItem(LANGUAGE_KEY);
    return kept ? pickLanguage(kept) : null;
  });
  return [
    chosen ?? consoleLanguage(),
    (l) => {
      localStorage.setItem(LANGUAGE_KEY, l);
      setChosen(l);
    },
  ];
}

/**
 * Who signs and where: what was typed last (kept across a reload), else the last report's, so
 * a second Finish after a fix does not start from empty fields. Neither is a secret.
 */
function useKeptText(key: string, fromReport: string | undefined): [string, (v: string) => void] {
  const [typed, setTyped] = useState<string | null>(() => localStorage.getItem(key));
  return [
    typed ?? fromReport ?? '',
    (v) => {
      localStorage.setItem(key, v);
      setTyped(v);
    },
  ];
}

export function ReportStep({
  state,
  onDone,
}: {
  state: AcceptanceState | undefined;
  onDone: (s: AcceptanceState) => void;
}) {
  const t = useT();
  const [technician, setTechnician] = useKeptText(
    'svc-console.report-technician',
    state?.report?.technician,
  );
  const [site, setSite] = useKeptText('svc-console.report-site', state?.report?.site);
  const [asking, setAsking] = useState(false);
  const notRun = (state?.layers ?? [])
    .filter((l) => l.ranAt === null)
    .map((l) => layerTitle(l.id, l.title));
  const finish = useMutation({
    mutationFn: (withLayersNotRun: boolean) =>
      consoleApi.finishAcceptance(technician, site, withLayersNotRun),
    onSuccess: (data) => {
      setAsking(false);
      onDone(data);
    },
  });
  const [language, setLanguage] = useReportLanguage();
  const save = useMutation({
    mutationFn: async (format: 'html' | 'json' | 'pdf') => {
      const f = await consoleApi.getReport(format, language);
      await download(f.filename, f.mime, { base64: f.base64 });
    },
  });
  const record = useMutation({
    mutationFn: () => consoleApi.recordReport(),
    onSuccess: onDone,
  });
  const report = state?.report;
  return (
    <section aria-label={t('reportStep.title')}>
      <Stack>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            // Layers never run: ask before a report that leaves them out.
            if (notRun.length > 0) setAsking(true);
            else finish.mutate(false);
          }}
        >
          <Group align="end">
            <TextInput
              label={t('reportStep.technician')}
              value={technician}
              onChange={(e) => setTechnician(e.currentTarget.value)}
              required
            />
            <TextInput
              label={t('reportStep.site')}
              value={site}
              onChange={(e) => setSite(e.currentTarget.value)}
              required
            />
            <Button type="submit" loading={finish.isPending && !asking}>
              {t('reportStep.finish')}
            </Button>
          </Group>
        </form>
        {asking && (
          <Alert color="yellow" role="alertdialog" aria-label={t('reportStep.finishAnyway')}>
            <Stack gap="xs">
              <Text size="sm">
                {t('reportStep.askNotRun', { count: notRun.length, titles: list(notRun) })}
              </Text>
              <Group>
                <Button
                  color="yellow"
                  onClick={() => finish.mutate(true)}
                  loading={finish.isPending}
                >
                  {t('reportStep.finishAnyway')}
                </Button>
                <Button variant="default" onClick={() => setAsking(false)}>
                  {t('reportStep.cancel')}
                </Button>
              </Group>
            </Stack>
          </Alert>
        )}
        {finish.error && <Alert color="red">{finish.error.message}</Alert>}
        {report && (
          <>
            <ReportResult report={report} />
            {report.outdated !== null && (
              <Alert color="yellow" title={t('reportStep.outdatedTitle')}>
                {t('reportStep.outdatedText', { why: report.outdated })}
              </Alert>
            )}
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {t('reportStep.digest')} <code>{report.sha256}</code>
            </Text>
            {report.recorded ? (
              <Alert color="green">
                <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                  {t('reportStep.recordedAs')} <code>{report.recorded.sha256}</code>{' '}
                  {t('reportStep.recordedBy', {
                    by: report.recorded.by,
                    at: localTime(report.recorded.at),
                  })}
                </Text>
              </Alert>
            ) : (
              <Alert color="red">
                <Stack gap="xs" align="flex-start">
                  <Text size="sm">
                    {t('reportStep.notRecorded', { why: report.recordError ?? '' })}
                  </Text>
                  {report.outdated === null && (
                    <Button size="xs" onClick={() => record.mutate()} loading={record.isPending}>
                      {t('reportStep.record')}
                    </Button>
                  )}
                  {record.error && <Text size="sm">{record.error.message}</Text>}
                </Stack>
              </Alert>
            )}
            <SegmentedControl
              aria-label={t('reportStep.language')}
              w="fit-content"
              value={language}
              onChange={(v) => setLanguage(pickLanguage(v))}
              data={LANGUAGES.map((l) => ({ value: l, label: LANGUAGE_NAMES[l] }))}
            />
            <Group>
              {(['html', 'json', 'pdf'] as const).map((format) => (
                <Button
                  key={format}
                  onClick={() => save.mutate(format)}
                  disabled={report.outdated !== null}
                >
                  {t(`reportStep.download.${format}`)}
                </Button>
              ))}
            </Group>
            {save.error && <Alert color="red">{save.error.message}</Alert>}
          </>
        )}
      </Stack>
    </section>
  );
}
