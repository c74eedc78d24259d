import type { z } from 'zod';
import { deviceCreate, personCreate, spaceCreate } from './admin-api.js';
import { formatMessage, issuesToFields, messageCatalog } from './messages.js';

const fieldsOf = (schema: z.ZodType, input: Record<string, unknown>) => {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected a refusal');
  return issuesToFields(result.error.issues, input);
};

describe('the one error map', () => {
  test('an empty required field says "Required.", never its format rule', () => {
    expect(fieldsOf(deviceCreate, { sn: '', name: '', baseUrl: '' })).toEqual({
      sn: 'Required.',
      name: 'Required.',
      baseUrl: 'Required.',
    });
    expect(fieldsOf(spaceCreate, {})).toEqual({ name: 'Required.' });
    expect(fieldsOf(spaceCreate, { name: '   ' })).toEqual({ name: 'Required.' });
  });

  test('a wrong value gets its rule in plain words, with the values it names', () => {
    const fields = fieldsOf(deviceCreate, {
      sn: 'bad sn!',
      name: 'x'.repeat(129),
      baseUrl: 'ftp://x',
      capacity: 'ten',
    });
    expect(fields).toEqual({
      sn: messageCatalog.format_node_id,
      name: formatMessage('too_long', { max: 128 }),
      baseUrl: messageCatalog.url_http,
      capacity: 'Enter a number.',
    });
    expect(
      fieldsOf(personCreate, {
        name: 'A',
        idNumber: 'A1',
        validFrom: '2026-02-01T00:00:00.000Z',
        validUntil: '2026-01-01T00:00:00.000Z',
      }),
    ).toEqual({ validUntil: messageCatalog.valid_window });
  });

  test('no sentence of zod itself reaches a person', () => {
    const fields = fieldsOf(deviceCreate, { sn: 5, name: [], baseUrl: {}, enabled: 'yes' });
    for (const text of Object.values(fields)) {
      expect(text).not.toMatch(/Invalid input|expected|Too small|Too big|received/);
    }
  });
});
