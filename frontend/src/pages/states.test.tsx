// Every list page designs its loading, empty and error states.
import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ComponentType } from 'react';
import ReviewersPage from './ReviewersPage';
import CostsPage, { fillSeries, period } from './CostsPage';
import LearningsPage from './LearningsPage';
import { connection } from '../test/fixtures';
import { admin, pending, setup, user, type Handler } from '../test/harness';

const emptyCost = () => ({
  __typename: 'CostSummary',
  total: { __typename: 'CostBucket', costUsd: 0, runs: 0, succeededRuns: 0, failedRuns: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costPerFinding: null, p50DurationMs: null, p95DurationMs: null, findings: { __typename: 'SeverityCounts', total: 0 } },
  buckets: [],
});

const cases: { name: string; Page: ComponentType; op: string; empty: unknown; emptyText: RegExp; extra?: Record<string, Handler> }[] = [
  { name: 'Reviewers', Page: ReviewersPage, op: 'ReviewersPage', empty: { reviewers: connection('Reviewer', []) }, emptyText: /No reviewers/ },
  { name: 'Costs', Page: CostsPage, op: 'CostsPage', empty: { series: emptyCost(), byReviewer: emptyCost(), byRepository: emptyCost(), expensivePullRequests: [] }, emptyText: /No runs in this period/, extra: { Budgets: () => ({ data: { budgets: [] } }) } },
  { name: 'Learnings', Page: LearningsPage, op: 'LearningsPage', empty: { reviewLearnings: connection('ReviewLearning', []) }, emptyText: /No learnings yet/, extra: { LearningProposals: () => ({ data: { reviewLearnings: connection('ReviewLearning', []) } }) } },
];

describe.each(cases)('$name page', ({ Page, op, empty, emptyText, extra }) => {
  it('shows loading', async () => {
    setup(<Page />, { handlers: { ...extra, [op]: pending } });
    expect(await screen.findByRole('status')).toBeTruthy();
  });
  it('shows empty', async () => {
    setup(<Page />, { handlers: { ...extra, [op]: () => ({ data: empty }) } });
    expect(await screen.findByText(emptyText)).toBeTruthy();
  });
  it('shows errors with a retry', async () => {
    setup(<Page />, { handlers: { ...extra, [op]: () => ({ errors: [{ message: 'Boom, safely.', extensions: { code: 'INTERNAL' } }] }) } });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch('Boom, safely.');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });
});

describe('Reviewers page', () => {
  const rv = {
    __typename: 'Reviewer',
    id: 'rv1',
    name: 'security',
    description: 'Finds holes',
    enabled: true,
    syncedCommit: '0123456789',
    syncedAt: '2026-11-30T10:00:00Z',
    configYaml: 'model: x',
    syncError: 'unknown key "foo"',
    syncErrorAt: '2026-11-30T10:00:00Z',
    syncErrorCommit: 'fedcba9876',
    connectors: ['github'],
    modelStatus: {
      __typename: 'ModelStatus', model: 'claude-opus-4-5', provider: 'anthropic', state: 'deprecated',
      retiresOn: '2027-01-22', replacement: 'claude-opus-5-5', warning: 'retires on 2027-01-22: move to claude-opus-5-5',
    },
    skills: [{ __typename: 'ReviewerSkill', name: 'sqli', description: 'SQL injection' }],
    installation: { __typename: 'Installation', id: 'i1', accountLogin: 'acme', reviewersRepo: '' },
    stats: { __typename: 'ReviewerStats', runs: 10, failed: 3, failureRate: 0.3, findingsPerRun: 1.5, meanCostUsd: 0.2, totalCostUsd: 2 },
  };
  const handlers = { ReviewersPage: () => ({ data: { reviewers: connection('Reviewer', [rv]) } }), SyncReviewers: () => ({ data: { syncReviewers: true } }) };

  it('shows config provenance, sync errors, skills and stats', async () => {
    setup(<ReviewersPage />, { viewer: user, handlers });
    const link = await screen.findByRole('link', { name: 'acme/chakshu-reviewers@0123456' });
    expect(link.getAttribute('href')).toBe('https://github.com/acme/chakshu-reviewers/commit/0123456789');
    expect(screen.getByRole('alert').textContent).toMatch(/unknown key "foo"/);
    expect(screen.getByText('sqli')).toBeTruthy();
    expect(screen.getByText('github')).toBeTruthy();
    expect(screen.getByText('30%')).toBeTruthy();
    // The model in force and its lifecycle: deprecated, with the date and the replacement.
    expect(screen.getByText('deprecated until 2027-01-22')).toBeTruthy();
    expect(screen.getByRole('status').textContent).toMatch(/move to claude-opus-5-5/);
    expect(screen.queryByRole('button', { name: 'Sync reviewers now' })).toBeNull();
  });

  it("links the synced commit on the server's GitHub (GitHub Enterprise, the sandbox simulator)", async () => {
    setup(<ReviewersPage />, { viewer: user, handlers: { ReviewersPage: () => ({ data: { reviewers: connection('Reviewer', [{ ...rv, installation: { ...rv.installation, reviewersRepo: 'acme/bots' } }]) } }) }, githubWebURL: 'http://127.0.0.1:9/sim/' });
    const link = await screen.findByRole('link', { name: 'acme/bots@0123456' });
    expect(link.getAttribute('href')).toBe('http://127.0.0.1:9/sim/acme/bots/commit/0123456789');
  });

  it('lets admins ask for a sync', async () => {
    const t = setup(<ReviewersPage />, { viewer: admin, handlers });
    await userEvent.click(await screen.findByRole('button', { name: 'Sync reviewers now' }));
    expect(await screen.findByText(/Sync requested/)).toBeTruthy();
    expect(t.callsOf('SyncReviewers')).toHaveLength(1);
  });
});

