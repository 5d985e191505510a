// Runs: a filterable, paginated table with live status.
import { useCallback, useMemo, useState, type FormEvent } from 'react';
import { useQuery } from 'urql';
import { Link } from 'wouter';
import { graphql } from '../gql';
import type { RunWhereInput, RunStatus, RunTrigger } from '../gql/graphql';
import { RunsTable } from '../components/RunRow';
import { Pager } from '../components/Pager';
import { Empty, ErrorState, Loading } from '../components/States';
import { dayEnd, dayStart } from '../lib/format';
import { useLiveRuns } from '../lib/live';
import { LiveBadge } from '../components/LiveBadge';
import { SandboxTour } from '../components/SandboxTour';
import { RUN_STATUSES, TRIGGERS, humanize, isActive } from '../lib/runStatus';
import { useUrlState } from '../lib/url';

export const PAGE_SIZE = 25;

export const RunsPageQuery = graphql(`
  query RunsPage($first: Int, $after: Cursor, $last: Int, $before: Cursor, $where: RunWhereInput) {
    runs(first: $first, after: $after, last: $last, before: $before, where: $where, orderBy: { field: CREATED_AT, direction: DESC }) {
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
          status
          ...RunRow_run
        }
      }
    }
  }
`);

const FilterOptionsQuery = graphql(`
  query RunFilterOptions($repo: String!, $reviewer: String!) {
    repositories(first: 20, where: { fullNameContainsFold: $repo }, orderBy: { field: FULL_NAME, direction: ASC }) {
      edges {
        node {
          id
          fullName
        }
      }
    }
    reviewers(first: 20, where: { nameContainsFold: $reviewer }, orderBy: { field: NAME, direction: ASC }) {
      edges {
        node {
          id
          name
        }
      }
    }
  }
`);

const FILTER_KEYS = ['view', 'repo', 'reviewer', 'status', 'trigger', 'from', 'to', 'after', 'before'] as const;
export type RunFilters = Record<(typeof FILTER_KEYS)[number], string>;

/** The API filter for the URL's filters. */
export function runsWhere(f: Partial<RunFilters>): RunWhereInput {
  // Reviews, or the shadow runs of backtests (which post nothing): never mixed.
  const where: RunWhereInput = { shadow: f.view === 'backtests' };
  if (f.repo) where.hasRepositoryWith = [{ fullName: f.repo }];
  if (f.reviewer) where.hasReviewerWith = [{ name: f.reviewer }];
  if (f.status && (RUN_STATUSES as readonly string[]).includes(f.status)) where.status = f.status as RunStatus;
  if (f.trigger && (TRIGGERS as readonly string[]).includes(f.trigger)) where.trigger = f.trigger as RunTrigger;
  const from = dayStart(f.from);
  const to = dayEnd(f.to);
  if (from) where.createdAtGTE = from;
  if (to) where.createdAtLT = to;
  return where;
}

/** Page variables: forwards from `after`, backwards from `before`. */
export function pageVars(f: { after?: string; before?: string }, size = PAGE_SIZE) {
  if (f.before) return { last: size, before: f.before };
  return { first: size, after: f.after || undefined };
}

