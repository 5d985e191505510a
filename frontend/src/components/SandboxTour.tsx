// Sandbox mode's first page: the things to try, each a direct link to
// where its result shows (GET /api/sandbox/tour; the server knows the seeded
// pull requests and whether Chakshu has opened a thread yet).
import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { useSession } from '../lib/session';

export interface Try {
  id: string;
  title: string;
  text: string;
  url: string;
}

export function SandboxTour() {
  const { me, api } = useSession();
  const [tries, setTries] = useState<Try[] | null>(null);
  useEffect(() => {
    if (!me.sandbox) return;
    let live = true;
    api
      .fetch('/api/sandbox/tour', { headers: { Accept: 'application/json' } })
      .then((r) => (r.ok ? r.json() : null))
      .then((d: { tries?: Try[] } | null) => {
        if (live && Array.isArray(d?.tries)) setTries(d.tries);
      })
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [me.sandbox, api]);
  if (!me.sandbox || !tries || tries.length === 0) return null;
  return (
    <section className="card sandbox-tour" aria-labelledby="tour-title">
      <h2 id="tour-title">Try the sandbox</h2>
      <p className="muted">GitHub and the model are simulated; everything else is Chakshu for real. Things to try:</p>
      <ol className="tour">
        {tries.map((t) => (
          <li key={t.id} data-try={t.id}>
            {t.url.startsWith('/') && !t.url.startsWith('/sim/') ? <Link href={t.url}>{t.title}</Link> : <a href={t.url}>{t.title}</a>}
            <span className="muted"> — {t.text}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
