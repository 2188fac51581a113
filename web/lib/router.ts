// A tiny history router: the app has a handful of pages and needs no more than this.
import { useSyncExternalStore, type MouseEvent } from 'react';

const subscribe = (notify: () => void) => {
  window.addEventListener('popstate', notify);
  return () => window.removeEventListener('popstate', notify);
};

export function usePath(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname);
}

export function navigate(path: string): void {
  if (path === window.location.pathname) return;
  window.history.pushState(null, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** A link's click handler: the app's own page, without reloading it. `<a href={path} onClick={followLink(path)}>`. */
export const followLink = (path: string) => (event: MouseEvent) => {
  event.preventDefault();
  navigate(path);
};
