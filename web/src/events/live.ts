import { useEffect, useRef, useState } from 'react';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

export interface LiveHandlers {
  /** By event name (`recognition`, `delivery`, `sync`): the message's parsed JSON. */
  on: Record<string, (data: unknown) => void>;
  /**
   * Called whenever the stream (re)opens and when it gives up: messages sent while it was not
   * open are lost, so the page reloads what it shows (a 401 then surfaces through that load).
   */
  onResync?: () => void;
}

const FIRST_RETRY_MS = 1_000;
const LONGEST_RETRY_MS = 30_000;

/**
 * `GET /api/recognition/stream` while the component is mounted. The browser retries a dropped
 * connection by itself; an answer that is not a stream (401, 503 from a proxy) closes the
 * EventSource for good, so then a new one is opened with a growing delay.
 */
export function useLiveStream(handlers: LiveHandlers): LiveStatus {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const latest = useRef(handlers);
  latest.current = handlers;
  const events = Object.keys(handlers.on).sort().join(',');

  useEffect(() => {
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let delay = FIRST_RETRY_MS;
    let stopped = false;

    const connect = () => {
      source = new EventSource('/api/recognition/stream', { withCredentials: true });
      for (const name of events.split(',').filter(Boolean)) {
        source.addEventListener(name, (message: MessageEvent<string>) => {
          let data: unknown;
          try {
            data = JSON.parse(message.data);
          } catch {
            return;
          }
          latest.current.on[name]?.(data);
        });
      }
      source.onopen = () => {
        setStatus('live');
        delay = FIRST_RETRY_MS;
        latest.current.onResync?.();
      };
      source.onerror = () => {
        if (stopped) return;
        setStatus('reconnecting');
        if (source?.readyState !== EventSource.CLOSED) return;
        source.close();
        latest.current.onResync?.();
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
  }, [events]);

  return status;
}
