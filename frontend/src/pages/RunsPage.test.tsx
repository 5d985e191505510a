import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route } from 'wouter';
import RunsPage, { runsWhere } from './RunsPage';
import { connection, emptyOptions, runNode } from '../test/fixtures';
import { pending, setup } from '../test/harness';

const page = (
  <Route path="/runs">
    <RunsPage />
  </Route>
);

describe('RunsPage', () => {
  it('shows a loading state while the runs load', async () => {
    setup(page, { path: '/runs', handlers: { RunsPage: pending, RunFilterOptions: emptyOptions } });
    expect((await screen.findByRole('status')).textContent).toMatch(/Loading runs/);
  });

  it('shows the empty state when there are no runs', async () => {
    setup(page, { path: '/runs', handlers: { RunsPage: () => ({ data: { runs: connection('Run', []) } }), RunFilterOptions: emptyOptions } });
    expect(await screen.findByText('No runs yet')).toBeTruthy();
  });

  it('offers to clear filters when filtered runs are empty', async () => {
    const t = setup(page, { path: '/runs?status=failed', handlers: { RunsPage: () => ({ data: { runs: connection('Run', []) } }), RunFilterOptions: emptyOptions } });
    expect(await screen.findByText('No runs match these filters')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Clear the filters' }));
    await waitFor(() => expect(t.history.at(-1)).toBe('/runs'));
  });

  it('shows the API error message with a retry', async () => {
    let n = 0;
    const t = setup(page, {
      path: '/runs',
      handlers: {
        RunsPage: () => (n++ === 0 ? { errors: [{ message: 'You do not have access to this.', extensions: { code: 'FORBIDDEN' } }] } : { data: { runs: connection('Run', [runNode()]) } }),
        RunFilterOptions: emptyOptions,
      },
    });
    const alert = await screen.findByRole('alert');
    expect((alert).textContent).toMatch('You do not have access to this.');
    await userEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('acme/api#7')).toBeTruthy();
    expect(t.callsOf('RunsPage').length).toBe(2);
  });

  it('shows a network error as unreachable', async () => {
    setup(page, {
      path: '/runs',
      handlers: {
        RunsPage: () => {
          throw new Error('connection refused');
        },
        RunFilterOptions: emptyOptions,
      },
    });
    expect((await screen.findByRole('alert')).textContent).toMatch(/could not be reached/);
  });

  it('renders rows with severity counts, cost and links', async () => {
    setup(page, { path: '/runs', handlers: { RunsPage: () => ({ data: { runs: connection('Run', [runNode()]) } }), RunFilterOptions: emptyOptions } });
    const link = await screen.findByRole('link', { name: 'acme/api#7' });
    expect(link.getAttribute('href')).toBe('/runs/UnVuOjE%3D');
    expect(screen.getByLabelText('1 blocker, 2 major, 0 minor, 3 nit')).toBeTruthy();
    expect(screen.getByText('$0.42')).toBeTruthy();
    expect(screen.getByText('1m 23s')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Check' }).getAttribute('href')).toBe('https://github.com/acme/api/runs/9');
    expect(screen.queryByRole('link', { name: 'Actions' })).toBeNull();
  });

  it('reads filters from the URL into the query', async () => {
    const t = setup(page, {
      path: '/runs?repo=acme/api&reviewer=security&status=failed&trigger=label&from=2026-11-01&to=2026-11-30',
      handlers: { RunsPage: () => ({ data: { runs: connection('Run', []) } }), RunFilterOptions: emptyOptions },
    });
    await screen.findByText('No runs match these filters');
    const where = t.callsOf('RunsPage')[0].variables.where as Record<string, unknown>;
    expect(where.hasRepositoryWith).toEqual([{ fullName: 'acme/api' }]);
    expect(where.hasReviewerWith).toEqual([{ name: 'security' }]);
    expect(where.status).toBe('failed');
    expect(where.trigger).toBe('label');
    expect(Date.parse(where.createdAtLT as string) - Date.parse(where.createdAtGTE as string)).toBe(30 * 86400000);
    expect((screen.getByLabelText('Status') as HTMLSelectElement).value).toBe('failed');
    expect((screen.getByLabelText('Repository') as HTMLInputElement).value).toBe('acme/api');
    expect(t.callsOf('RunsPage')[0].variables.first).toBe(25);
  });

  it('writes filter changes to the URL and goes back to the first page', async () => {
    const t = setup(page, { path: '/runs?after=abc&status=queued', handlers: { RunsPage: () => ({ data: { runs: connection('Run', [runNode()]) } }), RunFilterOptions: emptyOptions } });
    await screen.findByText('acme/api#7');
    await userEvent.selectOptions(screen.getByLabelText('Status'), 'failed');
    await waitFor(() => expect(t.history.at(-1)).toBe('/runs?status=failed'));
    await waitFor(() => expect(t.callsOf('RunsPage').some((c) => (c.variables.where as { status?: string }).status === 'failed' && !c.variables.after)).toBe(true));

    const repo = screen.getByLabelText('Repository');
    await userEvent.type(repo, 'acme/web{Enter}');
    await waitFor(() => expect(t.history.at(-1)).toBe('/runs?repo=acme%2Fweb&status=failed'));
  });

  it('pages with cursors kept in the URL', async () => {
    const t = setup(page, {
      path: '/runs',
      handlers: {
        RunsPage: (v) => ({ data: { runs: connection('Run', [runNode()], v.after ? { hasPreviousPage: true, startCursor: 'p1' } : { hasNextPage: true, endCursor: 'n1' }, 60) } }),
        RunFilterOptions: emptyOptions,
      },
    });
    await screen.findByText('1 shown of 60 runs');
    expect((screen.getByRole('button', { name: '← Newer' }) as HTMLButtonElement).disabled).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: 'Older →' }));
    await waitFor(() => expect(t.history.at(-1)).toBe('/runs?after=n1'));
    await waitFor(() => expect(t.callsOf('RunsPage').at(-1)?.variables).toMatchObject({ first: 25, after: 'n1' }));
    await userEvent.click(await screen.findByRole('button', { name: '← Newer' }));
    await waitFor(() => expect(t.history.at(-1)).toBe('/runs?before=p1'));
    await waitFor(() => expect(t.callsOf('RunsPage').at(-1)?.variables).toMatchObject({ last: 25, before: 'p1' }));
  });

  it('lists reviews only, and backtest runs apart on their tab', async () => {
    const shadowRun = runNode({ id: 'UnVuOjI=', trigger: 'backtest', shadow: true, backtestSide: 'old' });
    const t = setup(page, {
      path: '/runs',
      handlers: {
        RunsPage: (vars: { where?: { shadow?: boolean } }) => ({ data: { runs: connection('Run', vars.where?.shadow ? [shadowRun] : [runNode()]) } }),
        RunFilterOptions: emptyOptions,
      },
    });
    await screen.findByRole('link', { name: 'acme/api#7' });
    expect((t.callsOf('RunsPage')[0].variables.where as Record<string, unknown>).shadow).toBe(false);
    expect(screen.getByRole('link', { name: 'Reviews' }).getAttribute('aria-current')).toBe('page');
    expect(screen.queryByText(/version in force/)).toBeNull();

    await userEvent.click(screen.getByRole('link', { name: 'Backtest runs' }));
    await waitFor(() => expect(t.history.at(-1)).toBe('/runs?view=backtests'));
    expect(await screen.findByText(/version in force/)).toBeTruthy();
    expect((t.callsOf('RunsPage').at(-1)!.variables.where as Record<string, unknown>).shadow).toBe(true);
    expect(screen.getByRole('link', { name: 'Backtest runs' }).getAttribute('aria-current')).toBe('page');
    expect(screen.getByText(/post nothing on those pull requests/)).toBeTruthy();
  });

  it('says when there are no backtest runs yet', async () => {
    setup(page, { path: '/runs?view=backtests', handlers: { RunsPage: () => ({ data: { runs: connection('Run', []) } }), RunFilterOptions: emptyOptions } });
    expect(await screen.findByText('No backtest runs yet')).toBeTruthy();
  });
});

describe('runsWhere', () => {
  it.each([
    ['nothing', {}, { shadow: false }],
    ['unknown status ignored', { status: 'exploded' }, { shadow: false }],
    ['unknown trigger ignored', { trigger: 'telepathy' }, { shadow: false }],
    ['bad date ignored', { from: '2026-13-40' }, { shadow: false }],
    ['status', { status: 'running' }, { shadow: false, status: 'running' }],
  ])('%s', (_name, filters, want) => {
    expect(runsWhere(filters)).toEqual(want);
  });
  it('keeps backtest runs out of the filter for reviews', () => {
    expect(runsWhere({}).shadow).toBe(false);
    expect(runsWhere({ view: 'backtests', status: 'failed' })).toEqual({ shadow: true, status: 'failed' });
  });
});