describe('Learnings page', () => {
  const learning = (enabled: boolean) => ({
    __typename: 'ReviewLearning',
    id: 'l1',
    scope: 'repo',
    glob: '**/*.go',
    directive: 'Prefer errors.Is',
    author: 'alice',
    prNumber: 4,
    source: 'reply',
    useCount: 2,
    lastUsedAt: null,
    enabled,
    createdAt: '2026-11-30T10:00:00Z',
    installation: { __typename: 'Installation', id: 'i1', accountLogin: 'acme' },
    repository: { __typename: 'Repository', id: 'r1', fullName: 'acme/api' },
  });

  it('filters through the URL and disables a learning', async () => {
    const t = setup(<LearningsPage />, {
      path: '/?state=enabled',
      handlers: {
        LearningsPage: () => ({ data: { reviewLearnings: connection('ReviewLearning', [learning(true)]) } }),
        LearningProposals: () => ({ data: { reviewLearnings: connection('ReviewLearning', []) } }),
        SetLearningEnabled: (v) => ({ data: { setLearningEnabled: { __typename: 'ReviewLearning', id: v.id, enabled: v.enabled } } }),
      },
    });
    await screen.findByText('Prefer errors.Is');
    expect(t.callsOf('LearningsPage')[0].variables.where).toEqual({ status: 'accepted', enabled: true });
    await userEvent.type(screen.getByLabelText('Contains'), 'errors{Enter}');
    await waitFor(() => expect(t.history.at(-1)).toBe('/?q=errors&state=enabled'));
    await waitFor(() => expect(t.callsOf('LearningsPage').at(-1)?.variables.where).toEqual({ status: 'accepted', enabled: true, directiveContainsFold: 'errors' }));
    await userEvent.click(screen.getByRole('button', { name: 'Disable' }));
    await waitFor(() => expect(t.callsOf('SetLearningEnabled')[0]?.variables).toEqual({ id: 'l1', enabled: false }));
  });
});

describe('costs period', () => {
  it('defaults to the last 30 days and picks weeks for long periods', () => {
    const p = period('', '', new Date(2026, 10, 30));
    expect([p.from, p.to, p.days, p.series]).toEqual(['2026-11-01', '2026-11-30', 30, 'DAY']);
    const long = period('2026-01-01', '2026-11-30');
    expect(long.series).toBe('WEEK');
    expect(period('2026-12-01', '2026-11-30').from).toBe('2026-11-30');
  });
  it('fills days without runs with zero', () => {
    const pts = fillSeries([{ key: '2026-11-02', costUsd: 1.5 }], '2026-11-01', '2026-11-03', false);
    expect(pts.map((p) => [p.key, p.value])).toEqual([
      ['2026-11-01', 0],
      ['2026-11-02', 1.5],
      ['2026-11-03', 0],
    ]);
  });
});
