// Costs: spend over time, by reviewer and repository, and the costliest PRs.
import { useMemo } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../gql';
import PeriodFields from '../components/PeriodFields';
import { BarList, ColumnChart, SERIES_COLOURS, StackedColumnChart, type Point, type StackSeries } from '../components/Charts';
import { Empty, ErrorState, Loading } from '../components/States';
import { dayEnd, dayStart, formatCost, formatCount, formatDuration, isoDay } from '../lib/format';
import { useUrlState } from '../lib/url';
import { BudgetsPanel } from '../components/BudgetsPanel';
import { providerName } from '../lib/providers';

const CostsPageQuery = graphql(`
  query CostsPage($from: Time!, $to: Time!, $series: CostGroupBy!) {
    series: costSummary(from: $from, to: $to, groupBy: $series) {
      total {
        costUsd
        runs
        succeededRuns
        failedRuns
        inputTokens
        outputTokens
        cacheReadTokens
        cacheWriteTokens
        costPerFinding
        p50DurationMs
        p95DurationMs
        findings {
          total
        }
      }
      buckets {
        key
        start
        costUsd
        runs
      }
      backtest {
        runs
        costUsd
      }
    }
    byReviewer: costSummary(from: $from, to: $to, groupBy: REVIEWER) {
      buckets {
        key
        costUsd
        runs
        costPerFinding
        findings {
          total
        }
      }
    }
    byRepository: costSummary(from: $from, to: $to, groupBy: REPOSITORY) {
      buckets {
        key
        costUsd
        runs
        costPerFinding
        findings {
          total
        }
      }
    }
    byProvider: costSummary(from: $from, to: $to, groupBy: PROVIDER) {
      buckets {
        key
        costUsd
        runs
      }
    }
    expensivePullRequests(from: $from, to: $to, limit: 10) {
      repository {
        id
        fullName
      }
      prNumber
      prTitle
      prURL
      costUsd
      runs
      findings
    }
  }
`);

export const CostSeriesQuery = graphql(`
  query CostSeries($from: Time!, $to: Time!, $interval: CostInterval!, $by: CostSeriesBy!) {
    costSeries(from: $from, to: $to, interval: $interval, by: $by) {
      key
      total {
        costUsd
        runs
      }
      points {
        key
        costUsd
      }
    }
  }
`);

/** The period from the URL (YYYY-MM-DD, inclusive), defaulting to the last 30 days. */
export function period(fromDay: string, toDay: string, today = new Date()) {
  const to = toDay && dayStart(toDay) ? toDay : isoDay(today);
  let from = fromDay && dayStart(fromDay) ? fromDay : '';
  if (!from) {
    const d = new Date(dayStart(to)!);
    d.setDate(d.getDate() - 29);
    from = isoDay(d);
  }
  if (from > to) from = to;
  const days = Math.round((Date.parse(dayEnd(to)!) - Date.parse(dayStart(from)!)) / 86400000);
  return { from, to, fromISO: dayStart(from)!, toISO: dayEnd(to)!, days, series: days > 92 ? ('WEEK' as const) : ('DAY' as const) };
}

/** One point per day (or week) of the period, zero where there were no runs. */
export function fillSeries(buckets: { key: string; costUsd: number }[], from: string, to: string, weekly: boolean): Point[] {
  const byKey = new Map(buckets.map((b) => [b.key, b.costUsd]));
  if (weekly) return buckets.map((b) => ({ key: b.key, label: b.key.slice(5), value: b.costUsd }));
  const out: Point[] = [];
  const d = new Date(dayStart(from)!);
  const end = dayStart(to)!;
  for (let i = 0; i < 400 && d.toISOString() <= end; i++) {
    const key = isoDay(d);
    out.push({ key, label: key.slice(5), value: byKey.get(key) ?? 0 });
    d.setDate(d.getDate() + 1);
  }
  return out;
}

