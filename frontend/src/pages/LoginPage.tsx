// Signed out: sign in with GitHub (or the sandbox's one-click login).
import { loginURL, sandboxLoginURL } from '../lib/session';

export function LoginPage({ sandbox }: { sandbox: boolean }) {
  const here = window.location.pathname === '/login' ? '/runs' : window.location.pathname + window.location.search;
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
        <a className="button primary" href={loginURL(here)}>
          Sign in with GitHub
        </a>
        {sandbox && (
          <>
            <p className="muted">This Chakshu runs in sandbox mode, with a simulated GitHub.</p>
            <a className="button" href={sandboxLoginURL(here)}>
              Sign in to the sandbox
            </a>
          </>
        )}
      </div>
    </main>
  );
}
