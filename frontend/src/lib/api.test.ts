import { afterEach, describe, expect, it, vi } from 'vitest';
import { gql } from 'urql';
import { backoffMs, createApi, graphqlWsSocket, parseMe, type LiveState } from './api';

interface Seen {
  url: string;
  method: string;
  csrf: string | null;
}

function server(opts: { tokens: string[]; rejectFirstPost?: boolean }) {
  const seen: Seen[] = [];
  let meCalls = 0;
  let rejected = false;
  const f: typeof fetch = async (input, init) => {
    const url = String(input);
    const headers = new Headers(init?.headers);
    seen.push({ url, method: init?.method ?? 'GET', csrf: headers.get('X-CSRF-Token') });
    if (url === '/api/me') {
      const token = opts.tokens[Math.min(meCalls++, opts.tokens.length - 1)];
      return Response.json({ authenticated: true, user: { login: 'octo' }, csrfToken: token, login: { github: false, sandbox: true } });
    }
    if (opts.rejectFirstPost && !rejected) {
      rejected = true;
      return new Response('Forbidden - CSRF token invalid', { status: 403 });
    }
    return Response.json({ data: { viewer: { __typename: 'Viewer', login: 'octo' } } });
  };
  return { f, seen, meCalls: () => meCalls };
}

describe('createApi', () => {
  it('sends the token from /api/me on GraphQL requests, as POST', async () => {
    const s = server({ tokens: ['t1'] });
    const api = createApi({ fetch: s.f });
    const me = await api.loadMe();
    expect(me).toEqual({ csrfToken: 't1', sandbox: true, sandboxUsers: [], github: false, authenticated: true });
    const r = await api.client.query(gql`query V { viewer { login } }`, {}).toPromise();
    expect(r.error).toBeUndefined();
    const gqlCall = s.seen.find((c) => c.url === '/graphql')!;
    expect(gqlCall).toMatchObject({ method: 'POST', csrf: 't1' });
  });

  it('refreshes the token once when the CSRF check refuses a POST', async () => {
    const s = server({ tokens: ['old', 'new'], rejectFirstPost: true });
    const api = createApi({ fetch: s.f });
    await api.loadMe();
    const r = await api.client.mutation(gql`mutation M { x }`, {}).toPromise();
    expect(r.error).toBeUndefined();
    const posts = s.seen.filter((c) => c.url === '/graphql');
    expect(posts.map((p) => p.csrf)).toEqual(['old', 'new']);
    expect(s.meCalls()).toBe(2);
  });

  it('takes a rotated token from a response header', async () => {
    const seen: (string | null)[] = [];
    const api = createApi({
      fetch: async (_i, init) => {
        seen.push(new Headers(init?.headers).get('X-CSRF-Token'));
        return Response.json({ data: { a: 1 } }, { headers: { 'X-CSRF-Token': 'rotated' } });
      },
    });
    await api.fetch('/graphql', { method: 'POST' });
    await api.fetch('/graphql', { method: 'POST' });
    expect(seen).toEqual([null, 'rotated']);
  });
});

describe('parseMe', () => {
  it.each([
    ['the API shape', { authenticated: true, user: { login: 'o' }, csrfToken: 'a', login: { github: true, sandbox: false } }, null, { csrfToken: 'a', sandbox: false, sandboxUsers: [], github: true, authenticated: true }],
    ['sandbox only', { authenticated: false, csrfToken: 'b', login: { github: false, sandbox: true } }, null, { csrfToken: 'b', sandbox: true, sandboxUsers: [], github: false, authenticated: false }],
    ['header wins', { csrfToken: 'a' }, 'h', { csrfToken: 'h', sandbox: false, sandboxUsers: [], github: true, authenticated: false }],
    ['anonymous', { user: null }, 'h', { csrfToken: 'h', sandbox: false, sandboxUsers: [], github: true, authenticated: false }],
    ['not JSON', null, null, { csrfToken: '', sandbox: false, sandboxUsers: [], github: true, authenticated: false }],
  ])('%s', (_n, body, header, want) => {
    expect(parseMe(body, header)).toEqual(want);
  });
});

describe('backoffMs', () => {
  it('starts near a second, doubles, and caps at 30 s, drawing from the upper half of each step', () => {
    const ceilings = [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000];
    ceilings.forEach((c, attempt) => {
      expect(backoffMs(attempt, () => 0)).toBe(c / 2);
      expect(backoffMs(attempt, () => 0.999999)).toBeLessThanOrEqual(c);
      expect(backoffMs(attempt, () => 0.999999)).toBeGreaterThan(c * 0.99);
    });
    expect(backoffMs(5000, () => 0.5)).toBe(22500); // no overflow however long the outage
  });
});

/** A browser WebSocket against a server that is down (the connection is
 * refused: an error event, then close 1006, as browsers report it) or up
 * (it opens and acknowledges graphql-transport-ws's connection_init). */
class FakeWebSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static up = false;
  /** The server closes the socket at connection_init with this code (0: it acknowledges). */
  static refuseWith = 0;
  /** When each socket was made (the fake clock). */
  static made: number[] = [];
  readyState = FakeWebSocket.CONNECTING;
  protocol = 'graphql-transport-ws';
  onopen: (() => void) | null = null;
  onclose: ((e: { code: number; reason: string; wasClean: boolean }) => void) | null = null;
  onerror: ((e: Event) => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  constructor() {
    FakeWebSocket.made.push(Date.now());
    const up = FakeWebSocket.up;
    queueMicrotask(() => {
      if (up) {
        this.readyState = FakeWebSocket.OPEN;
        this.onopen?.();
        return;
      }
      this.readyState = FakeWebSocket.CLOSED;
      this.onerror?.(new Event('error'));
      this.onclose?.({ code: 1006, reason: '', wasClean: false });
    });
  }
  send(data: string) {
    if (JSON.parse(data).type !== 'connection_init') return;
    const refuse = FakeWebSocket.refuseWith;
    queueMicrotask(() => {
      if (refuse) {
        this.readyState = FakeWebSocket.CLOSED;
        this.onclose?.({ code: refuse, reason: 'session or API token no longer valid; sign in again', wasClean: true });
        return;
      }
      this.onmessage?.({ data: JSON.stringify({ type: 'connection_ack' }) });
    });
  }
  close(code = 1000, reason = '') {
    this.readyState = FakeWebSocket.CLOSED;
    this.onclose?.({ code, reason, wasClean: true });
  }
}

describe('graphqlWsSocket', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('keeps reconnecting while the server is down, with capped growing waits, and is open again once it is back', async () => {
    await import('graphql-ws'); // loaded, so the socket's lazy import resolves without timers
    vi.useFakeTimers();
    vi.stubGlobal('WebSocket', FakeWebSocket);
    FakeWebSocket.up = false;
    FakeWebSocket.made = [];
    const states: LiveState[] = [];
    const sink = { next: vi.fn(), error: vi.fn(), complete: vi.fn() };
    const stop = graphqlWsSocket('/graphql')((s) => states.push(s)).subscribe({ query: 'subscription { runUpdated { id } }' }, sink);
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeWebSocket.made).toHaveLength(1);
    // Well past graphql-ws's default 5 (and the old 6) attempts.
    while (FakeWebSocket.made.length < 12) await vi.advanceTimersToNextTimerAsync();
    expect(sink.error).not.toHaveBeenCalled();
    const waits = FakeWebSocket.made.slice(1).map((t, i) => t - FakeWebSocket.made[i]);
    waits.forEach((w, i) => {
      const ceiling = Math.min(30_000, 1000 * 2 ** i);
      expect(w).toBeGreaterThanOrEqual(ceiling / 2);
      expect(w).toBeLessThanOrEqual(ceiling);
    });
    expect(Math.max(...waits)).toBeGreaterThan(15_000); // it did back off
    expect(states.at(-1)).toBe('down');
    // The server is back: the next attempt connects.
    FakeWebSocket.up = true;
    await vi.advanceTimersToNextTimerAsync();
    expect(FakeWebSocket.made).toHaveLength(13);
    expect(states.at(-1)).toBe('open');
    expect(sink.error).not.toHaveBeenCalled();
    stop();
  });

  it('stops at the server\'s 4403 (session or token gone) instead of knocking again, and reports it to the subscription', async () => {
    await import('graphql-ws');
    vi.useFakeTimers();
    vi.stubGlobal('WebSocket', FakeWebSocket);
    FakeWebSocket.up = true;
    FakeWebSocket.refuseWith = 4403;
    FakeWebSocket.made = [];
    try {
      const states: LiveState[] = [];
      const sink = { next: vi.fn(), error: vi.fn(), complete: vi.fn() };
      const stop = graphqlWsSocket('/graphql')((s) => states.push(s)).subscribe({ query: 'subscription { runUpdated { id } }' }, sink);
      await vi.advanceTimersByTimeAsync(0);
      await vi.advanceTimersByTimeAsync(120_000); // long past every retry wait
      expect(FakeWebSocket.made).toHaveLength(1);
      expect(sink.error).toHaveBeenCalledTimes(1);
      expect(sink.error.mock.calls[0][0]).toMatchObject({ code: 4403 });
      expect(states.at(-1)).toBe('down');
      stop();
    } finally {
      FakeWebSocket.refuseWith = 0;
    }
  });

  it('loads graphql-ws again for the next subscription when loading it failed', async () => {
    vi.stubGlobal('WebSocket', FakeWebSocket);
    FakeWebSocket.up = true;
    let offline = true;
    vi.doMock('graphql-ws', async (original) => {
      if (offline) throw new Error('Failed to fetch dynamically imported module');
      return original();
    });
    try {
      const states: LiveState[] = [];
      const socket = graphqlWsSocket('/graphql')((s) => states.push(s));
      const first = { next: vi.fn(), error: vi.fn(), complete: vi.fn() };
      socket.subscribe({ query: 'subscription { runUpdated { id } }' }, first);
      await vi.waitFor(() => expect(first.error).toHaveBeenCalled());
      expect(states.at(-1)).toBe('down');
      offline = false;
      const second = { next: vi.fn(), error: vi.fn(), complete: vi.fn() };
      const stop = socket.subscribe({ query: 'subscription { runUpdated { id } }' }, second);
      await vi.waitFor(() => expect(states.at(-1)).toBe('open'));
      expect(second.error).not.toHaveBeenCalled();
      stop();
    } finally {
      vi.doUnmock('graphql-ws');
    }
  });
});
