import type { z } from 'zod';

/**
 * Every sentence a person reads about bad input, by a stable code, in one place: the server's
 * 400 answers (`fields`) and the site's forms both come from here, so they say the same thing,
 * and a translation replaces this one object. `{name}` is filled from the message's params.
 */
export const messageCatalog = {
  required: 'Required.',
  too_short: 'Use at least {min} characters.',
  too_long: 'Use at most {max} characters.',
  too_few: 'Choose at least {min}.',
  too_many: 'Choose at most {max}.',
  number_too_small: 'Use a number of at least {min}.',
  number_too_large: 'Use a number of at most {max}.',
  not_a_number: 'Enter a number.',
  not_a_whole_number: 'Enter a whole number.',
  not_text: 'Enter text.',
  not_yes_no: 'Choose yes or no.',
  invalid_choice: 'Choose one of the options.',
  invalid_value: 'This value is not valid.',
  invalid_time: 'Enter a date and time.',
  invalid_id: 'Choose an existing entry.',
  format_node_id: 'Use only letters A–Z, digits and . _ : - (no spaces).',
  format_id_number: 'Use letters, digits, spaces and . / - (starting with a letter or digit).',
  format_phone: 'Use digits, spaces and + ( ) . / - only.',
  format_username: 'Use lower-case letters, digits and . _ - (starting with a letter or digit).',
  format_terminal_key:
    'Use letters, digits and symbols, without spaces (as printed on the terminal).',
  format_totp: 'Enter the 6 digits your authenticator app shows.',
  url_http: 'Enter an address that starts with http:// or https://.',
  url_no_credentials: 'Leave out the user name and password (user:password@).',
  url_central: 'Enter http://host or http://host:port, with nothing after it.',
  valid_window: '"Valid until" must be later than "Valid from".',
  time_range:
    'The "From" time is after the "Until" time, so nothing can match: change one of them.',
  date_range: 'Use a date from 1970-01-01 to 9999-12-31.',
  time_zone: 'Choose a time zone such as Asia/Shanghai or UTC.',
  passwords_differ: 'The two new passwords are not the same.',
  choose_csv: 'Choose the CSV file.',
  choose_zip: 'Choose the ZIP of photos.',
  not_zip: 'This is not a ZIP file: choose the .zip of photos named by ID number.',
  upload_unexpected: 'This file is not expected here.',
  file_too_large: 'The file is larger than {max} MB.',
  not_csv: 'This is not a CSV file: choose a .csv text file (a template is offered on this page).',
  photo_too_large: 'The photo is larger than {max} MB: choose a smaller JPEG or PNG.',
  photo_not_image: '{file} is not a JPEG or PNG photo.',
  password_short: 'Use at least {min} characters (a few unrelated words work well).',
  password_common: 'This password is among the most common ones; choose another.',
  password_pattern: 'This password is a repeated or sequential pattern; choose another.',
  password_personal: 'Do not use your username or the service name in the password.',
  password_same: 'The new password must differ from the current one.',
  // Refusals decided after the schema check, each beside its field (the server's `fieldCodes`).
  no_such_space: 'Choose a space of this organization.',
  no_such_organization: 'Choose an existing organization.',
  control_characters: 'Remove control characters such as line breaks and tabs.',
  bidi_characters:
    'Remove the text-direction characters (such as U+202E): they make a name read differently.',
  invisible_name: 'Enter a name that can be seen: this one holds only invisible characters.',
  id_number_used: 'Another person in this organization already has this ID number.',
  space_name_used: 'A space named “{name}” is already here; choose another name.',
  photo_side_order: 'Use at most the largest photo side ({max} px).',
  url_device_base: 'Enter http(s)://host[:port][/path], without a user name, query or fragment.',
  not_enrollment_terminal: 'Only an enrollment terminal grants spaces.',
  photo_base64: 'Send the photo as a base64-encoded JPEG or PNG.',
  upload_malformed: 'The upload could not be read; choose the file again.',
  upload_one_file: 'Send exactly one photo file.',
  report_not_json: 'This file is not JSON: choose the handover report the console saved.',
  report_not_report: 'This file is not a handover report the console saved.',
  report_secret: 'The report holds text shaped like a password, key or token; it was not kept.',
  // Whole answers (the server's `error.code` with its `params`).
  invalid_input: 'Some fields are not valid; see the message beside each.',
  // An import's refused rows and files (`{field}` is a column, named in the reader's language).
  import_field: '{field}: {problem}',
  import_date: '{field}: use YYYY-MM-DD or YYYY-MM-DDTHH:MM (got "{value}").',
  import_not_real_date: '{field}: "{value}" is not a real date.',
  import_yes_no: '{field}: use true or false (got "{value}").',
  import_no_space:
    '{field}: there is no space "{space}"; write a space’s name, or its path as the site shows it (e.g. HQ Building › Floor 1); separate several with ;.',
  import_ambiguous_space:
    '{field}: several spaces are named "{space}" ({paths}); write the path of the one you mean, e.g. "{example}".',
  import_repeated_id: '{field}: also on row {row} of this file; each ID number may appear once.',
  import_no_column: 'The CSV header has no "{field}" column.',
  import_empty_file: 'The CSV file is empty.',
  import_no_rows: 'The CSV file has a header but no rows of people under it.',
  import_unreadable: 'The CSV file cannot be read (it is not valid CSV).',
  // The CSV itself is malformed at `{line}` (as a text editor counts, the header is line 1).
  import_unreadable_line: 'The CSV file cannot be read from line {line} on (it is not valid CSV).',
  import_quote_not_closed:
    'Line {line}: a cell starts with a quote (") that is never closed. Add the closing quote; a quote inside a cell is written as two ("").',
  import_text_after_quote:
    'Line {line}: there is text after the closing quote (") of a cell. Put the whole cell in quotes and write each quote inside it as two ("").',
  import_quote_in_cell:
    'Line {line}: a quote (") in the middle of a cell. Put the whole cell in quotes and write each quote inside it as two ("").',
  import_extra_cells:
    'This row has {cells} cells but the header has {columns}: a cell that holds a comma must be in quotes (").',
  // The export across all organizations names each row's; the import goes to one.
  import_other_organization:
    'This row is of the organization "{organization}", but this import goes to "{importing}": to import it, first choose "{organization}" as the organization you work in.',
  import_photo_too_large: 'The photo {file} is larger than {max} MB: choose a smaller JPEG or PNG.',
  // The same words as the photo upload's `invalid_image` (the person form's).
  import_photo_unreadable: 'This is not a JPEG or PNG photo the service can read.',
  import_zip_entries: 'The ZIP holds {entries} entries; at most {max} are accepted.',
  import_zip_unreadable:
    'The ZIP of photos cannot be read (it is damaged, or not a ZIP file); make it again and import again.',
  import_interrupted: 'Interrupted by a server restart; import the same files again to finish.',
  import_not_saved:
    'The import stopped: its progress could not be saved. Rows imported so far stay; import the same files again to finish.',
  // A ZIP entry the import did not read (its name is shown beside the reason).
  import_entry_parent:
    'Not read: its name leads out of the folder (".."). Name each photo by ID number, e.g. AB-1001.jpg.',
  import_entry_absolute:
    'Not read: its name is an absolute path. Name each photo by ID number, e.g. AB-1001.jpg.',
  import_entry_backslash:
    'Not read: its name holds a backslash (\\). Name each photo by ID number, e.g. AB-1001.jpg.',
  import_entry_name: 'Not read: its name holds control characters.',
  import_entry_not_photo: 'Not read: only .jpg, .jpeg and .png photos are imported.',
  import_entry_twice: 'Not used: {other} is already the photo for this ID number.',
  import_row_failed: 'This row could not be saved; try again, and tell the operator if it repeats.',
  // A row imported while its photo was refused (`{problem}` is the photo's reason, said).
  import_saved_without_photo: 'Saved without a photo: {problem}',
  // The face check of a photo (problems, each with what to do; `{devices}` names whose need).
  face_refused: 'The photo was refused: {detail}.',
  face_none: 'no face found: use a photo of the person’s face, looking at the camera',
  face_several: '{count} faces found: crop to one person',
  face_small: 'the face is {height} px high; {devices} need {need}: use a closer or larger photo',
  face_small_device:
    'the face is {height} px high, {shown} px in the {side} px photo the device receives; {devices} need {need}: use a closer or larger photo',
  face_blurred:
    'the face is blurred (sharpness {sharpness}, at least {min} needed): use a sharper photo',
  face_turned: 'the face is turned away: use a photo looking straight at the camera',
  face_devices: 'devices',
  face_devices_in: 'devices in {space}',
  reason_separator: '; ',
} as const;

