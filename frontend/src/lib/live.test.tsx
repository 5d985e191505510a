import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import { useLiveRuns, type LiveRunsOptions } from './live';
import type { LiveSink, LiveState, SocketFactory } from './api';
import { setup } from '../test/harness';
import RunPage from '../pages/RunPage';

/** A socket the test drives: its state, and the subscriptions the portal opened. */
function fakeSocket(initial: LiveState = 'open') {
  const subs: { variables: Record<string, unknown>; query: string; sink: LiveSink; closed: boolean }[] = [];
  let setState: (s: LiveState) => void = () => {};
  const factory: SocketFactory = (set) => {
    setState = set;
    set(initial);
    return {
      subscribe(payload, sink) {
        const s = { variables: payload.variables ?? {}, query: payload.query, sink, closed: false };
        subs.push(s);
        return () => {
          s.closed = true;
        };
      },
    };
  };
  const open = () => subs.filter((s) => !s.closed);
  return {
    factory,
    subs,
    open,
    state: (s: LiveState) => act(() => setState(s)),
    /** A runUpdated event on every open subscription. */
    push: (id: string, status: string) =>
      act(() => open().forEach((s) => s.sink.next({ data: { runUpdated: { __typename: 'Run', id, status } } }))),
  };
}

function Probe(props: LiveRunsOptions) {
  const mode = useLiveRuns(props);
  return <p data-testid="mode">{mode}</p>;
}

const mode = () => screen.getByTestId('mode').textContent;
const sleep = (ms: number) => act(() => new Promise((r) => setTimeout(r, ms)));

describe('useLiveRuns', () => {
  it('subscribes to the runs and re-reads the page on each burst of events, without polling', async () => {
    const sock = fakeSocket('open');
    const refresh = vi.fn();
    setup(<Probe ids={['r1', 'r2']} refresh={refresh} active fallbackMs={40} />, { handlers: {}, socket: sock.factory });
    await waitFor(() => expect(sock.open()).toHaveLength(1));
    expect(sock.subs[0].variables).toEqual({ ids: ['r1', 'r2'] });
    expect(sock.subs[0].query).toMatch(/subscription RunUpdated/);
    expect(mode()).toBe('live');
    await sleep(150);
    expect(refresh).not.toHaveBeenCalled(); // live: no polling
    // A run moving through three states at once is one re-read.
    sock.push('r1', 'dispatched');
    sock.push('r1', 'running');
    sock.push('r1', 'publishing');
    await waitFor(() => expect(refresh).toHaveBeenCalledTimes(1));
    await sleep(300);
    expect(refresh).toHaveBeenCalledTimes(1);
    sock.push('r2', 'succeeded');
    await waitFor(() => expect(refresh).toHaveBeenCalledTimes(2));
  });

  it('polls while the socket is down, and catches up once when it is back', async () => {
    const sock = fakeSocket('open');
    const refresh = vi.fn();
    setup(<Probe ids={['r1']} refresh={refresh} active fallbackMs={40} />, { handlers: {}, socket: sock.factory });
    await waitFor(() => expect(mode()).toBe('live'));
    sock.state('down');
    expect(mode()).toBe('polling');
    await waitFor(() => expect(refresh.mock.calls.length).toBeGreaterThanOrEqual(2));
    sock.state('open');
    expect(mode()).toBe('live');
    const n = refresh.mock.calls.length;
    await sleep(150);
    expect(refresh.mock.calls.length).toBe(n); // the catch-up re-read only, then no more polling
    expect(n).toBeGreaterThanOrEqual(3);
  });

  it('falls back to polling when the subscription fails', async () => {
    const sock = fakeSocket('open');
    const refresh = vi.fn();
    setup(<Probe ids={['r1']} refresh={refresh} active fallbackMs={40} />, { handlers: {}, socket: sock.factory });
    await waitFor(() => expect(sock.open()).toHaveLength(1));
    act(() => sock.subs[0].sink.error([{ message: 'unauthenticated' }]));
    await waitFor(() => expect(mode()).toBe('polling'));
    await waitFor(() => expect(refresh).toHaveBeenCalled());
  });

  it('polls without a socket, and does nothing when nothing can change', async () => {
    const refresh = vi.fn();
    const t = setup(<Probe ids={['r1']} refresh={refresh} active fallbackMs={40} />, { handlers: {} });
    expect(mode()).toBe('polling');
    await waitFor(() => expect(refresh).toHaveBeenCalled());
    t.unmount();
    const sock = fakeSocket('open');
    const idle = vi.fn();
    setup(<Probe ids={['r1']} refresh={idle} active={false} fallbackMs={40} />, { handlers: {}, socket: sock.factory });
    expect(mode()).toBe('idle');
    await sleep(120);
    expect(sock.subs).toHaveLength(0);
    expect(idle).not.toHaveBeenCalled();
  });

  it('watches every run for a list (ids null), even when none is active', async () => {
    const sock = fakeSocket('open');
    const refresh = vi.fn();
    setup(<Probe ids={null} refresh={refresh} active={false} always fallbackMs={40} />, { handlers: {}, socket: sock.factory });
    await waitFor(() => expect(sock.open()).toHaveLength(1));
    expect(sock.subs[0].variables).toEqual({ ids: null });
    expect(mode()).toBe('live'); // new runs arrive as events; nothing to poll for while none is active
    sock.push('r9', 'queued');
    await waitFor(() => expect(refresh).toHaveBeenCalledTimes(1));
  });
});

