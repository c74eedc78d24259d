/**
 * A small history-based router: the site has a handful of pages, so a path matcher and
 * `pushState` are enough and no routing library ships to the browser.
 */
import { Anchor, NavLink, type AnchorProps, type NavLinkProps } from '@mantine/core';
import { useSyncExternalStore, type MouseEvent, type ReactNode } from 'react';

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

const snapshot = () => `${window.location.pathname}${window.location.search}`;

export interface Location {
  path: string;
  /** The query string as text (stable across renders: use it in effect dependencies). */
  search: string;
  query: URLSearchParams;
}

/** The current path and query; re-renders on navigation and on back/forward. */
export function useLocation(): Location {
  const current = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(current, window.location.origin);
  return { path: url.pathname, search: url.search, query: url.searchParams };
}

/** Goes to `to` (path and query); `replace` keeps the history entry (filters typed in a box). */
export function navigate(to: string, { replace = false }: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  if (replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

/** `to` with the query replaced by `params` (empty values left out). */
export function withQuery(
  path: string,
  params: Record<string, string | number | undefined>,
): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') query.set(key, String(value));
  }
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** Matches `/people/:id/edit` style patterns; the parameters, or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.replace(/\/+$/, '').split('/');
  if (path === '/') got.splice(1, 1, '');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] ?? '';
    const g = got[i] ?? '';
    if (w.startsWith(':')) {
      if (g === '') return null;
      params[w.slice(1)] = decodeURIComponent(g);
    } else if (w !== g) return null;
  }
  return params;
}

/** Plain left clicks stay in the app; modified clicks (new tab) are the browser's. */
function follow(to: string) {
  return (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
      return;
    }
    event.preventDefault();
    navigate(to);
  };
}

/** `href` and `onClick` for any anchor-like component (`<Button component="a" {...linkTo(...)}>`). */
export function linkTo(to: string) {
  return { href: to, onClick: follow(to) };
}

export function Link({
  to,
  children,
  ...props
}: AnchorProps & { to: string; children: ReactNode; 'data-testid'?: string }) {
  return (
    <Anchor href={to} onClick={follow(to)} {...props}>
      {children}
    </Anchor>
  );
}

export function NavLinkTo({
  to,
  onNavigate,
  ...props
}: NavLinkProps & { to: string; onNavigate?: () => void; 'aria-current'?: 'page' }) {
  const go = follow(to);
  return (
    <NavLink
      component="a"
      href={to}
      {...props}
      onClick={(event: MouseEvent<HTMLAnchorElement>) => {
        go(event);
        onNavigate?.();
      }}
    />
  );
}