/** The largest photo a person may be given (the server refuses more; the site says so first). */
export const MAX_PHOTO_UPLOAD_BYTES = 5 * 1024 * 1024;

export type MessageCode = keyof typeof messageCatalog;
export type MessageParams = Readonly<Record<string, string | number>>;

/** One message: its code and the values it names. */
export interface Message {
  code: MessageCode;
  params?: MessageParams;
}

/** The sentence of a code, with its params filled in. */
export function formatMessage(code: MessageCode, params: MessageParams = {}): string {
  return fillText(messageCatalog[code], params);
}

/** Fills a catalog text's `{name}`s (the message catalogs hold no plural or select). */
export function fillText(text: string, params: MessageParams = {}): string {
  return text.replace(/\{(\w+)\}/g, (all, name: string) =>
    name in params ? String(params[name]) : all,
  );
}

/** One code's text in some language, filled from params (the server's catalog, a site's `t`). */
export type FormatText = (code: string, params: MessageParams) => string;

/**
 * A message whose params name other messages, in one language: `field` is a column (named by
 * `column`), `problem` a message code filled from the same params, `reasons` a comma-joined
 * list of codes that together make `detail`; `devices` a code too. The server's English
 * text, the errors CSV and the site all say a row's or a photo's reasons this way.
 */
