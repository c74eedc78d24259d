import type { AppContext } from './platform/context.js';
import { Api } from './platform/http/api.js';
import { registerAcceptanceRoutes } from './acceptance/routes.js';
import { registerAuditRoutes } from './audit/routes.js';
import { registerAuthRoutes } from './auth/routes.js';
import { authGuards } from './auth/middleware.js';
import { registerDiscoveryRoutes } from './discovery/routes.js';
import { registerHeartbeatRoutes } from './heartbeat/routes.js';
import { registerOrganizationRoutes } from './organizations/routes.js';
import { registerPanelRoutes } from './panel/routes.js';
import { registerSpaceRoutes } from './spaces/routes.js';
import { registerPeopleRoutes } from './people/routes.js';
import { registerPhotoRoutes } from './photos/routes.js';
import { registerPhotoVariantRoutes } from './photos/variants/routes.js';
import { registerDeviceRoutes } from './devices/routes.js';
import { registerAdministratorRoutes } from './administrators/routes.js';
import { registerEnrollmentRoutes } from './enrollment/routes.js';
import { registerBulkRoutes } from './bulk/routes.js';
import { registerDocsRoutes } from './platform/openapi/routes.js';
import { registerSyncRoutes } from './sync/routes.js';
import { registerRecognitionRoutes } from './recognition/routes.js';
import { registerSettingsRoutes } from './settings/routes.js';

/**
 * Every feature's routes, registered through one Api so each states its access rule and
 * schemas (the OpenAPI document and the route-table test read them from here).
 */
export const FEATURES: ((api: Api, ctx: AppContext) => void)[] = [
  registerHeartbeatRoutes,
  registerAuthRoutes,
  registerOrganizationRoutes,
  registerAuditRoutes,
  registerDiscoveryRoutes,
  registerPanelRoutes,
  registerSpaceRoutes,
  registerPeopleRoutes,
  registerPhotoRoutes,
  registerPhotoVariantRoutes,
  registerDeviceRoutes,
  registerAdministratorRoutes,
  registerEnrollmentRoutes,
  registerBulkRoutes,
  registerSyncRoutes,
  registerRecognitionRoutes,
  registerSettingsRoutes,
  registerAcceptanceRoutes,
  // Last: the OpenAPI document describes every route registered before it.
  registerDocsRoutes,
];

export function buildApi(ctx: AppContext): Api {
  const api = new Api(ctx, authGuards(ctx));
  for (const register of FEATURES) register(api, ctx);
  return api;
}
