import type { AppContext } from '../context.js';
import type { Api } from '../http/api.js';

export function registerRecognitionRoutes(_api: Api, _ctx: AppContext): void {
  // Routes land with this feature.
}
