import { endOfDayIn, startOfDayIn, validityInstant, wholeDayIn } from './zoned-time.js';

describe('days in a time zone', () => {
  test('a date-only "until" ends with its day in the zone, "from" starts with it', () => {
    expect(validityInstant('2026-03-31', 'until', 'Asia/Shanghai').toISOString()).toBe(
      '2026-03-31T15:59:59.999Z',
    );
    expect(validityInstant('2026-03-01', 'from', 'Asia/Shanghai').toISOString()).toBe(
      '2026-02-28T16:00:00.000Z',
    );
    expect(
      validityInstant('2026-03-31T10:00:00.000Z', 'until', 'Asia/Shanghai').toISOString(),
    ).toBe('2026-03-31T10:00:00.000Z');
  });

  test('days around a clock change are 23 and 25 hours long', () => {
    const hours = (d: string) =>
      (endOfDayIn(d, 'Europe/Berlin').getTime() + 1 - startOfDayIn(d, 'Europe/Berlin').getTime()) /
      3_600_000;
    expect(hours('2026-03-29')).toBe(23);
    expect(hours('2026-10-25')).toBe(25);
    expect(startOfDayIn('2026-01-15', 'America/New_York').toISOString()).toBe(
      '2026-01-15T05:00:00.000Z',
    );
  });

  test('an instant on a day boundary reads back as its date', () => {
    const until = endOfDayIn('2026-03-31', 'Asia/Shanghai');
    expect(wholeDayIn(until, 'until', 'Asia/Shanghai')).toBe('2026-03-31');
    expect(wholeDayIn(until, 'until', 'UTC')).toBeNull();
    expect(wholeDayIn(startOfDayIn('2026-03-01', 'UTC'), 'from', 'UTC')).toBe('2026-03-01');
  });
});
