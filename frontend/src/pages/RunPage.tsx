// One run: timeline, failure, findings, how the review was made, cost and links.
import { useCallback } from 'react';
import { Link } from 'wouter';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../gql';
import { SeverityCounts, StatusBadge } from '../components/Badges';
import { FindingList } from '../components/FindingList';
import { backtestSideLabel } from '../components/RunRow';
import { Timeline } from '../components/Timeline';
import { ReviewMethod } from '../components/ReviewMethod';
import { ActionError, Empty, ErrorState, Loading } from '../components/States';
import { WriterOnly } from '../components/AdminOnly';
import { formatCost, formatCount, formatDuration, formatTime, shortSha } from '../lib/format';
import { useLiveRuns } from '../lib/live';
import { LiveBadge } from '../components/LiveBadge';
import { humanize, isActive } from '../lib/runStatus';
import { useSession } from '../lib/session';
import { providerName } from '../lib/providers';

export const RunPageQuery = graphql(`
  query RunPage($id: ID!) {
    run(id: $id) {
      id
      kind
      status
      trigger
      shadow
      backtestSide
      backtestID
      prNumber
      prTitle
      headSha
      headRef
      baseRef
      incrementalSince
      fullReviewReason
      requester
      note
      requestTarget
      model
      provider
      maxCostUsd
      createdAt
      finishedAt
      costUsd
      inputTokens
      outputTokens
      cacheReadTokens
      cacheWriteTokens
      modelPrice
      totalTokens
      turns
      durationMs
      summary
      failureReason
      failureDetail
      findingsPosted
      findingsDropped
      changedFiles
      additions
      deletions
      cancellable
      findingCounts {
        blocker
        major
        minor
        nit
        total
      }
      repository {
        id
        fullName
      }
      reviewer {
        id
        name
      }
      links {
        pullRequest
        checkRun
        actionsRun
        review
        incrementalCompare
      }
      timeline {
        id
        at
        fromStatus
        toStatus
        message
        detail
      }
      learningsApplied {
        id
        directive
        glob
        scope
      }
      ...ReviewMethod_run
    }
  }
`);

const CancelRunMutation = graphql(`
  mutation CancelRun($id: ID!) {
    cancelRun(id: $id) {
      id
      status
      cancellable
    }
  }
`);

