import { describe, expect, it } from 'vitest';
import { gql } from 'urql';
import { createApi, parseMe } from './api';

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
