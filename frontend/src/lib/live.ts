// Live run status: the runUpdated subscription over the GraphQL socket, with
// polling as the fallback while the socket is down.
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { useSubscription } from 'urql';
import { graphql } from '../gql';
import { RETRY_MAX_MS, backoffMs } from './api';
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
 * instead, and it re-reads once when the socket comes back. A failed
 * subscription rests for backoffMs (growing with each failure in a row) and
 * subscribes again, so a long-lived tab goes back to live updates by itself.
 */
export function useLiveRuns({ ids, refresh, active, fallbackMs, always = false }: LiveRunsOptions): LiveMode {
  const { api } = useSession();
  const socket = useSyncExternalStore(api.live.subscribe, api.live.state);
  const key = ids ? ids.join(',') : '*';
  // Stable variables while the ids are the same.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const variables = useMemo(() => ({ ids: ids && ids.length ? ids : null }), [key]);
  const want = socket !== 'off' && (active || always) && (ids === null || ids.length > 0);
  // After a failure the subscription rests (paused, which also clears
  // sub.error) for a backoff, then subscribes again.
  const [resting, setResting] = useState(false);
  const [sub] = useSubscription({ query: RunUpdatedSubscription, variables, pause: !want || resting }, (n: number = 0) => n + 1);
  const events = typeof sub.data === 'number' ? sub.data : 0;

  const retry = useRef({ failures: 0, since: 0 });
  useEffect(() => {
    if (sub.error) setResting(true);
  }, [sub.error]);
  useEffect(() => {
    if (!resting) return;
    const r = retry.current;
    // A subscription that lasted longer than the longest wait had recovered:
    // its failure starts the backoff afresh.
    if (Date.now() - r.since > RETRY_MAX_MS) r.failures = 0;
    const t = setTimeout(() => {
      r.failures++;
      r.since = Date.now();
      setResting(false);
    }, backoffMs(r.failures));
    return () => clearTimeout(t);
  }, [resting]);

  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;
  useEffect(() => {
    if (events === 0) return;
    const t = setTimeout(() => refreshRef.current(), BURST_MS);
    return () => clearTimeout(t);
  }, [events]);

  const live = want && !resting && socket === 'open' && !sub.error;
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
