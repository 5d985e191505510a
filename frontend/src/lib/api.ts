// The portal's connection to Chakshu: a urql client whose requests carry the
// session cookie and the CSRF token from GET /api/me.
import { Client, cacheExchange, fetchExchange } from 'urql';

/** What GET /api/me tells the portal before any GraphQL call. */
export interface Me {
  csrfToken: string;
  /** Sandbox mode: offer the one-click sandbox login (POST /auth/sandbox). */
  sandbox: boolean;
  /** GitHub OAuth login is configured (GET /auth/login). */
  github: boolean;
  authenticated: boolean;
}

export interface ApiOptions {
  /** GraphQL endpoint; default /graphql. */
  url?: string;
  /** For tests; default the browser's fetch. */
  fetch?: typeof fetch;
}

/** The API connection: urql client plus the CSRF token handling. */
export interface Api {
  client: Client;
  /** Loads /api/me (the CSRF token, sandbox flag); called at start-up. */
  loadMe(): Promise<Me>;
  /** fetch with cookie and CSRF token (for non-GraphQL POSTs like logout). */
  fetch: typeof fetch;
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
  return {
    csrfToken: typeof token === 'string' ? token : '',
    sandbox: pick(offers, 'sandbox') === true,
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

  const client = new Client({
    url: opts.url ?? '/graphql',
    exchanges: [cacheExchange, fetchExchange],
    fetch: apiFetch,
    // POST for everything: one transport on the server, CSRF-checked alike.
    preferGetMethod: false,
    requestPolicy: 'cache-and-network',
  });
  return { client, loadMe: refresh, fetch: apiFetch };
}
