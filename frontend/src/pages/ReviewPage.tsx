// Review a PR: queue runs for chosen reviewers, then watch them.
import { useCallback, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { useMutation, useQuery } from 'urql';
import { graphql, getFragmentData } from '../gql';
import { StatusBadge, SeverityCounts } from '../components/Badges';
import { ActionError, Empty, ErrorState, Loading } from '../components/States';
import { formatCost } from '../lib/format';
import { useLiveRuns } from '../lib/live';
import { isActive } from '../lib/runStatus';
import { useSession } from '../lib/session';

const ReviewerOptionsQuery = graphql(`
  query ReviewerOptions {
    reviewers(first: 50, where: { enabled: true }, orderBy: { field: NAME, direction: ASC }) {
      totalCount
      edges {
        node {
          id
          name
          description
          installation {
            id
            accountLogin
          }
        }
      }
    }
  }
`);

const RequestReviewMutation = graphql(`
  mutation RequestReview($input: RequestReviewInput!) {
    requestReview(input: $input) {
      headSha
      alreadyQueued
      runs {
        id
        ...QueuedRun_run
      }
    }
  }
`);

const QueuedRunFragment = graphql(`
  fragment QueuedRun_run on Run {
    id
    status
    costUsd
    failureReason
    reviewer {
      id
      name
    }
    findingCounts {
      blocker
      major
      minor
      nit
    }
  }
`);

const QueuedRunsQuery = graphql(`
  query QueuedRuns($ids: [ID!]!) {
    nodes(ids: $ids) {
      ... on Run {
        id
        ...QueuedRun_run
      }
    }
  }
`);

/** A plausible pull request URL (the API checks it for real): on webURL, this
 * Chakshu's GitHub (which may have a path, like the sandbox simulator's pages),
 * or on any host when webURL is empty. */
export function looksLikePR(url: string, webURL = ''): boolean {
  const u = url.trim();
  const tail = /^[^/\s]+\/[^/\s]+\/pull\/\d+\/?(?:(?:files|commits|checks)\/?)?(?:[#?].*)?$/;
  const base = webURL.replace(/\/+$/, '');
  if (!base) return /^https?:\/\/[^/\s]+\//.test(u) && tail.test(u.replace(/^https?:\/\/[^/\s]+\//, ''));
  return u.toLowerCase().startsWith(base.toLowerCase() + '/') && tail.test(u.slice(base.length + 1));
}

function QueuedRuns({ ids }: { ids: string[] }) {
  const [res, reexecute] = useQuery({ query: QueuedRunsQuery, variables: { ids }, requestPolicy: 'network-only' });
  const runs = (res.data?.nodes ?? []).flatMap((n) => (n && 'id' in n ? [getFragmentData(QueuedRunFragment, n)] : []));
  const refresh = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  const active = runs.length === 0 || runs.some((r) => isActive(r.status));
  useLiveRuns({ ids, refresh, active, fallbackMs: 2000 });
  if (res.error && !res.data) return <ErrorState error={res.error} retry={refresh} />;
  if (!res.data) return <Loading label="Loading the queued runs…" />;
  return <QueuedRunList runs={runs} />;
}

function QueuedRunList({ runs }: { runs: { id: string; status: string; costUsd: number; failureReason: string; reviewer: { name: string }; findingCounts: { blocker: number; major: number; minor: number; nit: number } }[] }) {
  return (
    <ul className="queued" aria-live="polite">
      {runs.map((r) => (
        <li key={r.id}>
          <Link href={`/runs/${encodeURIComponent(r.id)}`}>{r.reviewer.name}</Link> <StatusBadge status={r.status} /> <SeverityCounts counts={r.findingCounts} /> <span className="muted">{formatCost(r.costUsd)}</span>
          {r.failureReason && <div className="error-text">{r.failureReason}</div>}
        </li>
      ))}
    </ul>
  );
}

export default function ReviewPage() {
  const { viewer, githubWebURL } = useSession();
  const example = `${githubWebURL.replace(/\/+$/, '')}/owner/repo/pull/123`;
  // ?pr= fills the PR in (the sandbox's first page links here with one).
  const [prURL, setPrURL] = useState(() => new URLSearchParams(window.location.search).get('pr') ?? '');
  const [note, setNote] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [touched, setTouched] = useState(false);
  const [opts, reexecuteOpts] = useQuery({ query: ReviewerOptionsQuery });
  const [req, request] = useMutation(RequestReviewMutation);
  const result = req.data?.requestReview;

  const names = [...new Set((opts.data?.reviewers.edges ?? []).flatMap((e) => (e?.node ? [e.node.name] : [])))];
  const descriptions = new Map((opts.data?.reviewers.edges ?? []).flatMap((e) => (e?.node ? [[e.node.name, e.node.description] as const] : [])));
  const urlOK = looksLikePR(prURL, githubWebURL);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!urlOK) return;
    request({ input: { prURL: prURL.trim(), reviewers: chosen, note: note.trim() || undefined } });
  };

  if (!viewer.canWrite)
    return (
      <div className="page">
        <h1>Review a pull request</h1>
        <Empty title="Read-only access">Your API token can read but not request reviews.</Empty>
      </div>
    );

  return (
    <div className="page narrow">
      <h1>Review a pull request</h1>
      <form onSubmit={submit} className="stack" noValidate>
        <label>
          Pull request URL
          <input
            name="prURL"
            type="url"
            required
            placeholder={example}
            value={prURL}
            onChange={(e) => setPrURL(e.target.value)}
            aria-invalid={touched && !urlOK}
            aria-describedby="pr-help"
          />
        </label>
        <p id="pr-help" className={touched && !urlOK ? 'error-text' : 'muted'}>
          {touched && !urlOK ? `Enter the address of a pull request, like ${example}.` : 'You need write access to the repository, as for a review comment.'}
        </p>
        <fieldset>
          <legend>Reviewers</legend>
          {opts.error && !opts.data ? (
            <ErrorState error={opts.error} retry={() => reexecuteOpts({ requestPolicy: 'network-only' })} />
          ) : !opts.data ? (
            <Loading label="Loading reviewers…" />
          ) : names.length === 0 ? (
            <p className="muted">No reviewers are synced yet; the repository's defaults will be asked for.</p>
          ) : (
            <>
              <p className="muted">None chosen means the repository's default reviewers.</p>
              {names.map((n) => (
                <label key={n} className="check">
                  <input type="checkbox" name="reviewers" value={n} checked={chosen.includes(n)} onChange={(e) => setChosen(e.target.checked ? [...chosen, n] : chosen.filter((c) => c !== n))} />
                  <span>
                    <strong>{n}</strong> <span className="muted">{descriptions.get(n)}</span>
                  </span>
                </label>
              ))}
            </>
          )}
        </fieldset>
        <label>
          Note for the reviewers (optional)
          <textarea name="note" rows={3} value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} />
        </label>
        <div>
          <button type="submit" className="primary" disabled={req.fetching}>
            {req.fetching ? 'Queueing…' : 'Request review'}
          </button>
        </div>
        <ActionError error={req.error} />
      </form>
      {result && (
        <section aria-labelledby="queued-h" className="result">
          <h2 id="queued-h">Queued</h2>
          {result.alreadyQueued.length > 0 && <p className="muted">Already queued or running for this commit: {result.alreadyQueued.join(', ')}.</p>}
          {result.runs.length === 0 ? <p>Nothing new was queued.</p> : <QueuedRuns ids={result.runs.map((r) => r.id)} />}
        </section>
      )}
    </div>
  );
}