describe('useLiveRuns after a failed subscription', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });
  /** Advances the fake clock, letting React and urql settle. */
  const tick = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));
  /** Ends every open subscription with an error (as graphql-ws does, its subscription is then over). */
  const fail = (sock: ReturnType<typeof fakeSocket>) =>
    act(() =>
      sock.open().forEach((s) => {
        s.closed = true;
        s.sink.error([{ message: 'internal error' }]);
      }),
    );

  it('subscribes again after a backoff that grows and caps, polling meanwhile, and is live again with one catch-up re-read', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.5); // each wait: 3/4 of its ceiling
    const sock = fakeSocket('open');
    const reads: number[] = [];
    const refresh = vi.fn(() => {
      reads.push(Date.now());
    });
    setup(<Probe ids={['r1']} refresh={refresh} active fallbackMs={130} />, { handlers: {}, socket: sock.factory });
    await tick(0);
    expect(sock.open()).toHaveLength(1);
    expect(mode()).toBe('live');
    // Each failure in a row waits longer: ceilings of 1, 2, 4, 8, 16 s, then
    // 30 s for good.
    for (const ceiling of [1000, 2000, 4000, 8000, 16000, 30000, 30000]) {
      const wait = (ceiling * 3) / 4;
      fail(sock);
      await tick(0);
      const failedAt = Date.now();
      expect(mode()).toBe('polling');
      expect(sock.open()).toHaveLength(0);
      reads.length = 0;
      await tick(wait - 1);
      expect(sock.open()).toHaveLength(0); // still resting
      expect(mode()).toBe('polling');
      // Polled meanwhile (urql hands the failure over with the last event's
      // data, which counts as an event: one re-read BURST_MS after it).
      const polls = reads.filter((t) => t !== failedAt + 250);
      expect(polls.map((t) => t - failedAt)).toEqual(Array.from({ length: Math.floor((wait - 1) / 130) }, (_, i) => (i + 1) * 130));
      await tick(1);
      expect(sock.open()).toHaveLength(1); // subscribed again
      expect(sock.open()[0].variables).toEqual({ ids: ['r1'] });
      expect(mode()).toBe('live');
      // Live again: one re-read for what the socket missed, then no polling.
      expect(reads.filter((t) => t >= failedAt + wait)).toEqual([failedAt + wait]);
      reads.length = 0;
      await tick(1000);
      expect(reads).toEqual([]);
      sock.push('r1', 'running');
      await tick(300);
      expect(reads).toHaveLength(1);
    }
    expect(sock.subs.length).toBe(8);
  });

  it('starts the backoff afresh after the subscription lasted', async () => {
    vi.useFakeTimers();
    const sock = fakeSocket('open');
    setup(<Probe ids={['r1']} refresh={vi.fn()} active fallbackMs={100} />, { handlers: {}, socket: sock.factory });
    await tick(0);
    for (const ceiling of [1000, 2000, 4000]) {
      fail(sock);
      await tick(ceiling);
      expect(sock.open()).toHaveLength(1);
    }
    await tick(60_000); // up for a minute
    fail(sock);
    await tick(1000);
    expect(sock.open()).toHaveLength(1);
    expect(mode()).toBe('live');
  });

  it('clears its timers on unmount: no subscription, no re-read after', async () => {
    vi.useFakeTimers();
    const sock = fakeSocket('open');
    const refresh = vi.fn();
    const t = setup(<Probe ids={['r1']} refresh={refresh} active fallbackMs={100} />, { handlers: {}, socket: sock.factory });
    await tick(0);
    const idle = vi.getTimerCount();
    fail(sock);
    await tick(0);
    expect(mode()).toBe('polling');
    expect(vi.getTimerCount()).toBe(idle + 2); // the polling interval and the re-subscription
    t.unmount();
    expect(vi.getTimerCount()).toBe(idle);
    refresh.mockClear();
    await tick(120_000);
    expect(sock.subs).toHaveLength(1);
    expect(refresh).not.toHaveBeenCalled();
  });
});

