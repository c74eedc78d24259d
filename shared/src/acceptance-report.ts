import { z } from 'zod';
import { PASSWORD_MIN_LENGTH } from './constants.js';

/**
 * The handover report the console writes at the end of a site's acceptance, and the central
 * service keeps by its SHA-256 (`POST /api/acceptance/reports`). Both sides read it with this
 * schema; the central service also refuses one that still holds secret-shaped text.
 */

/**
 * Characters a report never holds: control characters, and the marks that change the direction
 * of the text around them (a right-to-left override would make a signed note read otherwise).
 */
export const REPORT_UNSAFE_CHARACTERS = /[\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]+/gu;

/** Text a report may hold: none of those (a note's line breaks become spaces first). */
const reportText = (max: number) =>
  z
    .string()
    .max(max)
    .refine(
      (text) => text.search(REPORT_UNSAFE_CHARACTERS) === -1,
      'must not contain control or text-direction characters',
    );

export const reportEvidence = z
  .object({
    label: reportText(200),
    value: reportText(2000),
    ok: z.boolean(),
    /** True for a fact that holds but deserves a look (e.g. a loopback central address). */
    warning: z.boolean().optional(),
    /**
     * The fact's result in one word: passed, warning (holds, but deserves a look) or failed.
     * `ok` and `warning` stay for readers of earlier reports; absent in reports made before.
     */
    status: z.enum(['passed', 'warning', 'failed']).optional(),
  })
  .strict()
  .refine(
    (e) =>
      e.status === undefined || e.status === (!e.ok ? 'failed' : e.warning ? 'warning' : 'passed'),
    { path: ['status'], message: 'does not match ok and warning' },
  );

export const reportLayerStatus = z.enum(['pending', 'passed', 'failed']);

export const reportLayer = z
  .object({
    id: z.string().regex(/^[a-z]{1,32}$/),
    title: reportText(200),
    status: reportLayerStatus,
    /** False for a layer whose check was never run before Finish. */
    ran: z.boolean(),
    manualPrompt: reportText(500).nullable(),
    ranAt: z.iso.datetime().nullable(),
    error: reportText(2000).nullable(),
    evidence: z.array(reportEvidence).max(200),
    manual: z
      .object({ who: reportText(200), at: z.iso.datetime(), note: reportText(1000) })
      .strict()
      .nullable(),
  })
  .strict();

export const handoverReport = z
  .object({
    kind: z.literal('svc-handover-report'),
    v: z.literal(2),
    meta: z
      .object({
        release: reportText(64),
        host: reportText(255),
        centralUrl: reportText(300),
        technician: reportText(200),
        site: reportText(200),
        createdAt: z.iso.datetime(),
      })
      .strict(),
    summary: z
      .object({
        layers: z.number().int().min(0).max(64),
        passed: z.number().int().min(0).max(64),
        failed: z.number().int().min(0).max(64),
        pending: z.number().int().min(0).max(64),
        /** Titles of the layers whose check never ran before Finish. */
        notRun: z.array(reportText(200)).max(64),
        warnings: z.number().int().min(0).max(10_000),
      })
      .strict(),
    layers: z.array(reportLayer).max(64),
  })
  .strict()
  .refine((r) => r.summary.layers === r.layers.length, {
    path: ['summary', 'layers'],
    message: 'does not match the layers listed',
  })
  .refine((r) => r.summary.passed === r.layers.filter((l) => l.status === 'passed').length, {
    path: ['summary', 'passed'],
    message: 'does not match the layers that passed',
  });
export type HandoverReport = z.infer<typeof handoverReport>;
export type ReportEvidence = z.infer<typeof reportEvidence>;

/** Largest report file the central service keeps (a report is a few kilobytes). */
export const MAX_REPORT_BYTES = 512 * 1024;

export const REDACTED = '[redacted]';

/**
 * Text shaped like a secret, whoever typed it: credentials in `name=value` or header form,
 * URL user info, and random-looking runs (a device key is 43 base64url characters; tokens,
 * cookies and photos are runs of the same alphabets).
 */
type Replacement =
  string | ((match: string, prefix: string, value: string, offset: number, text: string) => string);

/**
 * `name: value` in prose ("has a management key: enter it to push") is a sentence going on,
 * not a credential: after a colon and a space, one plain word (letters only, lower case but
 * for the first) followed by more words stays. `key=x`, `key:x` and anything else goes.
 */
