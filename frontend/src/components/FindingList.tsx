// A run's findings, grouped by file, a page at a time.
import { useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { graphql, getFragmentData } from '../gql';
import type { FindingItem_FindingFragment } from '../gql/graphql';
import { SeverityBadge } from './Badges';
import { Empty, ErrorState, Loading } from './States';
import { formatTime } from '../lib/format';

export const FindingItemFragment = graphql(`
  fragment FindingItem_finding on Finding {
    id
    path
    line
    startLine
    severity
    category
    title
    body
    suggestion
    posted
    placement
    droppedReason
    commentURL
    resolved
    outcome
    outcomeAt
    outcomeReason
  }
`);

export const RunFindingsQuery = graphql(`
  query RunFindings($runID: ID!, $first: Int!, $after: Cursor) {
    findings(first: $first, after: $after, where: { runID: $runID }, orderBy: { field: SEVERITY, direction: ASC }) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          id
          ...FindingItem_finding
        }
      }
    }
  }
`);

const PAGE = 50;

type Finding = FindingItem_FindingFragment;

/** Findings grouped by path, files in first-seen order. */
export function groupByFile<T extends { path: string }>(items: T[]): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const f of items) {
    const key = f.path || '(no file)';
    const list = groups.get(key) ?? [];
    list.push(f);
    groups.set(key, list);
  }
  return [...groups.entries()];
}

function FindingPage({ runID, after, last, onMore }: { runID: string; after?: string; last: boolean; onMore: (cursor: string) => void }) {
  const [res, reexecute] = useQuery({ query: RunFindingsQuery, variables: { runID, first: PAGE, after } });
  const items = useMemo(
    () => (res.data?.findings.edges ?? []).flatMap((e) => (e?.node ? [getFragmentData(FindingItemFragment, e.node)] : [])),
    [res.data],
  );
  if (res.error && !res.data) return <ErrorState error={res.error} retry={() => reexecute({ requestPolicy: 'network-only' })} />;
  if (!res.data) return <Loading label="Loading findings…" />;
  if (items.length === 0 && !after) return <Empty title="No findings">The reviewer did not flag anything in this run.</Empty>;
  const pi = res.data.findings.pageInfo;
  return (
    <>
      {groupByFile(items).map(([path, list]) => (
        <section key={path} className="file-group">
          <h3 className="mono">{path}</h3>
          <ul className="findings">
            {list.map((f) => (
              <FindingItem key={f.id} f={f} />
            ))}
          </ul>
        </section>
      ))}
      {last && pi.hasNextPage && pi.endCursor && (
        <button type="button" onClick={() => onMore(pi.endCursor!)}>
          Show more findings
        </button>
      )}
    </>
  );
}

/** What people called each outcome (README "Quality page"). */
export const OUTCOME_LABELS: Record<string, string> = {
  open: 'open',
  fixed: 'fixed',
  acknowledged: 'acknowledged',
  dismissed: 'dismissed',
  open_at_merge: 'open at merge',
  closed_unmerged: 'closed unmerged',
};

/** A posted finding's outcome, with the GitHub fact it rests on and when it was decided. */
function Outcome({ f }: { f: Finding }) {
  const label = OUTCOME_LABELS[f.outcome] ?? f.outcome;
  return (
    <span className="finding-outcome">
      <span className={`badge outcome-${f.outcome}`}>{label}</span>
      {f.outcome !== 'open' && (f.outcomeReason || f.outcomeAt) && (
        <span className="muted">
          {f.outcomeReason}
          {f.outcomeAt && <> · {formatTime(f.outcomeAt)}</>}
        </span>
      )}
    </span>
  );
}

function FindingItem({ f }: { f: Finding }) {
  const lines = f.startLine && f.startLine !== f.line ? `lines ${f.startLine}–${f.line}` : f.line ? `line ${f.line}` : 'file';
  return (
    <li className={`finding sev-border-${f.severity}`}>
      <div className="finding-head">
        <SeverityBadge severity={f.severity} />
        <strong>{f.title}</strong>
        <span className="muted">
          {f.category} · {lines}
        </span>
      </div>
      <div className="finding-state">
        {f.posted ? (
          <>
            <span className="badge posted">posted {f.placement === 'body' ? 'in the review body' : 'inline'}</span>
            {f.commentURL && (
              <a href={f.commentURL} target="_blank" rel="noreferrer">
                View comment
              </a>
            )}
            {f.resolved && <span className="badge">resolved</span>}
            <Outcome f={f} />
          </>
        ) : (
          <span className="badge dropped">dropped{f.droppedReason ? `: ${f.droppedReason}` : ''}</span>
        )}
      </div>
      <details>
        <summary>Reasoning</summary>
        <p className="prewrap">{f.body}</p>
        {f.suggestion && (
          <>
            <p>Suggested fix:</p>
            <pre className="code">{f.suggestion}</pre>
          </>
        )}
      </details>
    </li>
  );
}

export function FindingList({ runID, total }: { runID: string; total: number }) {
  // Each "Show more" adds the next page below the ones already shown.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  return (
    <section aria-labelledby="findings-h">
      <h2 id="findings-h">Findings {total > 0 && <span className="muted">({total})</span>}</h2>
      {cursors.map((c, i) => (
        <FindingPage key={c ?? 'first'} runID={runID} after={c} last={i === cursors.length - 1} onMore={(next) => setCursors([...cursors, next])} />
      ))}
    </section>
  );
}
