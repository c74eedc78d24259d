import { deliveryChange, syncChange } from '@svc/shared';
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { keys, queryClient } from './query';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

const FIRST_RETRY_MS = 1_000;
const LONGEST_RETRY_MS = 30_000;

/**
 * Stale keys are invalidated together a moment later: a backfill sends thousands of sync
 * messages a second, and a page's queries need one refetch for a burst, not one per message.
 */
const COALESCE_MS = 200;
const stale = new Map<string, readonly unknown[]>();
let flush: ReturnType<typeof setTimeout> | undefined;

function invalidate(queryKey: readonly unknown[]): void {
  stale.set(JSON.stringify(queryKey), queryKey);
  flush ??= setTimeout(() => {
    flush = undefined;
    const keysNow = [...stale.values()];
    stale.clear();
    for (const key of keysNow) void queryClient.invalidateQueries({ queryKey: key });
  }, COALESCE_MS);
}

/** What each stream message makes stale (the queries refetch if a page shows them). */
function invalidateFor(event: string, data: unknown): void {
  switch (event) {
    case 'recognition':
      invalidate(keys.events);
      invalidate(keys.heartbeat);
      return;
    case 'delivery':
      if (deliveryChange.safeParse(data).success) invalidate(keys.events);
      return;
    case 'sync': {
      const parsed = syncChange.safeParse(data);
      if (parsed.success) invalidate(keys.personSync(parsed.data.personId));
      invalidate(keys.devices);
      invalidate(keys.sync);
      return;
    }
  }
}

/**
 * `GET /api/recognition/stream` while signed in. The browser retries a dropped connection by
 * itself; an answer that is not a stream (401, 503 from a proxy) closes the EventSource for
 * good, so then a new one is opened with a growing delay. Every (re)open invalidates all
 * queries: messages sent while it was away are lost.
 */
function useLiveStream(active: boolean): LiveStatus {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  useEffect(() => {
    if (!active) {
      setStatus('reconnecting');
      return;
    }
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let delay = FIRST_RETRY_MS;
    let stopped = false;

    const connect = () => {
      source = new EventSource('/api/recognition/stream', { withCredentials: true });
      for (const name of ['recognition', 'delivery', 'sync']) {
        source.addEventListener(name, (message: MessageEvent<string>) => {
          let data: unknown;
          try {
            data = JSON.parse(message.data);
          } catch {
            return;
          }
          invalidateFor(name, data);
        });
      }
      source.onopen = () => {
        setStatus('live');
        delay = FIRST_RETRY_MS;
        // A request already in flight (the page's first load) answers for it: not cancelled.
        void queryClient.invalidateQueries(undefined, { cancelRefetch: false });
      };
      source.onerror = () => {
        if (stopped) return;
        setStatus('reconnecting');
        if (source?.readyState !== EventSource.CLOSED) return;
        source.close();
        void queryClient.invalidateQueries();
        retry = setTimeout(connect, delay);
        delay = Math.min(delay * 2, LONGEST_RETRY_MS);
      };
    };
    connect();

    return () => {
      stopped = true;
      clearTimeout(retry);
      source?.close();
    };
  }, [active]);
  return status;
}

const LiveContext = createContext<LiveStatus>('connecting');

/** One stream for the signed-in site; pages read its state with `useLiveStatus`. */
export function LiveProvider({ children, active }: { children: ReactNode; active: boolean }) {
  const status = useLiveStream(active);
  return <LiveContext.Provider value={status}>{children}</LiveContext.Provider>;
}

export function useLiveStatus(): LiveStatus {
  return useContext(LiveContext);
}