/** The UTC days (or weeks, by their Monday) that [fromISO, toISO) covers, as the server buckets them. */
export function periodColumns(fromISO: string, toISO: string, weekly: boolean): { key: string; label: string }[] {
  const day = (t: Date) => t.toISOString().slice(0, 10);
  const d = new Date(day(new Date(fromISO)) + 'T00:00:00Z');
  if (weekly) d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7)); // back to Monday
  const end = Date.parse(toISO);
  const out: { key: string; label: string }[] = [];
  for (let i = 0; i < 400 && d.getTime() < end; i++) {
    const key = day(d);
    out.push({ key, label: key.slice(5) });
    d.setUTCDate(d.getUTCDate() + (weekly ? 7 : 1));
  }
  return out;
}

/**
 * The series for a stacked chart: the most expensive (the server orders them)
 * each in a colour of its own, the rest added up as "Other"; a value per
 * column, zero where a series had no runs.
 */
export function stackSeries(series: { key: string; points: { key: string; costUsd: number }[] }[], columns: { key: string }[], max = SERIES_COLOURS): StackSeries[] {
  const index = new Map(columns.map((c, i) => [c.key, i]));
  const values = (s: (typeof series)[number]) => {
    const v = columns.map(() => 0);
    for (const p of s.points) {
      const i = index.get(p.key);
      if (i !== undefined) v[i] += p.costUsd;
    }
    return v;
  };
  const own = series.length > max ? series.slice(0, max - 1) : series;
  const out = own.map((s) => ({ key: s.key, label: s.key, values: values(s) }));
  if (series.length > max) {
    const rest = series.slice(max - 1);
    const other = columns.map(() => 0);
    for (const s of rest) values(s).forEach((v, i) => (other[i] += v));
    out.push({ key: '\u0000other', label: `Other (${rest.length})`, values: other });
  }
  return out;
}

/** Cost over time, one stacked series per reviewer or repository, with its own loading, empty and error states. */
function CostOverTime({ by, fromISO, toISO, weekly }: { by: 'REVIEWER' | 'REPOSITORY'; fromISO: string; toISO: string; weekly: boolean }) {
  const variables = useMemo(() => ({ from: fromISO, to: toISO, interval: weekly ? ('WEEK' as const) : ('DAY' as const), by }), [fromISO, toISO, weekly, by]);
  const [res, reexecute] = useQuery({ query: CostSeriesQuery, variables });
  const what = by === 'REVIEWER' ? 'reviewer' : 'repository';
  const title = `Cost by ${weekly ? 'week' : 'day'} and ${what}`;
  const columns = useMemo(() => periodColumns(fromISO, toISO, weekly), [fromISO, toISO, weekly]);
  const series = useMemo(() => (res.data ? stackSeries(res.data.costSeries, columns) : []), [res.data, columns]);
  return (
    <section aria-labelledby={`over-time-${by}`}>
      <h2 id={`over-time-${by}`}>Over time by {what}</h2>
      {res.error && !res.data ? (
        <ErrorState error={res.error} retry={() => reexecute({ requestPolicy: 'network-only' })} title={`The cost by ${what} could not be loaded`} />
      ) : !res.data ? (
        <Loading label={`Adding up costs by ${what}…`} />
      ) : series.length === 0 ? (
        <Empty title={`No costs by ${what} in this period`} />
      ) : (
        <StackedColumnChart title={title} columns={columns} series={series} />
      )}
    </section>
  );
}

