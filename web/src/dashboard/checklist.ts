/**
 * The first session's steps in the seed's order (issue 30, item 15), each judged from what the
 * service holds now, never from what the site remembers: a step ticks itself once it is true.
 */
import { auditList, listOf, recognitionEventList, spaceOut, syncTaskList } from '@svc/shared';
import { heartbeat, request, withQuery } from '../api';
import { listAdministrators } from '../administrators/api';
import { listOrganizations } from '../organizations/api';
import { listAllDevices } from '../devices/api';
import { listNodes } from '../system/api';
import { centralState } from '../system/central';

export type StepPath =
  | '/'
  | '/organizations'
  | '/administrators'
  | '/spaces'
  | '/system'
  | '/devices'
  | '/people'
  | '/events';

export interface Step {
  /** Its texts: `checklist.<id>.label` and `.hint` (what to do there while it is not done). */
  id: string;
  done: boolean;
  to: StepPath;
}

/**
 * `superadmin`: only they can set and test the panel route, so only their list has that step;
 * an organization's administrator would otherwise be told to do what the site refuses them.
 */
export async function loadChecklist(superadmin: boolean, signal?: AbortSignal): Promise<Step[]> {
  const [status, orgs, admins, spaces, nodes, devices, panelTests, synced, events] =
    await Promise.all([
      heartbeat(signal),
      listOrganizations(signal ?? new AbortController().signal),
      listAdministrators(signal),
      request('GET', withQuery('/api/spaces', { page: 1, pageSize: 1 }), {
        schema: listOf(spaceOut),
        signal,
      }),
      listNodes(signal),
      listAllDevices(signal),
      superadmin
        ? request('GET', withQuery('/api/audit', { action: 'panel.test', outcome: 'success' }), {
            schema: auditList,
            signal,
          })
        : null,
      request('GET', withQuery('/api/sync/tasks', { state: 'succeeded', page: 1, pageSize: 1 }), {
        schema: syncTaskList,
        signal,
      }),
      request('GET', withQuery('/api/recognition/events', { page: 1, pageSize: 1 }), {
        schema: recognitionEventList,
        signal,
      }),
    ]);
  const heard = (kind: string) => nodes.some((n) => n.kind === kind);
  const steps: (Step | null)[] = [
    {
      id: 'service',
      done: status.state === 1,
      to: '/',
    },
    {
      id: 'organization',
      done: orgs.items.length > 0,
      to: '/organizations',
    },
    {
      id: 'administrators',
      done: admins.length > 1,
      to: '/administrators',
    },
    { id: 'spaces', done: spaces.total > 0, to: '/spaces' },
    {
      id: 'terminals',
      done: heard('enrollment') && heard('display'),
      to: '/system',
    },
    {
      id: 'central',
      done: centralState(nodes).done,
      to: '/system',
    },
    panelTests && {
      id: 'panel',
      done: panelTests.total > 0,
      to: '/system',
    },
    {
      id: 'devices',
      // Every device in use answers: one online of three is not a site whose devices are up.
      done: devices.some((d) => d.enabled) && devices.every((d) => !d.enabled || d.online),
      to: '/devices',
    },
    {
      id: 'people',
      done: synced.total > 0,
      to: '/people',
    },
    {
      id: 'recognition',
      done: events.total > 0,
      to: '/events',
    },
  ];
  return steps.filter((step) => step !== null);
}
