import type { Locale } from '../locale.js';
import type { SharedTexts } from './types.js';

export type { ClientErrorCode, ConflictReason, ForbiddenReason, SharedTexts } from './types.js';

/** A language's shared texts, loaded on demand (a client bundles each as its own chunk). */
export async function loadSharedTexts(lng: Locale): Promise<SharedTexts> {
  return lng === 'zh-CN' ? (await import('./zh-CN.js')).zhCN : (await import('./en.js')).en;
}