const credentialValue = (
  match: string,
  prefix: string,
  value: string,
  offset: number,
  text: string,
): string => {
  const rest = text.slice(offset + match.length);
  const prose = /:\s+$/.test(prefix) && /^[A-Za-z][a-z]*$/.test(value) && /^\s+[A-Za-z]/.test(rest);
  return prose ? match : `${prefix}${REDACTED}`;
};

const SECRET_PATTERNS: [RegExp, Replacement][] = [
  [/(bearer\s+)[^\s,;]+/gi, `$1${REDACTED}`],
  [
    /((?:password|passwd|pwd|passphrase|token|key|secret|cookie|session|sid|csrf|authorization)\s*[=:]\s*)(?!\[redacted\])([^\s,;]+)/gi,
    credentialValue,
  ],
  // The same labels in Chinese, with either colon. Only a value of ASCII characters goes: a
  // password is typed in them, while the console's own Chinese prose after "密钥：" is not.
  [
    /((?:密码|口令|密钥|秘钥|令牌|验证码)\s*[=:：]\s*)(?!\[redacted\])((?:(?![,;])[\x21-\x7e])+)/g,
    `$1${REDACTED}`,
  ],
  [/\/\/[^/@\s]+:[^/@\s]+@/g, `//${REDACTED}@`],
  // Long runs of the base64 / base64url alphabet: a photo, a key, a token.
  [/[A-Za-z0-9+/_-]{44,}={0,2}/g, REDACTED],
  // Shorter runs that look random: letters of both cases and digits mixed, as a key, a token
  // or a password is (a word or an identifier a person types rarely is). From the shortest
  // password the site accepts (PASSWORD_MIN_LENGTH), so one typed into a note goes too.
  [
    new RegExp(
      `(?<![A-Za-z0-9+/_-])(?=[A-Za-z0-9+/_-]*[a-z])(?=[A-Za-z0-9+/_-]*[A-Z])(?=[A-Za-z0-9+/_-]*\\d)[A-Za-z0-9+/_-]{${PASSWORD_MIN_LENGTH},}={0,2}`,
      'g',
    ),
    REDACTED,
  ],
  // Hex runs as long as a 128-bit token or more.
  [/(?<![0-9a-fA-F])[0-9a-fA-F]{32,}(?![0-9a-fA-F])/g, REDACTED],
];

/** Replaces anything shaped like a credential or an encoded blob in a text. */
export function redactSecretShapes(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) {
    // One call per overload of String.replace (a string, or a function of the groups).
    out =
      typeof replacement === 'string'
        ? out.replace(pattern, replacement)
        : out.replace(pattern, replacement);
  }
  return out;
}

/** Every text of a report, for the check that none is secret-shaped. */
export function reportTexts(report: HandoverReport): string[] {
  const m = report.meta;
  return [
    ...Object.values(m),
    ...report.summary.notRun,
    ...report.layers.flatMap((l) => [
      l.title,
      l.manualPrompt ?? '',
      l.error ?? '',
      ...l.evidence.flatMap((e) => [e.label, e.value]),
      ...(l.manual ? [l.manual.who, l.manual.note] : []),
    ]),
  ];
}

/** The texts of a report that still hold secret-shaped content (none in a redacted one). */
export function secretShapedTexts(report: HandoverReport): string[] {
  return reportTexts(report).filter((t) => redactSecretShapes(t) !== t);
}

/** `POST /api/acceptance/reports`: the report file exactly as the console wrote it. */
export const acceptanceReportUpload = z
  .object({ report: z.string().min(2).max(MAX_REPORT_BYTES) })
  .strict();

export const acceptanceReportRecord = z.object({
  sha256: z.string(),
  recordedAt: z.string(),
  recordedBy: z.string(),
  title: z.string(),
  layers: z.number().int(),
  passed: z.number().int(),
  /** False when this digest was already kept (the first record stands). */
  created: z.boolean(),
});
export type AcceptanceReportRecord = z.infer<typeof acceptanceReportRecord>;

/** `GET /api/acceptance/reports/:sha256`: the record and the report file itself. */
export const acceptanceReportOut = acceptanceReportRecord.omit({ created: true }).extend({
  report: z.string(),
});
export type AcceptanceReportOut = z.infer<typeof acceptanceReportOut>;

export const reportDigestParams = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits'),
});
