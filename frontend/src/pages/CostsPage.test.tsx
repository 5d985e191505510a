import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import CostsPage, { periodColumns, stackSeries } from './CostsPage';
import { pending, setup } from '../test/harness';

const bucket = (over: Record<string, unknown> = {}) => ({
  __typename: 'CostBucket',
  key: 'k',
  start: null,
  costUsd: 1,
  runs: 1,
  succeededRuns: 1,
  failedRuns: 0,
  inputTokens: 10,
  outputTokens: 5,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costPerFinding: 0.5,
  p50DurationMs: 1000,
  p95DurationMs: 2000,
  findings: { __typename: 'SeverityCounts', total: 2 },
  ...over,
});

const noBudgets = () => ({ data: { budgets: [] } });

const summary = () => ({
  data: {
    series: {
      __typename: 'CostSummary',
      total: bucket({ costUsd: 6, runs: 3 }),
      buckets: [bucket({ key: '2026-11-02', start: '2026-11-02T00:00:00Z', costUsd: 6 })],
      backtest: { __typename: 'BacktestShare', runs: 0, costUsd: 0 },
    },
    byReviewer: { __typename: 'CostSummary', buckets: [bucket({ key: 'security', costUsd: 4 }), bucket({ key: 'style', costUsd: 2 })] },
    byRepository: { __typename: 'CostSummary', buckets: [bucket({ key: 'acme/api', costUsd: 6 })] },
    expensivePullRequests: [],
  },
});

const series = (key: string, points: [string, number][]) => ({
  __typename: 'CostSeries',
  key,
  total: { __typename: 'CostBucket', costUsd: points.reduce((s, [, v]) => s + v, 0), runs: points.length },
  points: points.map(([k, v]) => ({ __typename: 'CostBucket', key: k, costUsd: v })),
});

const PERIOD = '/?from=2026-11-01&to=2026-11-03';

