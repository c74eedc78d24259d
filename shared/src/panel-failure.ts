/**
 * Why a delivery to the panel route failed (issue 34): the outbox stores the reason as its
 * English sentence (recognition_events.delivery_error and the log of failed tries); the API
 * hands each out with its stable code and values as well, so a client words it in the reader's
 * language. The sentences are built here and read back here, so the two never drift apart;
 * a stored sentence this reader does not know (older releases) is `panel_failed`.
 */
export const panelFailureCodes = [
  'panel_unreachable',
  'panel_closed',
  'panel_http_status',
  'panel_timeout',
  'panel_connection_replaced',
  'panel_answer_too_large',
  'panel_unreadable',
  'panel_interrupted',
  'panel_never_sent',
  'panel_failed',
] as const;
export type PanelFailureCode = (typeof panelFailureCodes)[number];

/** A panel delivery failure's code with the values its sentence names. */
export interface PanelFailure {
  code: PanelFailureCode;
  params: Record<string, string | number>;
}

/** The part of the panel's answer that was over the limit. */
export type AnswerPart = 'header' | 'answer' | 'chunk header';

/** The stored English sentence of each failure (the server's own words, for logs and the API). */
export const panelFailureText = {
  unreachable: (cause: string) => `the panel could not be reached: ${cause}`,
  closed: 'the panel closed the connection',
  httpStatus: (status: number) => `the panel answered HTTP ${status}`,
  timeout: (ms: number) => `the panel did not answer within ${ms} ms`,
  connectionReplaced: 'the connection was replaced',
  answerTooLarge: (part: AnswerPart, kib: number) =>
    `answer_too_large: the panel's ${part} is larger than ${kib} KiB`,
  unreadable: (detail: string) => `the panel sent an unreadable answer: ${detail}`,
  interrupted: 'interrupted by a shutdown',
  neverSent: 'never sent: no panel route was reachable in time',
} as const;

const patterns: [RegExp, PanelFailureCode, (m: RegExpExecArray) => PanelFailure['params']][] = [
  [/^the panel could not be reached: (.*)$/s, 'panel_unreachable', (m) => ({ cause: m[1]! })],
  [/^the panel closed the connection$/, 'panel_closed', () => ({})],
  [/^the panel answered HTTP (\d{3})$/, 'panel_http_status', (m) => ({ status: Number(m[1]) })],
  [/^the panel did not answer within (\d+) ms$/, 'panel_timeout', (m) => ({ ms: Number(m[1]) })],
  [/^the connection was replaced$/, 'panel_connection_replaced', () => ({})],
  [
    /^answer_too_large: the panel's (header|answer|chunk header) is larger than (\d+) KiB$/,
    'panel_answer_too_large',
    (m) => ({ part: m[1]!, kib: Number(m[2]) }),
  ],
  [/^the panel sent an unreadable answer: (.*)$/s, 'panel_unreadable', (m) => ({ detail: m[1]! })],
  [/^interrupted by a shutdown$/, 'panel_interrupted', () => ({})],
  [/^never sent: no panel route was reachable in time$/, 'panel_never_sent', () => ({})],
];

/** The code and values of a stored failure sentence. */
export function panelFailureOf(text: string): PanelFailure {
  for (const [pattern, code, params] of patterns) {
    const match = pattern.exec(text);
    if (match) return { code, params: params(match) };
  }
  return { code: 'panel_failed', params: {} };
}
