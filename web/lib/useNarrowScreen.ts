/**
 * Whether the window is phone-narrow, kept up to date as it turns or resizes. Lists read
 * it to show cards instead of a table whose columns would be crushed at that width.
 */
import { useSyncExternalStore } from 'react';

// Must match the `max-width` of the phone media queries in styles.css and runs.css.
export const NARROW_QUERY = '(max-width: 760px)';

function subscribe(notify: () => void) {
  const query = window.matchMedia(NARROW_QUERY);
  query.addEventListener('change', notify);
  return () => query.removeEventListener('change', notify);
}

export function useNarrowScreen(): boolean {
  return useSyncExternalStore(subscribe, () => window.matchMedia(NARROW_QUERY).matches, () => false);
}
