/**
 * Filters kept in the address (`/runs?status=failed&flow=…`), so a filtered list can be
 * bookmarked or shared. Changing a filter replaces the address rather than adding to the
 * browser's history, so Back leaves the page instead of undoing each keystroke.
 */
import { useCallback, useState } from 'react';

export function useUrlState<Name extends string>(names: readonly Name[]): [Record<Name, string>, (name: Name, value: string) => void] {
  const [values, setValues] = useState(() => {
    const params = new URLSearchParams(window.location.search);
    return Object.fromEntries(names.map((name) => [name, params.get(name) ?? ''])) as Record<Name, string>;
  });
  const set = useCallback((name: Name, value: string) => {
    setValues((current) => ({ ...current, [name]: value }));
    const url = new URL(window.location.href);
    if (value) url.searchParams.set(name, value);
    else url.searchParams.delete(name);
    window.history.replaceState(window.history.state, '', url);
  }, []);
  return [values, set];
}
