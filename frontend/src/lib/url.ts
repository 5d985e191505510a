// Page state that lives in the URL's query string, so filters and pages
// survive a reload and can be shared as links.
import { useCallback, useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';

/** Keys every paginated page uses for its cursors. */
export const CURSOR_KEYS = ['after', 'before'] as const;

export type Patch = Record<string, string | null | undefined>;

/** Applies patch to a query string: empty values are removed; changing any
 * key other than the cursors drops the cursors (back to the first page). */
export function applyPatch(search: string, patch: Patch): string {
  const params = new URLSearchParams(search);
  const touchesFilter = Object.keys(patch).some((k) => !(CURSOR_KEYS as readonly string[]).includes(k));
  if (touchesFilter) for (const k of CURSOR_KEYS) params.delete(k);
  for (const [k, v] of Object.entries(patch)) {
    if (v == null || v === '') params.delete(k);
    else params.set(k, v);
  }
  params.sort();
  const s = params.toString();
  return s ? '?' + s : '';
}

/** Reads the named query parameters and returns a setter that pushes a new URL. */
export function useUrlState<K extends string>(keys: readonly K[]): [Record<K, string>, (patch: Partial<Record<K | 'after' | 'before', string | null>>) => void] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const values = useMemo(() => {
    const p = new URLSearchParams(search);
    const out = {} as Record<K, string>;
    for (const k of keys) out[k] = p.get(k) ?? '';
    return out;
    // keys is a constant list at each call site.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [search]);
  const set = useCallback(
    (patch: Patch) => {
      navigate(location + applyPatch(search, patch));
    },
    [location, navigate, search],
  );
  return [values, set];
}
