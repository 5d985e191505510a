// Live run status: the runUpdated subscription over the GraphQL socket, with
// polling as the fallback while the socket is down.
import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import { useSubscription } from 'urql';
import { graphql } from '../gql';
import { usePolling } from './poll';
import { useSession } from './session';

export const RunUpdatedSubscription = graphql(`
  subscription RunUpdated($ids: [ID!]) {
    runUpdated(ids: $ids) {
      id
      status
    }
  }
`);

/** How a page's runs stay current: pushed by the server, polled, or neither
 * (nothing on the page can change). */
export type LiveMode = 'live' | 'polling' | 'idle';

export interface LiveRunsOptions {
  /** Runs to watch; null watches every run the viewer can see (new ones too). */
  ids: string[] | null;
  /** Re-reads the page's data (network-only). */
  refresh: () => void;
  /** Something on the page can still change: subscribe, or poll when the socket is down. */
  active: boolean;
  /** The fallback polling interval. */
  fallbackMs: number;
  /** Subscribe even while nothing is active (a list where new runs may appear); default false. */
  always?: boolean;
}

/** Coalesces the refreshes of a burst of events (a run moves through several states at once). */
const BURST_MS = 250;

/**
 * Keeps a page's runs current. Each runUpdated event for the watched runs
 * re-reads the page (the event says a run changed; the page's query brings
 * everything that changed with it: timeline, findings, cost). While the
 * socket is down or the subscription failed, it polls every fallbackMs
 * instead, and it re-reads once when the socket comes back.
 */
export function useLiveRuns({ ids, refresh, active, fallbackMs, always = false }: LiveRunsOptions): LiveMode {
  const { api } = useSession();
  const socket = useSyncExternalStore(api.live.subscribe, api.live.state);
  const key = ids ? ids.join(',') : '*';
  // Stable variables while the ids are the same.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const variables = useMemo(() => ({ ids: ids && ids.length ? ids : null }), [key]);
  const want = socket !== 'off' && (active || always) && (ids === null || ids.length > 0);
  const [sub] = useSubscription({ query: RunUpdatedSubscription, variables, pause: !want }, (n: number = 0) => n + 1);
  const events = typeof sub.data === 'number' ? sub.data : 0;

  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;
  useEffect(() => {
    if (events === 0) return;
    const t = setTimeout(() => refreshRef.current(), BURST_MS);
    return () => clearTimeout(t);
  }, [events]);

  const live = want && socket === 'open' && !sub.error;
  // Back from an outage: catch up on what the socket missed.
  const wasLive = useRef(live);
  const everLive = useRef(live);
  useEffect(() => {
    if (live && !wasLive.current && everLive.current) refreshRef.current();
    wasLive.current = live;
    if (live) everLive.current = true;
  }, [live]);

  const polling = active && !live;
  usePolling(refresh, fallbackMs, polling);
  return live ? 'live' : polling ? 'polling' : 'idle';
}
