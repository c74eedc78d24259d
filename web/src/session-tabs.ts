/**
 * The site's tabs in one browser share one session cookie: what one tab does to the session
 * (signs in, as whom; signs out; chooses an organization) changes it under the others. Each
 * tells the others, which then ask the server who they are now (session.tsx), so that a form
 * left open in one tab is never saved as another account, or into another organization.
 */
export type TabNews = 'signedIn' | 'signedOut' | 'organization';

const channel =
  typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('svc-session');

export function tellOtherTabs(news: TabNews): void {
  channel?.postMessage(news);
}

/** Calls `listener` when another tab changed the session; returns the unsubscribe function. */
export function onOtherTabs(listener: (news: TabNews) => void): () => void {
  if (channel === null) return () => undefined;
  const handle = (event: MessageEvent<unknown>) => {
    if (event.data === 'signedIn' || event.data === 'signedOut' || event.data === 'organization') {
      listener(event.data);
    }
  };
  channel.addEventListener('message', handle);
  return () => channel.removeEventListener('message', handle);
}
