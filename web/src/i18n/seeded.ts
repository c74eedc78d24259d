import { SEEDED_ADMIN_DISPLAY_NAME, SEEDED_ORGANIZATION_NAME } from '@svc/shared';
import { t } from './index';

/**
 * The seed's own names are stored in English; while one is unchanged it is shown in the reader's
 * language. A name an administrator gave (even in English) is shown as stored.
 */
export function organizationName(name: string): string {
  return name === SEEDED_ORGANIZATION_NAME ? t('seeded.organization', { ns: 'shared' }) : name;
}

/** An administrator's display name; the seeded administrator's own in the reader's language. */
export function displayName(name: string): string {
  return name === SEEDED_ADMIN_DISPLAY_NAME ? t('seeded.administrator', { ns: 'shared' }) : name;
}
