import type { AppContext } from '../context.js';
import type { Api } from '../http/api.js';

export function registerSyncRoutes(_api: Api, _ctx: AppContext): void {
  // Routes land with this feature.
}
