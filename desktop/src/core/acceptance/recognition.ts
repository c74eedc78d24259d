import type { DisplayStatus } from '@svc/shared';
import type { EventLite } from '../clients/central-client.js';
import { ReachError } from '../clients/http.js';
import { terminalBase } from '../clients/terminal-client.js';
import type { TerminalEntry } from '../terminal-directory.js';
import { t } from '../i18n.js';
import { localClock } from '../texts.js';
import type { Evidence } from './layers.js';
import type { RunnerDeps } from './runner.js';

const fact = (label: string, value: string, ok: boolean): Evidence => ({ label, value, ok });

/**
 * The display the panel route points to (local mode, matched by address and port), or every
 * display heard when the route names none of them.
 */
async function displaysToCheck(
  deps: RunnerDeps,
): Promise<{ displays: TerminalEntry[]; route: Evidence }> {
  const displays = deps.terminals().filter((t) => t.kind === 'display');
  // The route is shared by every organization: an organization's administrator may not read
  // it (403), which says who can, not that the service failed.
  let refused = false;
  const route = await deps.central.panelRoute().then(
    (r) => r.value,
    (err: unknown) => {
      refused = err instanceof ReachError && err.status === 403;
      return null;
    },
  );
  let target: URL | null = null;
  try {
    target = route?.mode === 'local' && route.url ? new URL(route.url) : null;
  } catch {
    target = null;
  }
  const routed = target
    ? displays.find(
        (d) => d.address === target.hostname && String(d.port) === (target.port || '80'),
      )
    : undefined;
  if (routed) {
    return {
      displays: [routed],
      route: fact(
        t('evidence.panelRoute'),
        t('evidence.routeDisplay', { url: route?.url ?? '', id: routed.id }),
        true,
      ),
    };
  }
  const why = !route
    ? refused
      ? t('evidence.routeSuperadminOnly')
      : t('evidence.routeUnreadable')
    : route.mode === 'cloud'
      ? t('evidence.routeCloud')
      : route.url
        ? t('evidence.routeNoDisplay', { url: route.url })
        : t('evidence.routeNotSet');
  return {
    displays,
    route: fact(t('evidence.panelRoute'), t('evidence.everyDisplay', { why }), true),
  };
}

export async function runRecognition(deps: RunnerDeps): Promise<Evidence[]> {
  const c = deps.central;
  const { displays, route } = await displaysToCheck(deps);
  if (displays.length === 0) {
    return [route, fact(t('evidence.displayTerminal'), t('evidence.noneHeard'), false)];
  }
  const events = (await c.events({ page: '1' })).value.items;
  const latest = events[0];
  if (!latest) return [fact(t('evidence.centralEvent'), t('evidence.noEvent'), false)];
  const out: Evidence[] = [
    route,
    fact(
      t('evidence.centralEvent'),
      t('evidence.eventAt', {
        person: latest.person?.name ?? t('evidence.stranger'),
        sn: latest.device?.sn ?? '?',
        at: localClock(latest.time),
      }),
      true,
    ),
  ];
  const checks = await Promise.all(displays.map((d) => displayFacts(deps, d, latest)));
  // With several displays checked, the loop holds when one of them shows the event.
  const best = checks.find((facts) => facts.every((f) => f.ok)) ?? checks[0] ?? [];
  const others = checks
    .filter((facts) => facts !== best)
    .map((facts) => facts[0])
    .filter((f): f is Evidence => f !== undefined)
    .map((f) => ({ ...f, label: t('evidence.alsoChecked', { label: f.label }), ok: true }));
  return [...out, ...best, ...others];
}

async function displayFacts(
  deps: RunnerDeps,
  display: TerminalEntry,
  latest: EventLite,
): Promise<Evidence[]> {
  const where = `${display.address}:${display.port}`;
  let shown: DisplayStatus['lastEvent'];
  try {
    shown = (await deps.terminalClient.status(terminalBase(display.address, display.port)))
      .lastEvent;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return [
      fact(
        t('evidence.displayShows', { id: display.id }),
        t('evidence.displayUnreadable', {
          id: display.id,
          where,
          reason,
          address: display.address,
        }),
        false,
      ),
    ];
  }
  const out: Evidence[] = [
    fact(
      t('evidence.displayShows', { id: display.id }),
      shown
        ? t('evidence.eventAt', {
            person: shown.person?.name ?? t('evidence.stranger'),
            sn: shown.device.sn,
            at: localClock(shown.time),
          })
        : t('evidence.nothingYet'),
      shown !== null,
    ),
  ];
  if (shown) {
    out.push(
      fact(
        t('evidence.samePerson'),
        `${latest.person?.id ?? 'null'} / ${shown.person?.id ?? 'null'}`,
        (latest.person?.id ?? null) === (shown.person?.id ?? null),
      ),
    );
    out.push(
      fact(
        t('evidence.sameDevice'),
        `${latest.device?.sn ?? '?'} / ${shown.device.sn}`,
        latest.device?.sn === shown.device.sn,
      ),
    );
    const sameTime = latest.time === shown.time;
    out.push(
      fact(
        t('evidence.sameTime'),
        sameTime
          ? t('evidence.toTheMillisecond', { at: localClock(latest.time) })
          : `${localClock(latest.time)} / ${localClock(shown.time)}`,
        sameTime,
      ),
    );
  }
  return out;
}
