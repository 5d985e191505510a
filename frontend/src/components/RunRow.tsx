// One row of the runs table.
import { Link } from 'wouter';
import { graphql, getFragmentData, type FragmentType } from '../gql';
import { ago, formatCost, formatDuration, formatTime } from '../lib/format';
import { humanize } from '../lib/runStatus';
import { SeverityCounts, StatusBadge } from './Badges';

export const RunRowFragment = graphql(`
  fragment RunRow_run on Run {
    id
    status
    kind
    trigger
    shadow
    backtestSide
    prNumber
    prTitle
    createdAt
    durationMs
    costUsd
    repository {
      id
      fullName
    }
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
    links {
      pullRequest
      checkRun
      actionsRun
    }
  }
`);

/** "old" → "version in force", "new" → "changed version": the reviewer a shadow run ran. */
export function backtestSideLabel(side: string): string {
  if (side === 'old') return 'version in force';
  if (side === 'new') return 'changed version';
  return 'backtest';
}

export function RunRow(props: { run: FragmentType<typeof RunRowFragment> }) {
  const run = getFragmentData(RunRowFragment, props.run);
  return (
    <tr>
      <td>
        <Link href={`/runs/${encodeURIComponent(run.id)}`} className="run-link">
          {run.repository.fullName}#{run.prNumber}
        </Link>
        <div className="sub truncate" title={run.prTitle}>
          {run.prTitle}
        </div>
      </td>
      <td>{run.reviewer.name}</td>
      <td>
        <StatusBadge status={run.status} />
      </td>
      <td className="hide-narrow">
        {humanize(run.trigger)}
        {run.kind === 'reply' && <span className="muted"> (reply)</span>}
        {run.shadow && <span className="muted"> ({backtestSideLabel(run.backtestSide)})</span>}
      </td>
      <td>
        <SeverityCounts counts={run.findingCounts} />
      </td>
      <td className="num">{formatCost(run.costUsd)}</td>
      <td className="num hide-narrow">{formatDuration(run.durationMs)}</td>
      <td className="hide-narrow">
        <time dateTime={run.createdAt} title={formatTime(run.createdAt)}>
          {ago(run.createdAt)}
        </time>
      </td>
      <td className="links">
        <a href={run.links.pullRequest} target="_blank" rel="noreferrer">
          PR
        </a>
        {run.links.checkRun && (
          <a href={run.links.checkRun} target="_blank" rel="noreferrer">
            Check
          </a>
        )}
        {run.links.actionsRun && (
          <a href={run.links.actionsRun} target="_blank" rel="noreferrer">
            Actions
          </a>
        )}
      </td>
    </tr>
  );
}

export function RunsTable({ runs, caption }: { runs: { id: string; run: FragmentType<typeof RunRowFragment> }[]; caption: string }) {
  return (
    <div className="table-wrap">
      <table className="runs">
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Pull request</th>
            <th scope="col">Reviewer</th>
            <th scope="col">Status</th>
            <th scope="col" className="hide-narrow">
              Trigger
            </th>
            <th scope="col">Findings</th>
            <th scope="col" className="num">
              Cost
            </th>
            <th scope="col" className="num hide-narrow">
              Duration
            </th>
            <th scope="col" className="hide-narrow">
              Created
            </th>
            <th scope="col">Links</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <RunRow key={r.id} run={r.run} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
