// Quality: what became of the findings reviewers posted (README "Quality page"),
// over time and by reviewer, category, severity or repository.
import { useMemo } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../gql';
import type { QualityGroupBy } from '../gql/graphql';
import { ColumnChart, type Point } from '../components/Charts';
import PeriodFields from '../components/PeriodFields';
import { Empty, ErrorState, Loading } from '../components/States';
import { formatCost, formatPercent } from '../lib/format';
import { useUrlState } from '../lib/url';
import { period, periodColumns } from './CostsPage';

const QualityPageQuery = graphql(`
  query QualityPage($from: Time!, $to: Time!, $groupBy: QualityGroupBy!, $interval: CostInterval!) {
    quality(from: $from, to: $to, groupBy: $groupBy, interval: $interval) {
      total {
        findings
        open
        fixed
        acknowledged
        dismissed
        openAtMerge
        closedUnmerged
        decided
        acceptanceRate
        dismissRate
        pullRequests
        findingsPerPullRequest
        costPerFixedFinding
      }
      groups {
        key
        figures {
          findings
          open
          fixed
          acknowledged
          dismissed
          openAtMerge
          closedUnmerged
          decided
          acceptanceRate
          dismissRate
          pullRequests
          findingsPerPullRequest
          costPerFixedFinding
        }
      }
      series {
        key
        figures {
          decided
          acceptanceRate
        }
      }
    }
  }
`);

const GROUPS: { value: QualityGroupBy; label: string }[] = [
  { value: 'REVIEWER' as QualityGroupBy, label: 'Reviewer' },
  { value: 'CATEGORY' as QualityGroupBy, label: 'Category' },
  { value: 'SEVERITY' as QualityGroupBy, label: 'Severity' },
  { value: 'REPOSITORY' as QualityGroupBy, label: 'Repository' },
  // What demote_below_acceptance judges: pick the 90-day preset to see what it sees.
  { value: 'REVIEWER_CATEGORY' as QualityGroupBy, label: 'Reviewer and category' },
];

/** The acceptance rate per day or week of the period, zero where nothing was decided. */
export function acceptanceSeries(series: { key: string; figures: { acceptanceRate?: number | null } }[], fromISO: string, toISO: string, weekly: boolean): Point[] {
  const byKey = new Map(series.map((s) => [s.key, s.figures.acceptanceRate ?? 0]));
  return periodColumns(fromISO, toISO, weekly).map((c) => ({ key: c.key, label: c.label, value: byKey.get(c.key) ?? 0 }));
}

const perPR = (v: number | null | undefined) => (v == null ? '—' : v.toFixed(1));

export default function QualityPage() {
  const [q, set] = useUrlState(['from', 'to', 'by'] as const);
  const p = period(q.from, q.to);
  const groupBy = (GROUPS.find((g) => g.value === q.by) ?? GROUPS[0]).value;
  const groupLabel = GROUPS.find((g) => g.value === groupBy)!.label;
  const weekly = p.series === 'WEEK';
  const variables = useMemo(() => ({ from: p.fromISO, to: p.toISO, groupBy, interval: p.series }), [p.fromISO, p.toISO, groupBy, p.series]);
  const [res, reexecute] = useQuery({ query: QualityPageQuery, variables });
  const d = res.data?.quality;
  const t = d?.total;

  return (
    <div className="page">
      <div className="page-head">
        <h1>Quality</h1>
      </div>
      <form className="filters" aria-label="Period and grouping" onSubmit={(e) => e.preventDefault()}>
        <PeriodFields p={p} set={set}>
          <label>
            By
            <select name="by" value={groupBy} onChange={(e) => set({ by: e.target.value })}>
              {GROUPS.map((g) => (
                <option key={g.value} value={g.value}>
                  {g.label}
                </option>
              ))}
            </select>
          </label>
        </PeriodFields>
      </form>
      {res.error && !d ? (
        <ErrorState error={res.error} retry={() => reexecute({ requestPolicy: 'network-only' })} title="The quality figures could not be loaded" />
      ) : !d || !t ? (
        <Loading label="Adding up outcomes…" />
      ) : t.findings === 0 ? (
        <Empty title="No posted findings in this period">Pick a longer period, or come back after some reviews.</Empty>
      ) : (
        <>
          <dl className="totals">
            <div>
              <dt>Acceptance rate</dt>
              <dd>
                {formatPercent(t.acceptanceRate)} <span className="muted">of {t.decided} decided</span>
              </dd>
            </div>
            <div>
              <dt>Dismiss rate</dt>
              <dd>{formatPercent(t.dismissRate)}</dd>
            </div>
            <div>
              <dt>Findings posted</dt>
              <dd>
                {t.findings} <span className="muted">({t.open} open)</span>
              </dd>
            </div>
            <div>
              <dt>Findings per PR</dt>
              <dd>{perPR(t.findingsPerPullRequest)}</dd>
            </div>
            <div>
              <dt>Cost per fixed finding</dt>
              <dd>{t.costPerFixedFinding == null ? '—' : formatCost(t.costPerFixedFinding)}</dd>
            </div>
          </dl>
          <section aria-labelledby="quality-over-time">
            <h2 id="quality-over-time">Acceptance rate by {weekly ? 'week' : 'day'}</h2>
            <ColumnChart title={`Acceptance rate by ${weekly ? 'week' : 'day'}`} points={acceptanceSeries(d.series, p.fromISO, p.toISO, weekly)} format={formatPercent} />
          </section>
          <section aria-labelledby="quality-groups">
            <h2 id="quality-groups">By {groupLabel.toLowerCase()}</h2>
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{groupLabel}</th>
                    <th scope="col" className="num">
                      Posted
                    </th>
                    <th scope="col" className="num">
                      Fixed
                    </th>
                    <th scope="col" className="num">
                      Acknowledged
                    </th>
                    <th scope="col" className="num">
                      Dismissed
                    </th>
                    <th scope="col" className="num">
                      Open at merge / closed
                    </th>
                    <th scope="col" className="num">
                      Open
                    </th>
                    <th scope="col" className="num">
                      Acceptance
                    </th>
                    <th scope="col" className="num">
                      Dismiss rate
                    </th>
                    <th scope="col" className="num">
                      Per PR
                    </th>
                    <th scope="col" className="num">
                      Per fixed finding
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {d.groups.map((g) => {
                    const f = g.figures;
                    return (
                      <tr key={g.key}>
                        <th scope="row">{g.key || <span className="muted">(none)</span>}</th>
                        <td className="num">{f.findings}</td>
                        <td className="num">{f.fixed}</td>
                        <td className="num">{f.acknowledged}</td>
                        <td className="num">{f.dismissed}</td>
                        <td className="num">
                          {f.openAtMerge} / {f.closedUnmerged}
                        </td>
                        <td className="num">{f.open}</td>
                        <td className="num">{formatPercent(f.acceptanceRate)}</td>
                        <td className="num">{formatPercent(f.dismissRate)}</td>
                        <td className="num">{perPR(f.findingsPerPullRequest)}</td>
                        <td className="num">{f.costPerFixedFinding == null ? '—' : formatCost(f.costPerFixedFinding)}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          </section>
        </>
      )}
    </div>
  );
}
