import { SEEDED_ORGANIZATION_NAME } from '../constants.js';
import { LOCALES, type Locale } from '../locale.js';
import type { SharedTexts } from './types.js';

export type { ClientErrorCode, ConflictReason, ForbiddenReason, SharedTexts } from './types.js';

/** A language's shared texts, loaded on demand (a client bundles each as its own chunk). */
export async function loadSharedTexts(lng: Locale): Promise<SharedTexts> {
  return lng === 'zh-CN' ? (await import('./zh-CN.js')).zhCN : (await import('./en.js')).en;
}

/**
 * Whether a name typed by a person means the organization stored as `stored`: the same text, or,
 * while it still has the seed's name, that name as any language words it ("默认组织").
 */
export async function namesOrganization(stored: string, typed: string): Promise<boolean> {
  const name = typed.trim();
  if (stored === name) return true;
  if (stored !== SEEDED_ORGANIZATION_NAME) return false;
  const texts = await Promise.all(LOCALES.map((lng) => loadSharedTexts(lng)));
  return texts.some((t) => t.seeded.organization === name);
}
