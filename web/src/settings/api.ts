import {
  retentionSetting,
  settingsOut,
  timeZoneOut,
  type RetentionSetting,
  type SettingsOut,
  type TimeZoneOut,
} from '@svc/shared';
import { request } from '../api';

export function getSettings(signal?: AbortSignal): Promise<SettingsOut> {
  return request('GET', '/api/settings', { schema: settingsOut, signal });
}

/** Changes how long recognition events are kept; the daily purge applies it. */
export function setRetention(body: RetentionSetting): Promise<RetentionSetting> {
  return request('POST', '/api/recognition/retention', { body, schema: retentionSetting });
}

/** The site's time zone for everyone (superadmin); null: the server's own again. */
export function setTimeZone(timeZone: string | null): Promise<TimeZoneOut> {
  return request('PUT', '/api/settings/time-zone', { body: { timeZone }, schema: timeZoneOut });
}
