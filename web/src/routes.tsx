/**
 * The site's route table (TanStack Router, code-based). Paths are part of the contract:
 * bookmarks and outside checks use them. Each page is its own chunk, loaded on first visit.
 */
import {
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
} from '@tanstack/react-router';
import { z } from 'zod';
import { NotFound } from './access';
import { App } from './App';

const rootRoute = createRootRoute({ component: App, notFoundComponent: NotFound });

/** A page number from the query (`?page=2`); anything else is page 1. */
const pageParam = z.coerce.number().int().min(1).optional().catch(undefined);
/** A query text parameter; empty means absent. */
const textParam = z
  .string()
  .optional()
  .catch(undefined)
  .transform((v) => (v === '' ? undefined : v));

export const peopleSearch = z.object({
  q: textParam,
  space: textParam,
  sort: z.enum(['name', '-name']).optional().catch(undefined),
  page: pageParam,
});
export type PeopleSearchParams = z.infer<typeof peopleSearch>;

export const eventsSearch = z.object({
  person: textParam,
  device: textParam,
  from: textParam,
  to: textParam,
  page: pageParam,
});
export type EventsSearchParams = z.infer<typeof eventsSearch>;

export const syncSearch = z.object({
  state: z.enum(['pending', 'running', 'succeeded', 'failed']).optional().catch(undefined),
  device: textParam,
  person: textParam,
  lane: z.enum(['priority', 'bulk']).optional().catch(undefined),
  reason: z.enum(['no_photo', 'other']).optional().catch(undefined),
  page: pageParam,
});
export type SyncSearchParams = z.infer<typeof syncSearch>;

export const changesSearch = z.object({
  state: z
    .enum(['pending', 'approved', 'rejected', 'superseded', 'all'])
    .optional()
    .catch(undefined),
  page: pageParam,
});
export type ChangesSearchParams = z.infer<typeof changesSearch>;

export const auditSearch = z.object({
  actor: textParam,
  action: textParam,
  outcome: textParam,
  targetType: textParam,
  targetId: textParam,
  from: textParam,
  to: textParam,
  page: pageParam,
});
export type AuditSearchParams = z.infer<typeof auditSearch>;

const routes = [
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/',
    component: lazyRouteComponent(() => import('./dashboard/DashboardPage'), 'DashboardPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/people',
    validateSearch: peopleSearch,
    component: lazyRouteComponent(() => import('./people/PeoplePage'), 'PeoplePage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/people/new',
    component: lazyRouteComponent(() => import('./people/PersonFormPage'), 'NewPersonPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/people/$id',
    component: lazyRouteComponent(() => import('./people/PersonPage'), 'PersonPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/people/$id/erasure',
    component: lazyRouteComponent(() => import('./people/ErasurePage'), 'ErasurePage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/people/$id/edit',
    component: lazyRouteComponent(() => import('./people/PersonFormPage'), 'EditPersonPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/events',
    validateSearch: eventsSearch,
    component: lazyRouteComponent(() => import('./events/EventsPage'), 'EventsPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/events/$id',
    component: lazyRouteComponent(() => import('./events/EventPage'), 'EventPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/sync',
    validateSearch: syncSearch,
    component: lazyRouteComponent(() => import('./sync/SyncPage'), 'SyncPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/spaces',
    validateSearch: z.object({ space: textParam }),
    component: lazyRouteComponent(() => import('./spaces/SpacesPage'), 'SpacesPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/devices',
    component: lazyRouteComponent(() => import('./devices/DevicesPage'), 'DevicesPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/devices/$id',
    component: lazyRouteComponent(() => import('./devices/DevicePage'), 'DevicePage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/system',
    component: lazyRouteComponent(() => import('./system/SystemPage'), 'SystemPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/organizations',
    component: lazyRouteComponent(
      () => import('./organizations/OrganizationsPage'),
      'OrganizationsPage',
    ),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/administrators',
    component: lazyRouteComponent(
      () => import('./administrators/AdministratorsPage'),
      'AdministratorsPage',
    ),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/enrollment/changes',
    validateSearch: changesSearch,
    component: lazyRouteComponent(() => import('./enrollment/ChangesPage'), 'ChangesPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/enrollment/changes/$id',
    component: lazyRouteComponent(() => import('./enrollment/ChangePage'), 'ChangePage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/audit',
    validateSearch: auditSearch,
    component: lazyRouteComponent(() => import('./audit/AuditPage'), 'AuditPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/import',
    component: lazyRouteComponent(() => import('./bulk/ImportPage'), 'ImportPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/settings',
    component: lazyRouteComponent(() => import('./settings/SettingsPage'), 'SettingsPage'),
  }),
] as const;

const routeTree = rootRoute.addChildren(routes);

/** Plain `?a=b` query strings (the default JSON-encodes values): `?q=123` stays text. */
function parseSearch(text: string): Record<string, unknown> {
  return Object.fromEntries(new URLSearchParams(text));
}

function stringifySearch(search: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(search)) {
    if (typeof value === 'string' || typeof value === 'number') {
      if (value !== '') query.set(key, String(value));
    }
  }
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

export const router = createRouter({
  routeTree,
  parseSearch,
  stringifySearch,
  defaultPreload: 'intent',
  // The query cache decides freshness; the router holds no data of its own.
  defaultPreloadStaleTime: 0,
  scrollRestoration: true,
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