export default function CostsPage() {
  const [q, set] = useUrlState(['from', 'to'] as const);
  const p = period(q.from, q.to);
  const variables = useMemo(() => ({ from: p.fromISO, to: p.toISO, series: p.series }), [p.fromISO, p.toISO, p.series]);
  const [res, reexecute] = useQuery({ query: CostsPageQuery, variables });
  const d = res.data;
  const total = d?.series.total;

  return (
    <div className="page">
      <div className="page-head">
        <h1>Costs</h1>
      </div>
      <form className="filters" aria-label="Period" onSubmit={(e) => e.preventDefault()}>
        <PeriodFields p={p} set={set} />
      </form>
      {res.error && !d ? (
        <ErrorState error={res.error} retry={() => reexecute({ requestPolicy: 'network-only' })} />
      ) : !d || !total ? (
        <Loading label="Adding up costs…" />
      ) : total.runs === 0 ? (
        <Empty title="No runs in this period">Pick a longer period, or come back after some reviews.</Empty>
      ) : (
        <>
          <dl className="totals">
            <div>
              <dt>Total cost</dt>
              <dd>{formatCost(total.costUsd)}</dd>
            </div>
            <div>
              <dt>Runs</dt>
              <dd>
                {total.runs} <span className="muted">({total.failedRuns} failed)</span>
              </dd>
            </div>
            {d.series.backtest.runs > 0 && (
              <div>
                <dt>Of which backtests</dt>
                <dd>
                  {formatCost(d.series.backtest.costUsd)} <span className="muted">({d.series.backtest.runs} shadow runs)</span>
                </dd>
              </div>
            )}
            <div>
              <dt>Findings</dt>
              <dd>{total.findings.total}</dd>
            </div>
            <div>
              <dt>Cost per finding</dt>
              <dd>{total.costPerFinding == null ? '—' : formatCost(total.costPerFinding)}</dd>
            </div>
            <div>
              <dt>Tokens</dt>
              <dd>{formatCount(total.inputTokens + total.outputTokens + total.cacheReadTokens + total.cacheWriteTokens)}</dd>
            </div>
            <div>
              <dt>Duration p50 / p95</dt>
              <dd>
                {formatDuration(total.p50DurationMs)} / {formatDuration(total.p95DurationMs)}
              </dd>
            </div>
          </dl>
          <section>
            <h2>Cost by {p.series === 'WEEK' ? 'week' : 'day'}</h2>
            <ColumnChart title={`Cost by ${p.series === 'WEEK' ? 'week' : 'day'}`} points={fillSeries(d.series.buckets, p.from, p.to, p.series === 'WEEK')} />
          </section>
          <CostOverTime by="REVIEWER" fromISO={p.fromISO} toISO={p.toISO} weekly={p.series === 'WEEK'} />
          <CostOverTime by="REPOSITORY" fromISO={p.fromISO} toISO={p.toISO} weekly={p.series === 'WEEK'} />
          <div className="cols">
            <section>
              <h2>By reviewer</h2>
              <BarList title="Cost by reviewer" points={d.byReviewer.buckets.slice(0, 15).map((b) => ({ key: b.key, label: `${b.key} (${b.runs} runs)`, value: b.costUsd }))} />
            </section>
            <section>
              <h2>By repository</h2>
              <BarList title="Cost by repository" points={d.byRepository.buckets.slice(0, 15).map((b) => ({ key: b.key, label: `${b.key} (${b.runs} runs)`, value: b.costUsd }))} />
            </section>
          </div>
          {(d.byProvider?.buckets ?? []).some((b) => b.key !== '' && b.key !== 'anthropic') && (
            <section>
              <h2>By model provider</h2>
              <BarList title="Cost by model provider" points={(d.byProvider?.buckets ?? []).filter((b) => b.key !== '').map((b) => ({ key: b.key, label: `${providerName(b.key)} (${b.runs} runs)`, value: b.costUsd }))} />
            </section>
          )}
          <section>
            <h2>Most expensive pull requests</h2>
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Pull request</th>
                    <th scope="col" className="num">
                      Cost
                    </th>
                    <th scope="col" className="num">
                      Runs
                    </th>
                    <th scope="col" className="num">
                      Findings
                    </th>
                    <th scope="col" className="num">
                      Per finding
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {d.expensivePullRequests.map((pr) => (
                    <tr key={pr.prURL}>
                      <td>
                        <a href={pr.prURL} target="_blank" rel="noreferrer">
                          {pr.repository.fullName}#{pr.prNumber}
                        </a>
                        <div className="sub truncate">{pr.prTitle}</div>
                      </td>
                      <td className="num">{formatCost(pr.costUsd)}</td>
                      <td className="num">{pr.runs}</td>
                      <td className="num">{pr.findings}</td>
                      <td className="num">{pr.findings ? formatCost(pr.costUsd / pr.findings) : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        </>
      )}
      <BudgetsPanel />
    </div>
  );
}