export default function RunPage({ id }: { id: string }) {
  const { viewer } = useSession();
  const [res, reexecute] = useQuery({ query: RunPageQuery, variables: { id } });
  const [cancel, doCancel] = useMutation(CancelRunMutation);
  const run = res.data?.run;
  const refresh = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  const mode = useLiveRuns({ ids: [id], refresh, active: isActive(run?.status), fallbackMs: 3000 });

  if (res.error && !res.data) return <div className="page"><ErrorState error={res.error} retry={refresh} /></div>;
  if (!res.data) return <div className="page"><Loading label="Loading the run…" /></div>;
  if (!run)
    return (
      <div className="page">
        <Empty title="Run not found">It does not exist, or it belongs to a repository you cannot read. <Link href="/runs">Back to the runs</Link></Empty>
      </div>
    );

  return (
    <div className="page run-page">
      <p className="crumbs">
        <Link href={run.shadow ? '/runs?view=backtests' : '/runs'}>{run.shadow ? 'Backtest runs' : 'Runs'}</Link> / {run.repository.fullName}#{run.prNumber}
      </p>
      <div className="page-head">
        <h1>
          {run.prTitle || `Pull request #${run.prNumber}`} <span className="muted">· {run.reviewer.name}</span>
        </h1>
        <StatusBadge status={run.status} />
        <LiveBadge mode={mode} />
      </div>
      <div className="toolbar">
        <a className="button" href={run.links.pullRequest} target="_blank" rel="noreferrer">
          Pull request
        </a>
        {run.links.checkRun && (
          <a className="button" href={run.links.checkRun} target="_blank" rel="noreferrer">
            Check run
          </a>
        )}
        {run.links.actionsRun && (
          <a className="button" href={run.links.actionsRun} target="_blank" rel="noreferrer">
            Actions run
          </a>
        )}
        {run.links.review && (
          <a className="button" href={run.links.review} target="_blank" rel="noreferrer">
            Posted review
          </a>
        )}
        {run.cancellable && (
          <WriterOnly>
            <button
              type="button"
              className="danger"
              disabled={cancel.fetching}
              onClick={() => {
                if (window.confirm('Cancel this run?')) doCancel({ id: run.id });
              }}
            >
              Cancel run
            </button>
          </WriterOnly>
        )}
      </div>
      <ActionError error={cancel.error} />

      {run.shadow && (
        <p className="callout">
          <strong>Backtest run</strong> ({backtestSideLabel(run.backtestSide)} of {run.reviewer.name}, backtest {run.backtestID}): a replay of a
          reviewer change on this pull request as it was. Nothing was posted on the pull request; its findings are kept here only.
        </p>
      )}
      {run.status === 'failed' && (
        <div className="callout callout-error" role="alert">
          <strong>Failed:</strong> {run.failureReason || 'no reason recorded'}
          {viewer.isAdmin && run.failureDetail && (
            <details open>
              <summary>Operator detail</summary>
              <pre className="detail">{run.failureDetail}</pre>
            </details>
          )}
        </div>
      )}
      {run.incrementalSince ? (
        <p className="callout">
          Reviewed only the changes since{' '}
          {run.links.incrementalCompare ? (
            <a href={run.links.incrementalCompare} target="_blank" rel="noreferrer" className="mono">
              {shortSha(run.incrementalSince)}
            </a>
          ) : (
            <code>{shortSha(run.incrementalSince)}</code>
          )}
          .
        </p>
      ) : run.fullReviewReason ? (
        <p className="callout">Full review: {run.fullReviewReason}</p>
      ) : null}

      <dl className="facts">
        <div>
          <dt>Repository</dt>
          <dd>{run.repository.fullName}</dd>
        </div>
        <div>
          <dt>Head</dt>
          <dd className="mono">
            {run.headRef} @ {shortSha(run.headSha)}
          </dd>
        </div>
        <div>
          <dt>Trigger</dt>
          <dd>
            {humanize(run.trigger)}
            {run.requester && ` by ${run.requester}`}
            {run.requestTarget && ` (${run.requestTarget})`}
          </dd>
        </div>
        <div>
          <dt>Findings</dt>
          <dd>
            <SeverityCounts counts={run.findingCounts} /> <span className="muted">{run.findingsPosted} posted, {run.findingsDropped} dropped</span>
          </dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>
            {formatCost(run.costUsd)} <span className="muted">of {formatCost(run.maxCostUsd)} cap</span>
          </dd>
        </div>
        {run.modelPrice && (
          <div>
            <dt>Metered at</dt>
            <dd>{meteredAt(run.modelPrice)}</dd>
          </div>
        )}
        <div>
          <dt>Tokens</dt>
          <dd title={`input ${run.inputTokens}, output ${run.outputTokens}, cache read ${run.cacheReadTokens}, cache write ${run.cacheWriteTokens}`}>
            {formatCount(run.totalTokens)} <span className="muted">({formatCount(run.inputTokens)} in, {formatCount(run.outputTokens)} out, {formatCount(run.cacheReadTokens)} cached)</span>
          </dd>
        </div>
        <div>
          <dt>Turns</dt>
          <dd>{run.turns}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{formatDuration(run.durationMs)}</dd>
        </div>
        <div>
          <dt>Model</dt>
          <dd>
            <span className="mono">{run.model || '—'}</span>
            {run.provider && <span className="muted"> via {providerName(run.provider)}</span>}
          </dd>
        </div>
        <div>
          <dt>Diff</dt>
          <dd>
            {run.changedFiles} files, <span className="add">+{run.additions}</span> <span className="del">−{run.deletions}</span>
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatTime(run.createdAt)}</dd>
        </div>
      </dl>

      {run.note && (
        <section>
          <h2>Requester's note</h2>
          <p className="prewrap quote">{run.note}</p>
        </section>
      )}

      <Timeline status={run.status} events={run.timeline} createdAt={run.createdAt} showDetail={viewer.isAdmin} />

      {run.summary && (
        <section>
          <h2>Summary</h2>
          <p className="prewrap">{run.summary}</p>
        </section>
      )}

      <FindingList runID={run.id} total={run.findingCounts.total} />

      {run.kind === 'review' && <ReviewMethod run={run} />}

      <section aria-labelledby="learnings-h">
        <h2 id="learnings-h">Learnings applied</h2>
        {run.learningsApplied.length === 0 ? (
          <p className="muted">No review learnings matched this run's files.</p>
        ) : (
          <ul className="plain">
            {run.learningsApplied.map((l) => (
              <li key={l.id}>
                <span className="badge">{l.scope}</span> {l.glob && <code>{l.glob}</code>} {l.directive}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

/** The prices a run was metered at, per million tokens, from the stored JSON. */
export function meteredAt(json: string): string {
  try {
    const p = JSON.parse(json) as Record<string, number>;
    const usd = (n: number | undefined) => (n === undefined ? '?' : `$${n}`);
    return `${usd(p.input)} in, ${usd(p.output)} out, ${usd(p.cache_write_5m)} / ${usd(p.cache_write_1h)} cache write (5 m / 1 h), ${usd(p.cache_read)} cache read per million tokens`;
  } catch {
    return json;
  }
}
