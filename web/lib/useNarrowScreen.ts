/**
 * Whether the window is narrower than a width, kept up to date as it turns or resizes.
 * Lists read it to show cards instead of a table whose columns would be crushed.
 */
import { useSyncExternalStore } from 'react';

// Must match the `max-width` of the phone media queries in styles.css and runs.css.
export const NARROW_QUERY = '(max-width: 760px)';

/**
 * Where a table of many columns (the runs list's eight, the flow list's seven) crushes them
 * into ellipses, run numbers included: such lists show cards up to this width too.
 */
export const CROWDED_TABLE_QUERY = '(max-width: 1000px)';

export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (notify) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', notify);
      return () => list.removeEventListener('change', notify);
    },
    () => window.matchMedia(query).matches,
    () => false,
  );
}

/** Phone-narrow. */
export function useNarrowScreen(): boolean {
  return useMediaQuery(NARROW_QUERY);
}
