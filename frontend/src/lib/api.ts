// The portal's connection to Chakshu: a urql client whose requests carry the
// session cookie and the CSRF token from GET /api/me.
import { Client, cacheExchange, fetchExchange, subscriptionExchange } from 'urql';

/** What GET /api/me tells the portal before any GraphQL call. */
export interface Me {
  csrfToken: string;
  /** Sandbox mode: offer the one-click sandbox login (POST /auth/sandbox). */
  sandbox: boolean;
  /** The sandbox logins on offer (POST /auth/sandbox login=…): the admin
   * first, then a non-admin; empty when the server names none. */
  sandboxUsers: string[];
  /** GitHub OAuth login is configured (GET /auth/login). */
  github: boolean;
  authenticated: boolean;
}

export interface ApiOptions {
  /** GraphQL endpoint; default /graphql. */
  url?: string;
  /** For tests; default the browser's fetch. */
  fetch?: typeof fetch;
  /** The subscriptions' socket; default graphql-ws on the GraphQL endpoint,
   * null for none (the pages then poll). */
  socket?: SocketFactory | null;
}

/** Where the subscriptions' socket is: off (none configured), connecting,
 * open, or down (closed or failing; pages poll meanwhile). */
export type LiveState = 'off' | 'connecting' | 'open' | 'down';

/** Receives one subscription's results. */
export interface LiveSink {
  next(value: unknown): void;
  error(err: unknown): void;
  complete(): void;
}

/** What the portal needs of a subscriptions socket (graphql-ws's Client fits). */
export interface LiveSocket {
  subscribe(payload: { query: string; variables?: Record<string, unknown>; operationName?: string | null }, sink: LiveSink): () => void;
}

/** Makes the socket; it reports its state through setState. */
export type SocketFactory = (setState: (s: LiveState) => void) => LiveSocket;

/** The socket's state, for useSyncExternalStore. */
export interface Live {
  state(): LiveState;
  subscribe(onChange: () => void): () => void;
}

/** The API connection: urql client plus the CSRF token handling. */
export interface Api {
  client: Client;
  /** Loads /api/me (the CSRF token, sandbox flag); called at start-up. */
  loadMe(): Promise<Me>;
  /** fetch with cookie and CSRF token (for non-GraphQL POSTs like logout). */
  fetch: typeof fetch;
  /** The subscriptions socket's state. */
  live: Live;
}

/** The first reconnection wait's ceiling; each next one doubles, up to RETRY_MAX_MS. */
export const RETRY_BASE_MS = 1000;
/** The longest wait between reconnection (or re-subscription) attempts. */
export const RETRY_MAX_MS = 30_000;

/**
 * How long to wait before attempt number `attempt` (0 for the first retry)
 * to reach a server that went away: a ceiling of RETRY_BASE_MS doubling with
 * each attempt up to RETRY_MAX_MS, and a wait drawn at random from the upper
 * half of it, so that the portal tabs that lost the server together do not
 * come back to it in step.
 */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** attempt);
  return ceiling / 2 + (random() * ceiling) / 2;
}

/** The server's close of a socket whose session or API token is gone
 * (graphql-transport-ws's 4403 Forbidden, graph/live.go). */
export const CLOSE_UNAUTHORIZED = 4403;

function isUnauthorizedClose(e: unknown): boolean {
  return typeof e === 'object' && e !== null && 'code' in e && (e as { code: unknown }).code === CLOSE_UNAUTHORIZED;
}

/**
 * graphql-ws on the GraphQL endpoint (the graphql-transport-ws protocol that
 * the server speaks on GET /graphql). The library loads on first use, outside
 * the initial bundle; the socket opens with the first subscription (the
 * session cookie authenticates it) and closes a moment after the last.
 * A lost connection is retried for as long as something is subscribed,
 * waiting backoffMs between attempts; only the protocol's fatal close codes
 * and the server's CLOSE_UNAUTHORIZED end the subscriptions with an error
 * (useLiveRuns subscribes again later).
 */
export function graphqlWsSocket(path: string): SocketFactory {
  return (setState) => {
    const url = new URL(path, window.location.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    let client: Promise<LiveSocket> | null = null;
    const load = () =>
      (client ??= import('graphql-ws').then(({ createClient }) =>
        createClient({
          url: url.href,
          lazy: true,
          lazyCloseTimeout: 3000,
          retryAttempts: Infinity,
          retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, backoffMs(retries))),
          // A browser reports a refused connection (the server is down or
          // restarting) as an error event, not a CloseEvent, which graphql-ws
          // would otherwise take as fatal and give up at once. The one close
          // not retried is the server's 4403: the session or API token is
          // gone, and only signing in again helps (the pages' queries then
          // meet the same answer and say so).
          shouldRetry: (e) => !isUnauthorizedClose(e),
          keepAlive: 20_000,
          on: {
            connecting: () => setState('connecting'),
            connected: () => setState('open'),
            closed: () => setState('down'),
            error: () => setState('down'),
          },
        }),
      ));
    return {
      subscribe(payload, sink) {
        let stop: (() => void) | null = null;
        let cancelled = false;
        load().then(
          (c) => {
            if (!cancelled) stop = c.subscribe(payload, sink);
          },
          (err: unknown) => {
            // The chunk did not load (offline, or a deploy replaced it): load
            // it again on the next subscription rather than fail forever.
            client = null;
            setState('down');
            sink.error(err);
          },
        );
        return () => {
          cancelled = true;
          stop?.();
        };
      },
    };
  };
}