export default function RunsPage() {
  const [filters, setFilters] = useUrlState(FILTER_KEYS);
  const variables = useMemo(() => ({ ...pageVars(filters), where: runsWhere(filters) }), [filters]);
  const [res, reexecute] = useQuery({ query: RunsPageQuery, variables });
  const edges = res.data?.runs.edges ?? [];
  const anyActive = edges.some((e) => isActive(e?.node?.status));
  const refresh = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  // Every run the viewer can see: new runs appear, listed ones change status.
  const mode = useLiveRuns({ ids: null, refresh, active: anyActive, fallbackMs: 4000, always: true });
  const filtered = FILTER_KEYS.some((k) => k !== 'after' && k !== 'before' && k !== 'view' && filters[k]);
  const backtests = filters.view === 'backtests';

  return (
    <div className="page">
      <div className="page-head">
        <h1>Runs</h1>
        <LiveBadge mode={mode} />
      </div>
      <SandboxTour />
      <nav className="tabs" aria-label="Kinds of runs">
        <Link href="/runs" aria-current={backtests ? undefined : 'page'}>
          Reviews
        </Link>
        <Link href="/runs?view=backtests" aria-current={backtests ? 'page' : undefined}>
          Backtest runs
        </Link>
      </nav>
      {backtests && (
        <p className="callout">
          Shadow runs of backtests: a reviewer change replayed over pull requests reviewed before. They are reviewed and metered like any run, and post nothing on those pull requests.
        </p>
      )}
      <RunFiltersForm key={filters.repo + '|' + filters.reviewer} filters={filters} onChange={setFilters} />
      {res.error && !res.data ? (
        <ErrorState error={res.error} retry={refresh} />
      ) : !res.data ? (
        <Loading label="Loading runs…" />
      ) : edges.length === 0 ? (
        filtered ? (
          <Empty title="No runs match these filters">
            <button type="button" className="link-button" onClick={() => setFilters({ repo: null, reviewer: null, status: null, trigger: null, from: null, to: null })}>
              Clear the filters
            </button>
          </Empty>
        ) : backtests ? (
          <Empty title="No backtest runs yet">A pull request to the reviewers repository that changes a reviewer replays it here.</Empty>
        ) : (
          <Empty title="No runs yet">Runs appear here when someone asks for a review on a pull request, or from Review a PR.</Empty>
        )
      ) : (
        <>
          <RunsTable caption={backtests ? 'Backtest runs, newest first' : 'Runs, newest first'} runs={edges.flatMap((e) => (e?.node ? [{ id: e.node.id, run: e.node }] : []))} />
          <Pager pageInfo={res.data.runs.pageInfo} totalCount={res.data.runs.totalCount} shown={edges.length} label="runs" onPage={(p) => setFilters({ after: p.after ?? null, before: p.before ?? null })} />
        </>
      )}
    </div>
  );
}

function RunFiltersForm({ filters, onChange }: { filters: RunFilters; onChange: (p: Partial<Record<string, string | null>>) => void }) {
  const [repo, setRepo] = useState(filters.repo);
  const [reviewer, setReviewer] = useState(filters.reviewer);
  // Suggestions for the text filters, a small page at a time.
  const [opts] = useQuery({ query: FilterOptionsQuery, variables: { repo, reviewer } });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const patch: Record<string, string | null> = {};
    if (repo.trim() !== filters.repo) patch.repo = repo.trim() || null;
    if (reviewer.trim() !== filters.reviewer) patch.reviewer = reviewer.trim() || null;
    if (Object.keys(patch).length) onChange(patch);
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Filter runs">
      <label>
        Repository
        <input name="repo" list="repo-options" placeholder="owner/name" value={repo} onChange={(e) => setRepo(e.target.value)} onBlur={submit} autoComplete="off" />
        <datalist id="repo-options">
          {opts.data?.repositories.edges?.map((e) => e?.node && <option key={e.node.id} value={e.node.fullName} />)}
        </datalist>
      </label>
      <label>
        Reviewer
        <input name="reviewer" list="reviewer-options" placeholder="any" value={reviewer} onChange={(e) => setReviewer(e.target.value)} onBlur={submit} autoComplete="off" />
        <datalist id="reviewer-options">
          {[...new Set(opts.data?.reviewers.edges?.flatMap((e) => (e?.node ? [e.node.name] : [])))].map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
      </label>
      <label>
        Status
        <select name="status" value={filters.status} onChange={(e) => onChange({ status: e.target.value || null })}>
          <option value="">any</option>
          {RUN_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label>
        Trigger
        <select name="trigger" value={filters.trigger} onChange={(e) => onChange({ trigger: e.target.value || null })}>
          <option value="">any</option>
          {TRIGGERS.map((t) => (
            <option key={t} value={t}>
              {humanize(t)}
            </option>
          ))}
        </select>
      </label>
      <label>
        From
        <input type="date" name="from" value={filters.from} max={filters.to || undefined} onChange={(e) => onChange({ from: e.target.value || null })} />
      </label>
      <label>
        To
        <input type="date" name="to" value={filters.to} min={filters.from || undefined} onChange={(e) => onChange({ to: e.target.value || null })} />
      </label>
      <button type="submit" className="sr-only-focusable">
        Apply
      </button>
    </form>
  );
}