describe('periodColumns', () => {
  it('lists the UTC days of the period', () => {
    expect(periodColumns('2026-11-01T00:00:00Z', '2026-11-04T00:00:00Z', false).map((c) => c.key)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03']);
    // A local day that starts before midnight UTC covers the previous UTC day too.
    expect(periodColumns('2026-10-31T18:30:00Z', '2026-11-01T18:30:00Z', false).map((c) => c.key)).toEqual(['2026-10-31', '2026-11-01']);
  });

  it('lists weeks by their Monday', () => {
    // 2026-11-04 is a Wednesday; its week starts on Monday 2026-11-02.
    expect(periodColumns('2026-11-04T00:00:00Z', '2026-11-20T00:00:00Z', true).map((c) => c.key)).toEqual(['2026-11-02', '2026-11-09', '2026-11-16']);
  });
});

describe('stackSeries', () => {
  const cols = [{ key: 'a' }, { key: 'b' }, { key: 'c' }];
  it('puts each series on the columns, zero where it had no runs, ignoring points outside', () => {
    expect(stackSeries([series('security', [['b', 2], ['z', 9]])], cols)).toEqual([{ key: 'security', label: 'security', values: [0, 2, 0] }]);
  });

  it('keeps the most expensive series and adds the rest up as Other', () => {
    const many = ['s1', 's2', 's3', 's4'].map((k, i) => series(k, [['a', 4 - i], ['c', 1]]));
    const out = stackSeries(many, cols, 3);
    expect(out.map((s) => s.label)).toEqual(['s1', 's2', 'Other (2)']);
    expect(out[2].values).toEqual([2 + 1, 0, 2]);
    // Nothing is lost: the stacked total is the sum of every series.
    const total = (xs: { values: number[] }[]) => xs.flatMap((x) => x.values).reduce((a, b) => a + b, 0);
    expect(total(out)).toBe(4 + 3 + 2 + 1 + 4);
  });
});

describe('Costs page, over time', () => {
  it('stacks cost by reviewer and by repository per day, with a legend and the figures', async () => {
    const t = setup(<CostsPage />, {
      path: PERIOD,
      handlers: {
        Budgets: noBudgets,
        CostsPage: summary,
        CostSeries: (v) =>
          v.by === 'REVIEWER'
            ? { data: { costSeries: [series('security', [['2026-11-01', 3], ['2026-11-02', 1]]), series('style', [['2026-11-02', 2]])] } }
            : { data: { costSeries: [series('acme/api', [['2026-11-02', 6]])] } },
      },
    });
    const byReviewer = await screen.findByRole('region', { name: 'Over time by reviewer' });
    await within(byReviewer).findByRole('img', { name: 'Cost by day and reviewer' });
    const calls = t.callsOf('CostSeries');
    expect(calls.map((c) => c.variables.by).sort()).toEqual(['REPOSITORY', 'REVIEWER']);
    expect(calls[0].variables.interval).toBe('DAY');
    const legend = within(byReviewer).getByRole('list', { name: 'Cost by day and reviewer: totals' });
    expect(within(legend).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['security $4.00', 'style $2.00']);
    // Two reviewers on 11-02 stack in one column: one bar each.
    const bars = byReviewer.querySelectorAll('svg[role="img"] rect');
    expect(bars).toHaveLength(3);
    // The figures, for keyboards and screen readers.
    await userEvent.click(within(byReviewer).getByText('Show the figures'));
    const rows = within(byReviewer).getAllByRole('row');
    expect(rows.map((r) => r.textContent)).toContain('2026-11-02$1.00$2.00');
    const byRepo = screen.getByRole('region', { name: 'Over time by repository' });
    expect(within(byRepo).getByRole('img', { name: 'Cost by day and repository' })).toBeTruthy();
  });

  it('shows the backtest share of the cost only when backtests ran', async () => {
    const withBacktests = () => {
      const d = summary();
      d.data.series.backtest = { __typename: 'BacktestShare', runs: 4, costUsd: 1.5 };
      return d;
    };
    setup(<CostsPage />, { path: PERIOD, handlers: { Budgets: noBudgets, CostsPage: withBacktests, CostSeries: () => ({ data: { costSeries: [] } }) } });
    const share = (await screen.findByText('Of which backtests')).closest('div')!;
    expect(share.textContent).toBe('Of which backtests$1.50 (4 shadow runs)');
  });

  it('says nothing of backtests when none ran', async () => {
    setup(<CostsPage />, { path: PERIOD, handlers: { Budgets: noBudgets, CostsPage: summary, CostSeries: () => ({ data: { costSeries: [] } }) } });
    await screen.findByText('Total cost');
    expect(screen.queryByText('Of which backtests')).toBeNull();
  });

  it('has its own loading, empty and error states', async () => {
    const loading = setup(<CostsPage />, { path: PERIOD, handlers: { Budgets: noBudgets, CostsPage: summary, CostSeries: pending } });
    expect(await screen.findByText('Adding up costs by reviewer…')).toBeTruthy();
    expect(screen.getByText('Adding up costs by repository…')).toBeTruthy();
    loading.unmount();

    const empty = setup(<CostsPage />, { path: PERIOD, handlers: { Budgets: noBudgets, CostsPage: summary, CostSeries: () => ({ data: { costSeries: [] } }) } });
    expect(await screen.findByText('No costs by reviewer in this period')).toBeTruthy();
    empty.unmount();

    let n = 0;
    setup(<CostsPage />, {
      path: PERIOD,
      handlers: {
        Budgets: noBudgets,
        CostsPage: summary,
        CostSeries: (v) => (v.by === 'REVIEWER' && n++ === 0 ? { errors: [{ message: 'Too many series.', extensions: { code: 'INVALID' } }] } : { data: { costSeries: [series('security', [['2026-11-01', 1]])] } }),
      },
    });
    const byReviewer = await screen.findByRole('region', { name: 'Over time by reviewer' });
    const alert = await within(byReviewer).findByRole('alert');
    expect(alert.textContent).toMatch('Too many series.');
    // The other chart is unaffected.
    expect(await within(screen.getByRole('region', { name: 'Over time by repository' })).findByRole('img')).toBeTruthy();
    await userEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(within(byReviewer).getByRole('img', { name: 'Cost by day and reviewer' })).toBeTruthy());
  });

  it('asks for weeks over a long period', async () => {
    const t = setup(<CostsPage />, { path: '/?from=2026-01-01&to=2026-11-30', handlers: { Budgets: noBudgets, CostsPage: summary, CostSeries: () => ({ data: { costSeries: [series('security', [['2026-11-02', 1]])] } }) } });
    expect(await screen.findByRole('img', { name: 'Cost by week and reviewer' })).toBeTruthy();
    expect(t.callsOf('CostSeries')[0].variables.interval).toBe('WEEK');
  });
});

describe('Costs page, by model provider', () => {
  it('shows cost by provider once runs went beyond Anthropic, named for people', async () => {
    const withProviders = () => {
      const s = summary();
      return {
        data: {
          ...s.data,
          byProvider: { __typename: 'CostSummary', buckets: [bucket({ key: 'bedrock', costUsd: 5, runs: 2 }), bucket({ key: 'anthropic', costUsd: 1 }), bucket({ key: '', costUsd: 0 })] },
        },
      };
    };
    setup(<CostsPage />, { path: PERIOD, handlers: { CostsPage: withProviders, CostSeries: () => ({ data: { costSeries: [] } }) } });
    expect(await screen.findByText('Amazon Bedrock (2 runs)')).toBeTruthy();
    expect(screen.getByText('Anthropic (1 runs)')).toBeTruthy();
  });

  it('stays out of the way when every run went to Anthropic', async () => {
    const onlyAnthropic = () => {
      const s = summary();
      return { data: { ...s.data, byProvider: { __typename: 'CostSummary', buckets: [bucket({ key: 'anthropic' })] } } };
    };
    setup(<CostsPage />, { path: PERIOD, handlers: { CostsPage: onlyAnthropic, CostSeries: () => ({ data: { costSeries: [] } }) } });
    await screen.findByRole('heading', { name: 'By repository' });
    expect(screen.queryByRole('heading', { name: 'By model provider' })).toBeNull();
  });
});
