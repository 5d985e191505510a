// Signed out: sign in with GitHub, or with the sandbox's one-click login.
import { useState } from 'react';
import type { Api, Me } from '../lib/api';
import { loginURL } from '../lib/session';

/** Where to come back to after signing in. */
function here(): string {
  const p = window.location.pathname;
  return p === '/login' || p === '/' ? '/runs' : p + window.location.search;
}

export function LoginPage({ me, api }: { me: Me; api: Api }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function sandboxLogin(login: string) {
    setBusy(true);
    setError('');
    try {
      const body = new URLSearchParams({ return_to: here() });
      if (login) body.set('login', login);
      const res = await api.fetch('/auth/sandbox', { method: 'POST', body, headers: { Accept: 'application/json' } });
      if (!res.ok) throw new Error(`status ${res.status}`);
      const j = (await res.json().catch(() => ({}))) as { returnTo?: string };
      window.location.assign(j.returnTo && j.returnTo.startsWith('/') ? j.returnTo : here());
    } catch {
      setError('The sandbox login did not work. Reload the page and try again.');
      setBusy(false);
    }
  }

  return (
    <main id="main" className="login">
      <div className="login-card">
        <h1>
          <svg viewBox="0 0 32 32" width="28" height="28" aria-hidden="true">
            <ellipse cx="16" cy="16" rx="14" ry="9" fill="currentColor" />
            <circle cx="16" cy="16" r="5" fill="var(--bg)" />
            <circle cx="16" cy="16" r="2.5" fill="currentColor" />
          </svg>
          Chakshu
        </h1>
        <p>AI reviewers for your pull requests. Sign in to see runs, reviewers, costs and status.</p>
        {me.github && (
          <a className="button primary" href={loginURL(here())}>
            Sign in with GitHub
          </a>
        )}
        {me.sandbox && (
          <>
            <p className="muted">This Chakshu runs in sandbox mode, with a simulated GitHub.</p>
            {me.sandboxUsers.length === 0 ? (
              <button type="button" className={me.github ? undefined : 'primary'} onClick={() => sandboxLogin('')} disabled={busy}>
                {busy ? 'Signing in…' : 'Sign in to the sandbox'}
              </button>
            ) : (
              <ul className="sandbox-logins" aria-label="Sandbox users">
                {me.sandboxUsers.map((login, i) => (
                  <li key={login}>
                    <button type="button" className={me.github || i > 0 ? undefined : 'primary'} onClick={() => sandboxLogin(login)} disabled={busy} aria-describedby={`sandbox-user-${i}`}>
                      Sign in as {login}
                    </button>
                    <span id={`sandbox-user-${i}`} className="muted">
                      {/* The server lists its admin first. */}
                      {i === 0 ? 'admin: sees everything, runs admin actions' : 'not an admin: reads some repositories only'}
                    </span>
                  </li>
                ))}
              </ul>
            )}
            {busy && me.sandboxUsers.length > 0 && <p className="muted" role="status">Signing in…</p>}
          </>
        )}
        {!me.github && !me.sandbox && <p className="error-text">No login is configured: set CHAKSHU_OAUTH_CLIENT_ID and CHAKSHU_OAUTH_CLIENT_SECRET.</p>}
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
      </div>
    </main>
  );
}
