import { describe, expect, it, vi } from 'vitest';
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
