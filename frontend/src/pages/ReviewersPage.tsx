// Reviewers: what each is, where its config came from, how it is doing.
import { useMutation, useQuery } from 'urql';
import { Link } from 'wouter';
import { graphql, getFragmentData, type FragmentType } from '../gql';
import { AdminOnly } from '../components/AdminOnly';
import { Pager } from '../components/Pager';
import { ActionError, Empty, ErrorState, Loading } from '../components/States';
import { ago, formatCost, formatPercent, formatTime, shortSha } from '../lib/format';
import { commitURL, useSession } from '../lib/session';
import { useUrlState } from '../lib/url';
import { providerName } from '../lib/providers';
import { pageVars } from './RunsPage';

const ReviewerCardFragment = graphql(`
  fragment ReviewerCard_reviewer on Reviewer {
    id
    name
    description
    enabled
    syncedCommit
    syncedAt
    configYaml
    syncError
    syncErrorAt
    syncErrorCommit
    modelStatus {
      model
      provider
      state
      retiresOn
      replacement
      warning
    }
    connectors
    skills {
      name
      description
    }
    installation {
      id
      accountLogin
      reviewersRepo
    }
    stats {
      runs
      failed
      failureRate
      findingsPerRun
      meanCostUsd
      totalCostUsd
    }
  }
`);

const ReviewersPageQuery = graphql(`
  query ReviewersPage($first: Int, $after: Cursor, $last: Int, $before: Cursor) {
    reviewers(first: $first, after: $after, last: $last, before: $before, orderBy: { field: NAME, direction: ASC }) {
      totalCount
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
      edges {
        node {
          id
          ...ReviewerCard_reviewer
        }
      }
    }
  }
`);

const SyncReviewersMutation = graphql(`
  mutation SyncReviewers($installationID: ID) {
    syncReviewers(installationID: $installationID)
  }
`);

/** owner/name of the reviewers repository of an installation. */
export function reviewersRepo(inst: { accountLogin: string; reviewersRepo: string }): string {
  return inst.reviewersRepo || `${inst.accountLogin}/chakshu-reviewers`;
}

/** "active", "deprecated until 2027-01-22", "retired", "not in the catalogue". */
export function modelState(m: { state: string; retiresOn?: string | null }): string {
  switch (m.state) {
    case 'deprecated':
      return m.retiresOn ? `deprecated until ${m.retiresOn}` : 'deprecated';
    case 'unknown':
      return 'not in the model catalogue';
    default:
      return m.state;
  }
}

