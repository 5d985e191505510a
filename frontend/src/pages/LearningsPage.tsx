// Review learnings: what reviewers were taught, filterable, and switchable;
// above them, the learnings proposed from findings people dismissed, to
// accept or discard (a proposal is never used until accepted).
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql, getFragmentData, type FragmentType } from '../gql';
import type { ReviewLearningWhereInput } from '../gql/graphql';
import { WriterOnly } from '../components/AdminOnly';
import { Pager } from '../components/Pager';
import { ActionError, Empty, ErrorState, Loading } from '../components/States';
import { ago, formatTime } from '../lib/format';
import { useUrlState } from '../lib/url';
import { pageVars } from './RunsPage';

const LearningRowFragment = graphql(`
  fragment LearningRow_learning on ReviewLearning {
    id
    scope
    glob
    directive
    author
    prNumber
    source
    useCount
    lastUsedAt
    enabled
    createdAt
    installation {
      id
      accountLogin
    }
    repository {
      id
      fullName
    }
  }
`);

const LearningsPageQuery = graphql(`
  query LearningsPage($first: Int, $after: Cursor, $last: Int, $before: Cursor, $where: ReviewLearningWhereInput) {
    reviewLearnings(first: $first, after: $after, last: $last, before: $before, where: $where, orderBy: { field: CREATED_AT, direction: DESC }) {
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
          ...LearningRow_learning
        }
      }
    }
  }
`);

const SetLearningEnabledMutation = graphql(`
  mutation SetLearningEnabled($id: ID!, $enabled: Boolean!) {
    setLearningEnabled(id: $id, enabled: $enabled) {
      id
      enabled
    }
  }
`);

const ProposalRowFragment = graphql(`
  fragment ProposalRow_learning on ReviewLearning {
    id
    glob
    directive
    prNumber
    createdAt
    repository {
      id
      fullName
    }
  }
`);

const LearningProposalsQuery = graphql(`
  query LearningProposals {
    reviewLearnings(first: 25, where: { status: proposed }, orderBy: { field: CREATED_AT, direction: DESC }) {
      totalCount
      edges {
        node {
          id
          ...ProposalRow_learning
        }
      }
    }
  }
`);

const AcceptLearningMutation = graphql(`
  mutation AcceptLearning($id: ID!) {
    acceptLearning(id: $id) {
      id
      status
      enabled
    }
  }
`);

const DiscardLearningMutation = graphql(`
  mutation DiscardLearning($id: ID!) {
    discardLearning(id: $id) {
      id
      status
      enabled
    }
  }
`);

/** The API filter for the URL's filters: decided learnings (proposals are listed apart). */
export function learningsWhere(f: { q?: string; state?: string; repo?: string }): ReviewLearningWhereInput {
  const w: ReviewLearningWhereInput = { status: f.state === 'discarded' ? 'discarded' : 'accepted' };
  if (f.q) w.directiveContainsFold = f.q;
  if (f.state === 'enabled') w.enabled = true;
  if (f.state === 'disabled') w.enabled = false;
  if (f.repo) w.hasRepositoryWith = [{ fullName: f.repo }];
  return w;
}

function LearningRow(props: { learning: FragmentType<typeof LearningRowFragment> }) {
  const l = getFragmentData(LearningRowFragment, props.learning);
  const [res, setEnabled] = useMutation(SetLearningEnabledMutation);
  return (
    <tr className={l.enabled ? undefined : 'dim'}>
      <td>
        <p className="prewrap">{l.directive}</p>
        <div className="sub">
          by {l.author || 'unknown'} via {l.source}
          {l.prNumber > 0 && ` on #${l.prNumber}`} · <span title={formatTime(l.createdAt)}>{ago(l.createdAt)}</span>
        </div>
      </td>
      <td>{l.glob ? <code>{l.glob}</code> : <span className="muted">all files</span>}</td>
      <td>{l.scope === 'repo' ? l.repository?.fullName ?? 'repository' : `${l.installation.accountLogin} (all repos)`}</td>
      <td className="num">
        {l.useCount}
        <div className="sub">{l.lastUsedAt ? ago(l.lastUsedAt) : 'never'}</div>
      </td>
      <td>
        <span className={`badge ${l.enabled ? 'posted' : ''}`}>{l.enabled ? 'enabled' : 'disabled'}</span>
        <WriterOnly>
          <button type="button" className="small" disabled={res.fetching} onClick={() => setEnabled({ id: l.id, enabled: !l.enabled })}>
            {l.enabled ? 'Disable' : 'Enable'}
          </button>
        </WriterOnly>
        <ActionError error={res.error} />
      </td>
    </tr>
  );
}

