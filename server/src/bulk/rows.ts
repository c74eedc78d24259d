import {
  instantOfWallClock,
  issuesToMessages,
  personCreate,
  validityInstant,
  type PersonCreate,
} from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import { siteTimeZone } from '../settings/time-zone.js';
import { unneutralize } from './csv.js';
import { ImportRefusal, refusal, type CsvRecord } from './sources.js';

/** One CSV row as the people feature takes it: the import's and the check's shared rules. */

const BOOL: Record<string, boolean> = {
  true: true,
  false: false,
  '1': true,
  '0': false,
  yes: true,
  no: false,
  // As the Chinese template writes them.
  是: true,
  否: false,
};

/** What a date cell may hold (the part after the date optional): `expected` of its reason. */
const DATE_FORMAT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const DATE_EXPECTED = 'YYYY-MM-DD or YYYY-MM-DDTHH:MM';

/**
 * A date cell as an instant, refusing one that is no day of the calendar (2026-02-30, 25:00):
 * `new Date` would roll it over to another day without a word. A date alone is the whole day in
 * the site's time zone (valid from its start, until its end), as the site's form takes it; a
 * time without an offset is that wall clock in the site's zone, not the server's.
 */
function dateCell(field: 'validFrom' | 'validUntil', s: string, zone: string): string {
  const m = DATE_FORMAT.exec(s);
  if (!m) throw refusal('import_date', { field, value: s, expected: DATE_EXPECTED });
  const [year, month, day, hour = 0, minute = 0, second = 0] = m
    .slice(1, 7)
    .map((p) => (p === undefined ? undefined : Number(p))) as [
    number,
    number,
    number,
    number?,
    number?,
    number?,
  ];
  const wall = { year, month, day, hour, minute, second, ms: 0 };
  const utc = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  const real =
    utc.getUTCFullYear() === year &&
    utc.getUTCMonth() === month - 1 &&
    utc.getUTCDate() === day &&
    utc.getUTCHours() === hour &&
    utc.getUTCMinutes() === minute &&
    utc.getUTCSeconds() === second;
  const at =
    m[4] === undefined
      ? validityInstant(s, field === 'validFrom' ? 'from' : 'until', zone)
      : m[7] === undefined
        ? instantOfWallClock(wall, zone)
        : new Date(s);
  if (!real || Number.isNaN(at.getTime())) {
    throw refusal('import_not_real_date', { field, value: s });
  }
  return at.toISOString();
}

/** The CSV column a create-schema field comes from. */
/** The CSV column of a person field (a schema path or a refused field's name). */
export const columnOf = (path: string) => (path.startsWith('spaceIds') ? 'spaces' : path);

/**
 * How the site writes a space's path ("HQ Building › Floor 1", in every language); `>` and the
 * full-width `＞` are read as the same separator.
 */
export const SPACE_PATH_SEPARATOR = ' › ';
const PATH_SEPARATOR = /\s*[›>＞]\s*/;

/** A path as compared: its names trimmed, in lower case, joined by the site's separator. */
const pathKey = (text: string) =>
  text
    .split(PATH_SEPARATOR)
    .map((part) => part.trim().toLowerCase())
    .join(SPACE_PATH_SEPARATOR);

/** The organization's spaces as a `spaces` cell may name them: by name, path or id. */
export interface SpaceKeys {
  /** Name (lower case) or id → the spaces it may mean. */
  byName: Map<string, string[]>;
  /** Path from the top space (see {@link pathKey}) → the spaces it may mean. */
  byPath: Map<string, string[]>;
  /** Id → its path as the site shows it. */
  pathOf: Map<string, string>;
}

const add = (map: Map<string, string[]>, key: string, id: string) =>
  map.set(key, [...(map.get(key) ?? []), id]);

export async function spaceKeys(ctx: AppContext, organizationId: string): Promise<SpaceKeys> {
  const rows = await ctx.models.Space.findAll({ where: { organizationId }, raw: true });
  const byId = new Map(rows.map((s) => [s.id, s]));
  const pathOf = new Map<string, string>();
  const path = (id: string, depth = 0): string => {
    const known = pathOf.get(id);
    if (known !== undefined) return known;
    const space = byId.get(id)!;
    // A parent outside the organization (or a loop, never made by the site) ends the path.
    const parent = space.parentId === null ? undefined : byId.get(space.parentId);
    const text =
      parent && depth < 64
        ? `${path(parent.id, depth + 1)}${SPACE_PATH_SEPARATOR}${space.name}`
        : space.name;
    pathOf.set(id, text);
    return text;
  };
  const keys: SpaceKeys = { byName: new Map(), byPath: new Map(), pathOf };
  for (const s of rows) {
    add(keys.byName, s.name.toLowerCase(), s.id);
    add(keys.byName, s.id, s.id);
    add(keys.byPath, pathKey(path(s.id)), s.id);
  }
  return keys;
}