export function describeMessage(
  message: { code: string; params?: MessageParams | undefined },
  format: FormatText,
  column: (field: string) => string = (field) => field,
): string {
  const params: Record<string, string | number> = { ...message.params };
  if (typeof params.field === 'string') params.field = column(params.field);
  if (typeof params.devices === 'string') params.devices = format(params.devices, params);
  if (typeof params.problem === 'string') params.problem = format(params.problem, params);
  if (typeof params.reasons === 'string') {
    params.detail = params.reasons
      .split(',')
      .map((code) => format(code, params))
      .join(format('reason_separator', {}));
  }
  return format(message.code, params);
}

/** The server's own English for {@link describeMessage}. */
export const formatEnglish: FormatText = (code, params) =>
  code in messageCatalog ? fillText(messageCatalog[code as MessageCode], params) : code;

/** The sentence a schema rule carries, so its issues map back to their code. */
export function ruleText(code: MessageCode): string {
  return messageCatalog[code];
}

const byText = new Map<string, MessageCode>(
  Object.entries(messageCatalog).map(([code, text]) => [text, code as MessageCode]),
);

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const isEmpty = (value: unknown) =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

function sizeMessage(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): Message {
  const small = issue.code === 'too_small';
  const bound = Number(small ? issue.minimum : issue.maximum);
  if (issue.origin === 'string') {
    return small
      ? { code: 'too_short', params: { min: bound } }
      : { code: 'too_long', params: { max: bound } };
  }
  if (issue.origin === 'array' || issue.origin === 'set') {
    return small
      ? { code: 'too_few', params: { min: bound } }
      : { code: 'too_many', params: { max: bound } };
  }
  return small
    ? { code: 'number_too_small', params: { min: bound } }
    : { code: 'number_too_large', params: { max: bound } };
}

function typeMessage(expected: string): Message {
  if (expected === 'number' || expected === 'int') return { code: 'not_a_number' };
  if (expected === 'boolean') return { code: 'not_yes_no' };
  if (expected === 'string') return { code: 'not_text' };
  return { code: 'invalid_value' };
}

/**
 * One zod issue as a message. `input` is what was validated: an empty value is "required"
 * whatever rule it broke, never the format rule of a value nobody typed.
 */
export function issueMessage(issue: z.core.$ZodIssue, input?: unknown): Message {
  const known = byText.get(issue.message);
  const empty =
    input === undefined
      ? issue.code === 'invalid_type' && issue.message.endsWith('received undefined')
      : isEmpty(valueAt(input, issue.path));
  // A missing file's own sentence ("Choose the CSV file.") already says it is required.
  const saysRequired = known === 'choose_csv' || known === 'choose_zip';
  if (empty && known !== 'valid_window' && !saysRequired) return { code: 'required' };
  if (known !== undefined) return { code: known };
  switch (issue.code) {
    case 'too_small':
    case 'too_big':
      return sizeMessage(issue);
    case 'invalid_type':
      return typeMessage(issue.expected);
    case 'invalid_value':
      return { code: 'invalid_choice' };
    case 'not_multiple_of':
      return { code: 'not_a_whole_number' };
    case 'invalid_format':
      if (issue.format === 'datetime' || issue.format === 'date') return { code: 'invalid_time' };
      if (issue.format === 'uuid' || issue.format === 'guid') return { code: 'invalid_id' };
      if (issue.format === 'url') return { code: 'url_http' };
      return { code: 'invalid_value' };
    case 'invalid_union': {
      // A value or null: the value branch's own complaint is the one worth telling.
      const branch = issue.errors.find((b) => b.some((i) => i.code !== 'invalid_type'));
      const inner = branch?.find((i) => i.code !== 'invalid_type');
      if (inner) return issueMessage({ ...inner, path: [...issue.path, ...inner.path] }, input);
      // Every branch wanted another type: the first (the value, not its null) says which.
      const first = issue.errors[0]?.[0];
      return first?.code === 'invalid_type'
        ? typeMessage(first.expected)
        : { code: 'invalid_value' };
    }
    default:
      return { code: 'invalid_value' };
  }
}

/** Field path → message, one per field (the first issue of each), for an error body or a form. */
export function issuesToMessages(
  issues: readonly z.core.$ZodIssue[],
  input?: unknown,
): Record<string, Message> {
  const out: Record<string, Message> = {};
  for (const issue of issues) {
    const path = issue.path.map(String).join('.') || '(body)';
    const message = issueMessage(issue, input);
    // "Required" wins over any other complaint about the same empty field.
    if (out[path] === undefined || message.code === 'required') out[path] = message;
  }
  return out;
}

/** Field path → sentence: the `fields` of a 400 answer and the errors under a form's inputs. */
export function issuesToFields(
  issues: readonly z.core.$ZodIssue[],
  input?: unknown,
): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [path, m] of Object.entries(issuesToMessages(issues, input))) {
    fields[path] = formatMessage(m.code, m.params);
  }
  return fields;
}
