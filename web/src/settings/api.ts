import {
  retentionSetting,
  settingsOut,
  type RetentionSetting,
  type SettingsOut,
} from '@svc/shared';
import { request } from '../api';

export function getSettings(signal?: AbortSignal): Promise<SettingsOut> {
  return request('GET', '/api/settings', { schema: settingsOut, signal });
}

/** Changes how long recognition events are kept; the daily purge applies it. */
export function setRetention(body: RetentionSetting): Promise<RetentionSetting> {
  return request('POST', '/api/recognition/retention', { body, schema: retentionSetting });
}
