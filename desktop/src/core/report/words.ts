import { i18n, tIn, type Params } from '../i18n.js';
import type { Language } from '../language.js';
import { localTime } from '../texts.js';

/** What the console knows of the report's record at the central service. */
export interface ReportRecord {
  recorded: { sha256: string; at: string; by: string } | null;
  recordError: string | null;
}

/** The words of the handover report's HTML and PDF in one language (the JSON keeps codes). */
export function reportWords(lang: Language = 'en') {
  const t = (key: string, params?: Params) => tIn(lang, `report.${key}`, params);
  const list = (titles: readonly string[]) => titles.join(t('listSeparator'));
  // The zone goes at the end in every language ("2026/11/29 04:37:29 UTC"; zh-CN's own
  // pattern would put it between the date and the time).
  const when = (iso: string) => {
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return iso;
    const time = localTime(iso, lang);
    const zone = new Intl.DateTimeFormat(lang, { timeZoneName: 'short' })
      .formatToParts(d)
      .find((p) => p.type === 'timeZoneName')?.value;
    return zone ? `${time} ${zone}` : time;
  };
  return {
    lang,
    reportTitle: t('title'),
    /** What stands where a secret was cut out, as the print says it. */
    redacted: t('redacted'),
    fields: {
      site: t('fields.site'),
      release: t('fields.release'),
      host: t('fields.host'),
      centralUrl: t('fields.centralUrl'),
      date: t('fields.date'),
      technician: t('fields.technician'),
      result: t('fields.result'),
    },
    /** A layer's title by its stable id; a layer the catalog does not know keeps its own. */
    layerTitle: (id: string, title: string): string =>
      i18n.exists(`layers.${id}`, { lng: lang }) ? i18n.t(`layers.${id}`, { lng: lang }) : title,
    result: (passed: number, layers: number) => t('result', { passed, layers }),
    failedList: (titles: readonly string[]) => t('failedList', { titles: list(titles) }),
    pendingList: (titles: readonly string[]) => t('pendingList', { titles: list(titles) }),
    notRunList: (titles: readonly string[]) => t('notRunList', { titles: list(titles) }),
    warningCount: (count: number) => t('warningCount', { count }),
    partSeparator: t('partSeparator'),
    status: {
      passed: t('status.passed'),
      passedWithWarning: t('status.passedWithWarning'),
      failed: t('status.failed'),
      pending: t('status.pending'),
      notRun: t('status.notRun'),
    },
    mark: { ok: t('mark.ok'), warning: t('mark.warning'), failed: t('mark.failed') },
    columns: {
      layer: t('columns.layer'),
      check: t('columns.check'),
      evidence: t('columns.evidence'),
      result: t('columns.result'),
    },
    layerHeading: (title: string, status: string) => t('layerHeading', { title, status }),
    /** Above a layer's table where it goes on over a page break. */
    continued: (heading: string) => t('continued', { heading }),
    notRunNote: t('notRunNote'),
    confirmedByHand: (who: string, at: string, note: string) =>
      note ? t('confirmedByHandNote', { who, at, note }) : t('confirmedByHand', { who, at }),
    error: (message: string) => t('error', { message }),
    digestLine: (digest: string) => t('digestLine', { digest }),
    /**
     * The digest, and what is true of its record at the central service: recorded (under the
     * digest it computed, by whom, when), not recorded and why, or nothing said when unknown.
     */
    digestRecord: (digest: string, record: ReportRecord | null): string =>
      record === null
        ? t('digestLine', { digest })
        : record.recorded
          ? t('digestRecordedAs', {
              digest,
              id: record.recorded.sha256,
              by: record.recorded.by,
              at: when(record.recorded.at),
            })
          : t('digestNotRecorded', { digest, why: record.recordError ?? '' }),
    pageOf: (n: number, of: number) => t('pageOf', { n, of }),
    /** An instant as people read it here: local time with its zone ("2026/11/28 14:05:03 UTC"). */
    when,
    signatures: t('signatures'),
    verdict: {
      accepted: t('verdict.accepted'),
      acceptedWithWarnings: (count: number) => t('verdict.acceptedWithWarnings', { count }),
      notAccepted: t('verdict.notAccepted'),
    },
    verdictLine: (verdict: string, result: string) => t('verdictLine', { verdict, result }),
    /** What the signatures confirm: an acceptance (naming its warnings), or only that the checks ran. */
    signatureIntroAccepted: (warnings: number) =>
      warnings > 0
        ? t('signatureIntroAcceptedWarnings', { count: warnings })
        : t('signatureIntroAccepted'),
    signatureIntroNotAccepted: (reasons: string) => t('signatureIntroNotAccepted', { reasons }),
    signatureRoles: [t('signatureRoles.technician'), t('signatureRoles.siteManager')] as const,
    signatureFields: [
      t('signatureFields.name'),
      t('signatureFields.date'),
      t('signatureFields.signature'),
    ] as const,
  };
}
export type ReportWords = ReturnType<typeof reportWords>;