function liveStore(factory: SocketFactory | null): { live: Live; socket: LiveSocket | null } {
  let state: LiveState = factory ? 'connecting' : 'off';
  const listeners = new Set<() => void>();
  const setState = (s: LiveState) => {
    if (s === state) return;
    state = s;
    listeners.forEach((l) => l());
  };
  const live: Live = {
    state: () => state,
    subscribe(onChange) {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
  };
  return { live, socket: factory ? factory(setState) : null };
}

function pick(obj: unknown, ...keys: string[]): unknown {
  if (!obj || typeof obj !== 'object') return undefined;
  for (const k of keys) {
    const v = (obj as Record<string, unknown>)[k];
    if (v !== undefined) return v;
  }
  return undefined;
}

/** parseMe reads /api/me's answer, tolerant of field naming. */
export function parseMe(body: unknown, headerToken: string | null): Me {
  const token = headerToken || pick(body, 'csrfToken', 'csrf_token', 'csrf');
  const user = pick(body, 'user', 'viewer');
  const auth = pick(body, 'authenticated', 'signedIn', 'signed_in');
  // GET /api/me says which logins are on offer under "login": {github, sandbox}.
  const login = pick(body, 'login');
  const offers = login && typeof login === 'object' ? login : body;
  const github = pick(offers, 'github');
  const users = pick(offers, 'sandboxUsers');
  return {
    csrfToken: typeof token === 'string' ? token : '',
    sandbox: pick(offers, 'sandbox') === true,
    sandboxUsers: Array.isArray(users) ? users.filter((u): u is string => typeof u === 'string') : [],
    github: typeof github === 'boolean' ? github : true,
    authenticated: typeof auth === 'boolean' ? auth : Boolean(user && typeof user === 'object'),
  };
}

export function createApi(opts: ApiOptions = {}): Api {
  const baseFetch: typeof fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
  let csrf = '';
  let pending: Promise<Me> | null = null;

  async function loadMe(): Promise<Me> {
    const res = await baseFetch('/api/me', { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    let body: unknown = null;
    try {
      body = await res.json();
    } catch {
      body = null;
    }
    const me = parseMe(body, res.headers.get('X-CSRF-Token'));
    if (res.status === 401) me.authenticated = false;
    if (me.csrfToken) csrf = me.csrfToken;
    return me;
  }

  function refresh(): Promise<Me> {
    pending ??= loadMe().finally(() => {
      pending = null;
    });
    return pending;
  }

  const apiFetch: typeof fetch = async (input, init) => {
    const send = () => {
      const headers = new Headers(init?.headers);
      if (csrf) headers.set('X-CSRF-Token', csrf);
      return baseFetch(input, { ...init, headers, credentials: 'same-origin' });
    };
    let res = await send();
    const rotated = res.headers.get('X-CSRF-Token');
    if (rotated) csrf = rotated;
    // A 403 from the CSRF check (the token expired with the session): fetch
    // a fresh token once and retry.
    if (res.status === 403 && (init?.method ?? 'GET').toUpperCase() === 'POST') {
      const text = await res.clone().text();
      if (/csrf/i.test(text)) {
        await refresh();
        res = await send();
      }
    }
    return res;
  };

  const path = opts.url ?? '/graphql';
  const { live, socket } = liveStore(opts.socket === undefined ? graphqlWsSocket(path) : opts.socket);
  const exchanges = [cacheExchange, fetchExchange];
  if (socket) {
    exchanges.push(
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({
            unsubscribe: socket.subscribe({ query: request.query ?? '', variables: request.variables as Record<string, unknown> | undefined, operationName: request.operationName }, sink as LiveSink),
          }),
        }),
      }),
    );
  }
  const client = new Client({
    url: path,
    exchanges,
    fetch: apiFetch,
    // POST for everything: one transport on the server, CSRF-checked alike.
    preferGetMethod: false,
    requestPolicy: 'cache-and-network',
  });
  return { client, loadMe: refresh, fetch: apiFetch, live };
}