describe('RunPage, live', () => {
  it('shows a status change pushed by the server without a reload', async () => {
    const sock = fakeSocket('open');
    let status = 'running';
    const run = () => ({
      data: {
        run: {
          __typename: 'Run', id: 'r1', kind: 'review', status, trigger: 'comment', prNumber: 7, prTitle: 'Add rate limiter', headSha: 'a', headRef: 'f', baseRef: 'main',
          incrementalSince: '', fullReviewReason: '', requester: 'alice', note: '', requestTarget: '', model: 'm', maxCostUsd: 2, createdAt: '2026-11-29T10:00:00Z',
          finishedAt: status === 'running' ? null : '2026-11-29T10:03:00Z', costUsd: 0.1, inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, totalTokens: 2,
          turns: 1, durationMs: 1000, summary: '', failureReason: '', failureDetail: '', findingsPosted: 0, findingsDropped: 0, changedFiles: 1, additions: 1, deletions: 0,
          cancellable: status === 'running', findingCounts: { __typename: 'SeverityCounts', blocker: 0, major: 0, minor: 0, nit: 0, total: 0 },
          repository: { __typename: 'Repository', id: 'repo1', fullName: 'acme/api' }, reviewer: { __typename: 'Reviewer', id: 'rv1', name: 'security' },
          links: { __typename: 'RunLinks', pullRequest: 'https://github.com/acme/api/pull/7', checkRun: null, actionsRun: null, review: null, incrementalCompare: null },
          timeline: [], learningsApplied: [], findings: { __typename: 'FindingConnection', totalCount: 0, edges: [] },
        },
      },
    });
    const t = setup(<RunPage id="r1" />, { handlers: { RunPage: run }, socket: sock.factory });
    const badge = () => t.container.querySelector('.page-head .badge')?.textContent;
    await waitFor(() => expect(badge()).toBe('running'));
    expect(screen.getByText('live')).toBeTruthy();
    await waitFor(() => expect(sock.open()).toHaveLength(1));
    expect(sock.subs[0].variables).toEqual({ ids: ['r1'] });
    status = 'succeeded';
    sock.push('r1', 'succeeded');
    await waitFor(() => expect(badge()).toBe('succeeded'));
    expect(t.callsOf('RunPage')).toHaveLength(2);
    // Finished: nothing left to watch.
    await waitFor(() => expect(sock.open()).toHaveLength(0));
    expect(screen.queryByText('live')).toBeNull();
  });
});
