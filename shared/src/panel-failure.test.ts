import { panelFailureCodes, panelFailureOf, panelFailureText } from './panel-failure.js';

describe('panel delivery failures by code (issue 34)', () => {
  test('every sentence the outbox stores reads back as its code and values', () => {
    const t = panelFailureText;
    expect(panelFailureOf(t.answerTooLarge('answer', 64))).toEqual({
      code: 'panel_answer_too_large',
      params: { part: 'answer', kib: 64 },
    });
    expect(panelFailureOf(t.answerTooLarge('chunk header', 64)).params.part).toBe('chunk header');
    expect(panelFailureOf(t.connectionReplaced)).toEqual({
      code: 'panel_connection_replaced',
      params: {},
    });
    expect(panelFailureOf(t.unreachable('ECONNREFUSED'))).toEqual({
      code: 'panel_unreachable',
      params: { cause: 'ECONNREFUSED' },
    });
    expect(panelFailureOf(t.httpStatus(503)).params).toEqual({ status: 503 });
    expect(panelFailureOf(t.timeout(5000))).toEqual({
      code: 'panel_timeout',
      params: { ms: 5000 },
    });
    expect(panelFailureOf(t.unreadable('bad chunk size')).code).toBe('panel_unreadable');
    expect(panelFailureOf(t.closed).code).toBe('panel_closed');
    expect(panelFailureOf(t.interrupted).code).toBe('panel_interrupted');
    expect(panelFailureOf(t.neverSent).code).toBe('panel_never_sent');
  });

  test('a sentence of an older release is a plain failure; each code is known', () => {
    expect(panelFailureOf('something else')).toEqual({ code: 'panel_failed', params: {} });
    expect(new Set(panelFailureCodes).size).toBe(10);
  });
});
