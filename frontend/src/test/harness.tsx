// Renders a page against a real urql client whose fetch answers from
// per-operation handlers. An operation without a handler fails the test.
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { Provider } from 'urql';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { createApi, type SocketFactory } from '../lib/api';
import { SessionContext, type ViewerInfo } from '../lib/session';

export interface Call {
  operationName: string;
  variables: Record<string, unknown>;
  headers: Headers;
}

/** A handler returns the GraphQL response body, or a promise of one (never
 * resolving = loading forever); throwing gives a network error. */
export type Handler = (variables: Record<string, any>) => unknown | Promise<unknown>;

export const pending = () => new Promise<never>(() => {});

export const user: ViewerInfo = { login: 'octo', name: 'Octo Cat', avatarURL: '', isAdmin: false, canWrite: true };
export const admin: ViewerInfo = { ...user, login: 'root', name: 'Admin', isAdmin: true };

/** setup's options; socket is the subscriptions' socket (default none: pages poll). */
export function setup(ui: ReactNode, opts: { handlers: Record<string, Handler>; viewer?: ViewerInfo; path?: string; socket?: SocketFactory; githubWebURL?: string }) {
  const calls: Call[] = [];
  const unexpected: string[] = [];
  const fakeFetch: typeof fetch = async (_input, init) => {
    const body = JSON.parse(String(init?.body ?? '{}'));
    const name: string = body.operationName ?? '';
    calls.push({ operationName: name, variables: body.variables ?? {}, headers: new Headers(init?.headers) });
    const h = opts.handlers[name];
    if (!h) {
      unexpected.push(name);
      throw new Error(`no handler for operation ${name}`);
    }
    const result = await h(body.variables ?? {});
    return new Response(JSON.stringify(result), { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
  const api = createApi({ fetch: fakeFetch, socket: opts.socket ?? null });
  const loc = memoryLocation({ path: opts.path ?? '/', record: true });
  const session = { viewer: opts.viewer ?? user, me: { csrfToken: 'tok', sandbox: false, sandboxUsers: [], github: true, authenticated: true }, api, githubWebURL: opts.githubWebURL ?? 'https://github.com' };
  const r = render(
    <Provider value={api.client}>
      <SessionContext.Provider value={session}>
        <Router hook={loc.hook} searchHook={loc.searchHook}>
          {ui}
        </Router>
      </SessionContext.Provider>
    </Provider>,
  );
  return { ...r, calls, unexpected, history: loc.history, api, callsOf: (op: string) => calls.filter((c) => c.operationName === op) };
}

export const pageInfo = (over: Partial<{ hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null }> = {}) => ({
  __typename: 'PageInfo',
  hasNextPage: false,
  hasPreviousPage: false,
  startCursor: null,
  endCursor: null,
  ...over,
});
