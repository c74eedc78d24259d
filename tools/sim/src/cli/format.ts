import type { SimEvent } from '../deps.js';

const outcome = (status: number | null, error: string | undefined): string =>
  status === null ? `failed (${error ?? 'no answer'})` : String(status);

/** Whether an event still prints under --quiet: saves, faults, warnings and failures do. */
export function isNotable(event: SimEvent): boolean {
  switch (event.type) {
    case 'config-saved':
    case 'faults':
    case 'warning':
      return true;
    case 'announce':
      return event.error !== undefined;
    case 'checkin':
    case 'enroll':
    case 'heartbeat':
    case 'event-sent':
      return event.status === null || event.status >= 400;
    default:
      return false;
  }
}

/** One compact log line per event. */
export function formatEvent(event: SimEvent, now: Date): string {
  const prefix = `${now.toISOString()} ${event.node}`;
  switch (event.type) {
    case 'announce':
      return `${prefix} announce -> ${event.targets.join(' ') || '(none)'}${
        event.error ? ` failed: ${event.error}` : ''
      }`;
    case 'probe':
      return `${prefix} probe from ${event.from}`;
    case 'central-heard':
      return `${prefix} central ${event.url} heard from ${event.from}`;
    case 'config-saved':
      return `${prefix} config saved central=${event.centralUrl || '""'} panel=${event.panelUrl || '""'}`;
    case 'checkin':
      return `${prefix} checkin ${outcome(event.status, event.error)} ${event.url}`;
    case 'enroll':
      return `${prefix} enroll ${outcome(event.status, event.error)} ${event.url}`;
    case 'panel-event':
      return `${prefix} shows event ${event.eventId}`;
    case 'panel-repeat':
      return `${prefix} event ${event.eventId} delivered again: already shown, not shown twice`;
    case 'heartbeat':
      return `${prefix} heartbeat ${outcome(event.status, event.error)} ${event.url}`;
    case 'person':
      return `${prefix} person ${event.action} ${event.personId}`;
    case 'event-sent':
      return `${prefix} event ${event.eventId} ${outcome(event.status, event.error)}`;
    case 'faults':
      return `${prefix} faults ${JSON.stringify(event.faults)}`;
    case 'warning':
      return `${prefix} warning: ${event.message}`;
  }
}
