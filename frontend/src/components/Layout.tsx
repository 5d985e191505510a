// The frame of every signed-in page: navigation, the viewer, sign out.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { useSession } from '../lib/session';
import { Avatar } from './Avatar';

const NAV: { href: string; label: string; admin?: boolean }[] = [
  { href: '/runs', label: 'Runs' },
  { href: '/review', label: 'Review a PR' },
  { href: '/reviewers', label: 'Reviewers' },
  { href: '/costs', label: 'Costs' },
  { href: '/quality', label: 'Quality' },
  { href: '/status', label: 'Status' },
  { href: '/learnings', label: 'Learnings' },
  { href: '/tokens', label: 'API tokens' },
  { href: '/connectors', label: 'Connectors', admin: true },
  { href: '/audit', label: 'Audit log', admin: true },
];

// The version this portal was built as, the same as chakshu's
// (scripts/frontend.sh passes it; `chakshu version` prints it too).
function version(): string {
  return import.meta.env.VITE_CHAKSHU_VERSION || 'dev';
}

export function Layout({ children }: { children: ReactNode }) {
  const { viewer, api } = useSession();
  const [location] = useLocation();
  const [signingOut, setSigningOut] = useState(false);
  const mainRef = useRef<HTMLElement>(null);
  const first = useRef(true);

  // After a client-side navigation: name the page and move focus to it, as a
  // full page load would (screen readers announce the new page).
  useEffect(() => {
    const section = NAV.find((n) => location === n.href || location.startsWith(n.href + '/'));
    document.title = section ? `${section.label} · Chakshu` : 'Chakshu';
    if (first.current) {
      first.current = false;
      return;
    }
    mainRef.current?.focus({ preventScroll: false });
  }, [location]);

  async function signOut() {
    setSigningOut(true);
    try {
      await api.fetch('/auth/logout', { method: 'POST' });
    } finally {
      window.location.assign('/');
    }
  }

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link href="/runs" className="brand" aria-label="Chakshu home">
          <svg viewBox="0 0 32 32" width="22" height="22" aria-hidden="true">
            <ellipse cx="16" cy="16" rx="14" ry="9" fill="currentColor" />
            <circle cx="16" cy="16" r="5" fill="var(--bg)" />
            <circle cx="16" cy="16" r="2.5" fill="currentColor" />
          </svg>
          Chakshu
        </Link>
        <nav aria-label="Main" className="nav">
          {NAV.filter((n) => !n.admin || viewer.isAdmin).map((n) => {
            const current = location === n.href || location.startsWith(n.href + '/');
            return (
              <Link key={n.href} href={n.href} className={current ? 'active' : undefined} aria-current={current ? 'page' : undefined}>
                {n.label}
              </Link>
            );
          })}
        </nav>
        <div className="who">
          <Avatar url={viewer.avatarURL} login={viewer.login} />
          <span className="who-name" title={viewer.login}>
            {viewer.name || viewer.login}
            {viewer.isAdmin && <span className="badge admin-badge">admin</span>}
          </span>
          <button type="button" className="link-button" onClick={signOut} disabled={signingOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1} ref={mainRef}>
        {children}
      </main>
      <footer className="foot">Chakshu {version()}</footer>
    </>
  );
}