function ProposalRow(props: { learning: FragmentType<typeof ProposalRowFragment>; onDone: () => void }) {
  const l = getFragmentData(ProposalRowFragment, props.learning);
  const [acc, accept] = useMutation(AcceptLearningMutation);
  const [dis, discard] = useMutation(DiscardLearningMutation);
  const busy = acc.fetching || dis.fetching;
  const act = async (run: (v: { id: string }) => Promise<{ error?: unknown }>) => {
    const r = await run({ id: l.id });
    if (!r.error) props.onDone();
  };
  return (
    <li className="card">
      <p className="prewrap">{l.directive}</p>
      <div className="sub">
        {l.glob ? <code>{l.glob}</code> : 'all files'} in {l.repository?.fullName ?? 'the repository'}
        {l.prNumber > 0 && ` · dismissed on #${l.prNumber}`} · <span title={formatTime(l.createdAt)}>{ago(l.createdAt)}</span>
      </div>
      <WriterOnly>
        <div className="actions">
          <button type="button" className="small" disabled={busy} onClick={() => act((v) => accept(v, { additionalTypenames: ['ReviewLearning'] }))} aria-label={`Accept learning ${l.id}`}>
            Accept
          </button>
          <button type="button" className="small" disabled={busy} onClick={() => act((v) => discard(v, { additionalTypenames: ['ReviewLearning'] }))} aria-label={`Discard learning ${l.id}`}>
            Discard
          </button>
        </div>
      </WriterOnly>
      <ActionError error={acc.error ?? dis.error} />
    </li>
  );
}

/** Learnings proposed from dismissed findings, waiting for a person. */
function Proposals(props: { onDecided: () => void }) {
  const [res, reexecute] = useQuery({ query: LearningProposalsQuery });
  if (res.error && !res.data) return <ErrorState error={res.error} retry={() => reexecute({ requestPolicy: 'network-only' })} />;
  const edges = res.data?.reviewLearnings.edges ?? [];
  if (!res.data || edges.length === 0) return null;
  const done = () => {
    reexecute({ requestPolicy: 'network-only' });
    props.onDecided();
  };
  return (
    <section aria-labelledby="proposals-h">
      <h2 id="proposals-h">Proposed ({res.data.reviewLearnings.totalCount})</h2>
      <p className="muted">Proposed from findings people dismissed as wrong. None is used until someone accepts it.</p>
      <ul className="plain">{edges.map((e) => e?.node && <ProposalRow key={e.node.id} learning={e.node} onDone={done} />)}</ul>
    </section>
  );
}

export default function LearningsPage() {
  const [f, set] = useUrlState(['q', 'state', 'repo', 'after', 'before'] as const);
  const [q, setQ] = useState(f.q);
  const [res, reexecute] = useQuery({ query: LearningsPageQuery, variables: { ...pageVars(f, 25), where: learningsWhere(f) } });
  const edges = res.data?.reviewLearnings.edges ?? [];
  const search = (e: FormEvent) => {
    e.preventDefault();
    if (q.trim() !== f.q) set({ q: q.trim() || null });
  };
  return (
    <div className="page">
      <h1>Learnings</h1>
      <p className="muted">Directives reviewers follow, taught with <code>@chakshu remember …</code> in a review thread. Each applies to files matching its glob.</p>
      <Proposals onDecided={() => reexecute({ requestPolicy: 'network-only' })} />
      <form className="filters" onSubmit={search} aria-label="Filter learnings">
        <label>
          Contains
          <input type="search" name="q" value={q} onChange={(e) => setQ(e.target.value)} onBlur={search} placeholder="text" />
        </label>
        <label>
          State
          <select name="state" value={f.state} onChange={(e) => set({ state: e.target.value || null })}>
            <option value="">any</option>
            <option value="enabled">enabled</option>
            <option value="disabled">disabled</option>
            <option value="discarded">discarded proposals</option>
          </select>
        </label>
        <button type="submit" className="sr-only-focusable">
          Apply
        </button>
      </form>
      {res.error && !res.data ? (
        <ErrorState error={res.error} retry={() => reexecute({ requestPolicy: 'network-only' })} />
      ) : !res.data ? (
        <Loading label="Loading learnings…" />
      ) : edges.length === 0 ? (
        <Empty title={f.q || f.state ? 'No learnings match' : 'No learnings yet'}>Reply to a Chakshu comment with “@chakshu remember …” to teach a reviewer.</Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Directive</th>
                  <th scope="col">Files</th>
                  <th scope="col">Scope</th>
                  <th scope="col" className="num">
                    Used
                  </th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>{edges.map((e) => e?.node && <LearningRow key={e.node.id} learning={e.node} />)}</tbody>
            </table>
          </div>
          <Pager pageInfo={res.data.reviewLearnings.pageInfo} totalCount={res.data.reviewLearnings.totalCount} shown={edges.length} label="learnings" onPage={(p) => set({ after: p.after ?? null, before: p.before ?? null })} />
        </>
      )}
    </div>
  );
}