/**
 * One space of a `spaces` cell: its name or id (as before), else its path as the site shows it.
 * Unknown or ambiguous: the row's error names the column and what to write instead.
 */
function spaceOf(text: string, spaces: SpaceKeys): string {
  const byName = spaces.byName.get(text.toLowerCase()) ?? [];
  const ids =
    byName.length === 0 && PATH_SEPARATOR.test(text)
      ? (spaces.byPath.get(pathKey(text)) ?? [])
      : byName;
  if (ids.length === 1) return ids[0]!;
  if (ids.length === 0) throw refusal('import_no_space', { field: 'spaces', space: text });
  const paths = [...new Set(ids.map((id) => spaces.pathOf.get(id) ?? id))].sort();
  // Two spaces of one path (made before names were unique under a parent): only the id tells.
  const example = paths.length === ids.length ? paths[0]! : ids[0]!;
  throw refusal('import_ambiguous_space', {
    field: 'spaces',
    space: text,
    paths: paths.slice(0, 3).join('; '),
    example,
  });
}

/** What a row is read against: the organization imported into, its spaces, the site's zone. */
export interface RowRules {
  spaces: SpaceKeys;
  zone: string;
  /** The name of the organization the rows go to. */
  organization: string;
}

export async function rowRules(ctx: AppContext, organizationId: string): Promise<RowRules> {
  const [spaces, { timeZone }, organization] = await Promise.all([
    spaceKeys(ctx, organizationId),
    siteTimeZone(ctx),
    ctx.models.Organization.findByPk(organizationId, { raw: true }),
  ]);
  return { spaces, zone: timeZone, organization: organization?.name ?? '' };
}

/**
 * An `organization` cell (the export across all organizations writes one) naming another
 * organization than the one imported into: the row would become a second person there, so it
 * is refused, saying where it belongs.
 */
function refuseOtherOrganization(named: string | undefined, rules: RowRules): void {
  const organization = named?.trim() ?? '';
  if (organization === '' || organization === rules.organization) return;
  throw refusal('import_other_organization', {
    field: 'organization',
    organization,
    importing: rules.organization,
  });
}

/** Maps a CSV record to the create schema; space names, paths or ids resolve in the organization. */
export function toInput(record: CsvRecord, rules: RowRules): PersonCreate {
  // Its cells may sit in the wrong columns: nothing of the row is taken.
  if (record.overflow) throw refusal('import_extra_cells', record.overflow);
  const v = Object.fromEntries(
    Object.entries(record.values).map(([column, cell]) => [column, unneutralize(cell)]),
  );
  refuseOtherOrganization(v.organization, rules);
  const { spaces, zone } = rules;
  // A column left out (or empty) changes nothing on an update; it is not "no spaces".
  const spaceIds = v.spaces
    ?.split(';')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => spaceOf(s, spaces));
  const enabled = v.enabled === undefined ? undefined : BOOL[v.enabled.toLowerCase()];
  if (v.enabled !== undefined && enabled === undefined)
    throw refusal('import_yes_no', { field: 'enabled', value: v.enabled });
  const date = (field: 'validFrom' | 'validUntil') =>
    v[field] === undefined ? undefined : dateCell(field, v[field], zone);
  const parsed = personCreate.safeParse({
    name: v.name,
    idNumber: v.idNumber,
    phone: v.phone,
    notes: v.notes,
    validFrom: date('validFrom'),
    validUntil: date('validUntil'),
    enabled,
    spaceIds,
  });
  if (!parsed.success) {
    // Each problem names its column and says what to write there, in the forms' own words.
    const messages = issuesToMessages(parsed.error.issues, v);
    throw new ImportRefusal(
      Object.entries(messages).map(([path, m]) => ({
        code: 'import_field',
        params: { ...m.params, field: columnOf(path), problem: m.code },
      })),
    );
  }
  return parsed.data;
}

/**
 * The first row of the file that holds each ID number (compared as the people store does,
 * case-insensitively). A later row with the same number is refused, in the check and in the
 * import alike, rather than silently overwriting the earlier one.
 */
export class RowsById {
  private readonly first = new Map<string, number>();

  /** Throws the row's error when the number was on an earlier row; remembers it otherwise. */
  claim(idNumber: string, line: number): void {
    const key = idNumber.toUpperCase();
    const row = this.first.get(key);
    if (row !== undefined) throw refusal('import_repeated_id', { field: 'idNumber', row });
    this.first.set(key, line);
  }
}
