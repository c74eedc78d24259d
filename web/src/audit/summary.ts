import type { AuditEntryOut } from '@svc/shared';
import { currentLocale, exists, t } from '../i18n';
import { describeShared } from '../i18n/errors';
import { formatTime } from '../people/format';
import { organizationName } from '../i18n/seeded';

type Params = Record<string, string | number>;

function listOf(items: readonly (string | false)[]): string {
  const kept = items.filter((item): item is string => item !== false && item !== '');
  return new Intl.ListFormat(currentLocale(), { type: 'conjunction' }).format(kept);
}

/** A role code in words (`roles.admin`), or the code itself when the site does not know it. */
function role(code: string | number | undefined): string {
  const key = `roles.${String(code)}`;
  return exists(key) ? t(key) : String(code);
}

/** A face check's problems (`reasons`: their codes, comma-joined, with their values), in words. */
export function faceProblems(params: Readonly<Params>): string {
  return String(params.reasons)
    .split(',')
    .filter((code) => code !== '')
    .map((code) => describeShared(code, params))
    .join(t('face.problemSeparator'));
}

/** Values a summary names that are codes themselves (fields, roles, changes), in words. */
function wordParams(code: string, params: Readonly<Params>): Params {
  const out: Params = { ...params };
  if (typeof params.fields === 'string') {
    const kind = code.startsWith('device_') ? 'device' : 'person';
    out.fields = listOf(
      params.fields
        .split(',')
        .map((f) =>
          exists(`audit.field.${kind}.${f}`) ? t(`audit.field.${kind}.${f}`) : f.trim(),
        ),
    );
  }
  if (code === 'administrator_created') out.role = role(params.role);
  if (code === 'organization_created' || code === 'organization_renamed') {
    for (const key of ['name', 'previous'] as const) {
      if (typeof params[key] === 'string') out[key] = organizationName(params[key]);
    }
  }
  if (code === 'administrator_updated') {
    out.changes = listOf([
      params.displayName === 'true' && t('audit.change.displayName'),
      params.role !== 'unchanged' &&
        t('audit.change.role', {
          previousRole: role(params.previousRole),
          role: role(params.role),
        }),
      params.state === 'disabled' && t('audit.change.disabled'),
      params.state === 'enabled' && t('audit.change.enabled'),
      params.organization === 'moved' && t('audit.change.organization'),
    ]);
  }
  if (code === 'space_updated') {
    out.changes = listOf([
      params.previousName !== params.name &&
        t('audit.change.renamed', { previousName: params.previousName }),
      params.moved === 'root' && t('audit.change.movedRoot'),
      params.moved === 'space' && t('audit.change.movedSpace'),
    ]);
  }
  if (code === 'terminal_removed' && typeof params.lastHeard === 'string') {
    out.lastHeard = formatTime(params.lastHeard);
  }
  if (code === 'panel_route_changed') {
    for (const [mode, url] of [
      ['beforeMode', 'before'],
      ['mode', 'url'],
    ] as const) {
      const name = `panel.${String(params[mode])}`;
      out[mode] = exists(name) ? t(name) : String(params[mode]);
      out[url] = params[url] === '' ? t('status.none') : String(params[url]);
    }
  }
  if (code === 'terminal_moved_itself' && typeof params.silentSince === 'string') {
    out.silentSince = formatTime(params.silentSince);
  }
  if (code === 'photo_face_accepted' && typeof params.reasons === 'string') {
    out.problems = faceProblems(params);
  }
  // The terminal's or the network's reason by its own code (the English `error` otherwise).
  if (
    code === 'central_address_not_saved' &&
    typeof params.reason === 'string' &&
    exists(`status.warning.${params.reason}`)
  ) {
    out.error = t(`status.warning.${params.reason}`, params);
  }
  if (code === 'device_updated') {
    const requeued = Number(params.requeued);
    out.photos = requeued >= 0 ? 'true' : 'false';
    out.requeued = Math.max(0, requeued);
  }
  return out;
}

/**
 * An audit entry's summary in the site's language, from its code and values (issue 34); the
 * English written at the time for a row without a code (older rows) or a code this site does
 * not know yet. `coded` says which, for the page to mark the English as the server's text.
 */
export function auditSummary(entry: AuditEntryOut): { text: string; coded: boolean } {
  const { summaryCode: code, summaryParams: params } = entry;
  if (code === null || params === null || !exists(`audit.summary.${code}`)) {
    return { text: entry.summary, coded: false };
  }
  return { text: t(`audit.summary.${code}`, wordParams(code, params)), coded: true };
}

/** Who wrote the row: the service, a terminal, … in the site's language; else the name. */
export function auditActor(entry: AuditEntryOut): string {
  if (entry.actorCode === null) return entry.actor ?? '—';
  return t(`audit.actorKind.${entry.actorCode}`, entry.actorParams);
}

/** A setting named as an audit object: its label when the site knows it. */
export function settingName(id: string): string {
  return exists(`audit.setting.${id}`) ? t(`audit.setting.${id}`) : id;
}