function ReviewerCard(props: { reviewer: FragmentType<typeof ReviewerCardFragment> }) {
  const r = getFragmentData(ReviewerCardFragment, props.reviewer);
  const { githubWebURL } = useSession();
  const repo = reviewersRepo(r.installation);
  return (
    <article className="card" aria-labelledby={`rv-${r.id}`}>
      <header className="card-head">
        <h2 id={`rv-${r.id}`}>{r.name}</h2>
        {!r.enabled && <span className="badge">removed from the reviewers repo</span>}
        <Link className="muted" href={`/installations/${r.installation.id}`} title="Its repositories and their workflow">
          {r.installation.accountLogin}
        </Link>
      </header>
      <p>{r.description || <span className="muted">No description.</span>}</p>
      {r.syncError && (
        <div className="callout callout-error" role="alert">
          <strong>Sync error</strong> at {shortSha(r.syncErrorCommit)} ({ago(r.syncErrorAt)}): {r.syncError}
          <div className="muted">The last good version stays in force.</div>
        </div>
      )}
      {r.modelStatus.warning && (
        <div className={r.modelStatus.state === 'deprecated' ? 'callout' : 'callout callout-error'} role="status">
          <strong>Model {r.modelStatus.model}</strong>: {r.modelStatus.warning}
        </div>
      )}
      <dl className="facts">
        <div>
          <dt>Model</dt>
          <dd>
            <span className="mono">{r.modelStatus.model}</span>{' '}
            <span className="muted">{modelState(r.modelStatus)}</span>
            {r.modelStatus.provider && <span className="muted"> · via {providerName(r.modelStatus.provider)}</span>}
          </dd>
        </div>
        <div>
          <dt>Synced from</dt>
          <dd>
            {r.syncedCommit ? (
              <a href={commitURL(githubWebURL, repo, r.syncedCommit)} target="_blank" rel="noreferrer" className="mono">
                {repo}@{shortSha(r.syncedCommit)}
              </a>
            ) : (
              'never synced'
            )}{' '}
            {r.syncedAt && <span className="muted" title={formatTime(r.syncedAt)}>{ago(r.syncedAt)}</span>}
          </dd>
        </div>
        <div>
          <dt>Runs (30 days)</dt>
          <dd>{r.stats.runs}</dd>
        </div>
        <div>
          <dt>Findings per run</dt>
          <dd>{r.stats.findingsPerRun.toFixed(1)}</dd>
        </div>
        <div>
          <dt>Mean cost</dt>
          <dd>{formatCost(r.stats.meanCostUsd)}</dd>
        </div>
        <div>
          <dt>Failure rate</dt>
          <dd className={r.stats.failureRate > 0.2 ? 'bad' : undefined}>
            {formatPercent(r.stats.failureRate)} <span className="muted">({r.stats.failed} failed)</span>
          </dd>
        </div>
      </dl>
      <div className="cols">
        <div>
          <h3>Skills</h3>
          {r.skills.length === 0 ? (
            <p className="muted">None.</p>
          ) : (
            <ul className="plain">
              {r.skills.map((s) => (
                <li key={s.name}>
                  <code>{s.name}</code> {s.description}
                </li>
              ))}
            </ul>
          )}
        </div>
        <div>
          <h3>Connectors</h3>
          {r.connectors.length === 0 ? (
            <p className="muted">None.</p>
          ) : (
            <ul className="plain">
              {r.connectors.map((c) => (
                <li key={c}>
                  <code>{c}</code>
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
      <details>
        <summary>reviewer.yaml</summary>
        <pre className="code">{r.configYaml || '# empty'}</pre>
      </details>
    </article>
  );
}

export default function ReviewersPage() {
  const [page, setPage] = useUrlState(['after', 'before'] as const);
  const [res, reexecute] = useQuery({ query: ReviewersPageQuery, variables: pageVars(page, 20) });
  const [sync, doSync] = useMutation(SyncReviewersMutation);
  const edges = res.data?.reviewers.edges ?? [];
  return (
    <div className="page">
      <div className="page-head">
        <h1>Reviewers</h1>
        <AdminOnly>
          <button type="button" disabled={sync.fetching} onClick={() => doSync({})}>
            {sync.fetching ? 'Asking…' : 'Sync reviewers now'}
          </button>
          {sync.data?.syncReviewers && <span className="muted" role="status">Sync requested; a worker will pick it up shortly.</span>}
        </AdminOnly>
      </div>
      <ActionError error={sync.error} />
      {res.error && !res.data ? (
        <ErrorState error={res.error} retry={() => reexecute({ requestPolicy: 'network-only' })} />
      ) : !res.data ? (
        <Loading label="Loading reviewers…" />
      ) : edges.length === 0 ? (
        <Empty title="No reviewers">
          Reviewers come from the reviewers repository (<code>reviewers/&lt;name&gt;/reviewer.yaml</code>) of each installation, synced on push.
        </Empty>
      ) : (
        <>
          <div className="cards">{edges.map((e) => e?.node && <ReviewerCard key={e.node.id} reviewer={e.node} />)}</div>
          <Pager pageInfo={res.data.reviewers.pageInfo} totalCount={res.data.reviewers.totalCount} shown={edges.length} label="reviewers" prevLabel="← Previous" nextLabel="Next →" onPage={(p) => setPage({ after: p.after ?? null, before: p.before ?? null })} />
        </>
      )}
    </div>
  );
}
