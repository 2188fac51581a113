/**
 * Whether the window is narrower than a width, kept up to date as it turns or resizes.
 * Lists read it to show cards instead of a table whose columns would be crushed.
 */
import { useCallback, useSyncExternalStore } from 'react';

// Must match the `max-width` of the phone media queries in styles.css and runs.css.
export const NARROW_QUERY = '(max-width: 760px)';

/**
 * Where a table of many columns (the runs list's eight, the flow list's seven) crushes them
 * into ellipses, run numbers included: such lists show cards up to this width too.
 */
export const CROWDED_TABLE_QUERY = '(max-width: 1000px)';

export function useMediaQuery(query: string): boolean {
  // The same subscription for the same query, so a list that polls does not listen anew at every render.
  const subscribe = useCallback((notify: () => void) => {
    const list = window.matchMedia(query);
    list.addEventListener('change', notify);
    return () => list.removeEventListener('change', notify);
  }, [query]);
  return useSyncExternalStore(subscribe, () => window.matchMedia(query).matches, () => false);
}

/** Phone-narrow. */
export function useNarrowScreen(): boolean {
  return useMediaQuery(NARROW_QUERY);
}
