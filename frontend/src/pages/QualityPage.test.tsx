import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import QualityPage, { acceptanceSeries } from './QualityPage';
import { pending, setup } from '../test/harness';

const figures = (over: Record<string, unknown> = {}) => ({
  __typename: 'QualityFigures',
  findings: 10,
  open: 2,
  fixed: 4,
  acknowledged: 1,
  dismissed: 2,
  openAtMerge: 1,
  closedUnmerged: 0,
  decided: 8,
  acceptanceRate: 0.625,
  dismissRate: 0.25,
  pullRequests: 4,
  findingsPerPullRequest: 2.5,
  costPerFixedFinding: 1.5,
  ...over,
});

const report = (over: Record<string, unknown> = {}) => ({
  data: {
    quality: {
      __typename: 'QualityReport',
      total: figures(),
      groups: [
        { __typename: 'QualityGroup', key: 'security', figures: figures({ findings: 7, acceptanceRate: 0.8 }) },
        { __typename: 'QualityGroup', key: 'style', figures: figures({ findings: 3, acceptanceRate: 0.25, costPerFixedFinding: null }) },
      ],
      series: [
        { __typename: 'QualityPoint', key: '2026-11-02', figures: { __typename: 'QualityFigures', decided: 4, acceptanceRate: 0.5 } },
        { __typename: 'QualityPoint', key: '2026-11-03', figures: { __typename: 'QualityFigures', decided: 4, acceptanceRate: 0.75 } },
      ],
      ...over,
    },
  },
});

const PERIOD = '/?from=2026-11-01&to=2026-11-03';

describe('acceptanceSeries', () => {
  it('puts a point on every UTC day of the period, zero where nothing was decided', () => {
    const pts = acceptanceSeries([{ key: '2026-11-02', figures: { acceptanceRate: 0.5 } }], '2026-11-01T00:00:00Z', '2026-11-04T00:00:00Z', false);
    expect(pts.map((p) => [p.key, p.value])).toEqual([
      ['2026-11-01', 0],
      ['2026-11-02', 0.5],
      ['2026-11-03', 0],
    ]);
  });
});

describe('Quality page', () => {
  it('shows the figures, the acceptance rate over time and a table by reviewer', async () => {
    const t = setup(<QualityPage />, { path: PERIOD, handlers: { QualityPage: () => report() } });
    expect(await screen.findByText('Acceptance rate')).toBeTruthy();
    expect(screen.getByText('63%')).toBeTruthy(); // 0.625
    expect(screen.getByText('of 8 decided')).toBeTruthy();
    expect(screen.getByText('2.5', { selector: 'dd' })).toBeTruthy();
    expect(screen.getByText('$1.50', { selector: 'dd' })).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Acceptance rate by day' })).toBeTruthy();
    const call = t.callsOf('QualityPage')[0];
    expect(call.variables.groupBy).toBe('REVIEWER');
    expect(call.variables.interval).toBe('DAY');
    const table = screen.getByRole('table');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getByRole('rowheader').textContent)).toEqual(['security', 'style']);
    expect(within(rows[0]).getByText('80%')).toBeTruthy();
    // No fixed finding's cost: a dash, not $0.
    expect(within(rows[1]).getAllByText('—')).toHaveLength(1);
  });

  it('groups by what the select says', async () => {
    const t = setup(<QualityPage />, { path: PERIOD, handlers: { QualityPage: () => report() } });
    await screen.findByRole('table');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'By' }), 'SEVERITY');
    await waitFor(() => expect(t.callsOf('QualityPage').map((c) => c.variables.groupBy)).toContain('SEVERITY'));
    expect(await screen.findByRole('heading', { name: 'By severity' })).toBeTruthy();
  });

  it('asks for weeks over a long period', async () => {
    const t = setup(<QualityPage />, { path: '/?from=2026-01-01&to=2026-11-30', handlers: { QualityPage: () => report() } });
    expect(await screen.findByRole('img', { name: 'Acceptance rate by week' })).toBeTruthy();
    expect(t.callsOf('QualityPage')[0].variables.interval).toBe('WEEK');
  });

  it('has loading, empty and error states', async () => {
    const loading = setup(<QualityPage />, { path: PERIOD, handlers: { QualityPage: pending } });
    expect(await screen.findByText('Adding up outcomes…')).toBeTruthy();
    loading.unmount();

    const empty = setup(<QualityPage />, { path: PERIOD, handlers: { QualityPage: () => report({ total: figures({ findings: 0 }), groups: [], series: [] }) } });
    expect(await screen.findByText('No posted findings in this period')).toBeTruthy();
    empty.unmount();

    let n = 0;
    setup(<QualityPage />, {
      path: PERIOD,
      handlers: { QualityPage: () => (n++ === 0 ? { errors: [{ message: 'the period may span at most two years', extensions: { code: 'INVALID' } }] } : report()) },
    });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch('the period may span at most two years');
    await userEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('table')).toBeTruthy();
  });
});
