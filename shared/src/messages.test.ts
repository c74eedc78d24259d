import type { z } from 'zod';
import { deviceCreate, personCreate, spaceCreate } from './admin-api.js';
import { importColumnName } from './bulk.js';
import {
  describeMessage,
  fillText,
  formatEnglish,
  formatMessage,
  issuesToFields,
  messageCatalog,
  type FormatText,
} from './messages.js';

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

describe('describeMessage: a message whose params name columns and other codes', () => {
  test('a column, a nested problem, a list of reasons and whose devices, in English and Chinese', async () => {
    const { zhCN } = await import('./locales/zh-CN.js');
    const zh: FormatText = (code, params) =>
      fillText((zhCN.messages as Record<string, string>)[code] ?? code, params);
    const columnZh = (field: string) => importColumnName(field, 'zh-CN');
    const tooLong = {
      code: 'import_field',
      params: { field: 'name', problem: 'too_long', max: 64 },
    };
    expect(describeMessage(tooLong, formatEnglish)).toBe('name: Use at most 64 characters.');
    expect(describeMessage(tooLong, zh, columnZh)).toBe('姓名：最多输入 64 个字符。');
    const face = {
      code: 'face_refused',
      params: {
        reasons: 'face_small,face_turned',
        height: 86,
        need: 120,
        devices: 'face_devices_in',
        space: 'Gate A',
      },
    };
    expect(describeMessage(face, formatEnglish)).toBe(
      'The photo was refused: the face is 86 px high; devices in Gate A need 120: use a closer or larger photo; the face is turned away: use a photo looking straight at the camera.',
    );
    expect(describeMessage(face, zh)).toBe(
      '照片未通过人脸检测：人脸高 86 像素；“Gate A”中的设备需要 120 像素：请使用更近或更大的照片；人脸未正对镜头：请使用正视镜头的照片。',
    );
  });
});

describe('the import date message in Chinese', () => {
  test('says the formats with its own "or", no English word from a param', async () => {
    const { loadSharedTexts } = await import('./locales/index.js');
    const zh = (await loadSharedTexts('zh-CN')).messages.import_date;
    expect(zh).toContain('YYYY-MM-DD 或 YYYY-MM-DDTHH:MM');
    expect(zh).not.toContain('{expected}');
  });
});
