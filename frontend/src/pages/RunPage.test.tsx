import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import RunPage from './RunPage';
import { connection } from '../test/fixtures';
import { admin, setup, user } from '../test/harness';
import { timelineSteps } from '../components/Timeline';

const run = (over: Record<string, unknown> = {}) => ({
  __typename: 'Run',
  id: 'r1',
  kind: 'review',
  status: 'failed',
  trigger: 'comment',
  shadow: false,
  backtestSide: 'none',
  backtestID: 0,
  prNumber: 7,
  prTitle: 'Add rate limiter',
  headSha: 'aaaaaaaaaaaa',
  headRef: 'feature',
  baseRef: 'main',
  incrementalSince: 'bbbbbbbbbbbb',
  fullReviewReason: '',
  requester: 'alice',
  note: '',
  requestTarget: '',
  model: 'claude-sonnet',
  maxCostUsd: 2,
  createdAt: '2026-11-29T10:00:00Z',
  finishedAt: '2026-11-29T10:03:00Z',
  costUsd: 0.31,
  inputTokens: 1000,
  outputTokens: 200,
  cacheReadTokens: 5000,
  cacheWriteTokens: 0,
  totalTokens: 6200,
  turns: 9,
  durationMs: 180000,
  summary: '',
  failureReason: 'The review could not be published.',
  failureDetail: 'publish: POST /repos/acme/api/pulls/7/reviews: 422',
  findingsPosted: 1,
  findingsDropped: 1,
  changedFiles: 3,
  additions: 10,
  deletions: 2,
  cancellable: false,
  findingCounts: { __typename: 'SeverityCounts', blocker: 1, major: 0, minor: 0, nit: 1, total: 2 },
  repository: { __typename: 'Repository', id: 'repo1', fullName: 'acme/api' },
  reviewer: { __typename: 'Reviewer', id: 'rv1', name: 'security' },
  links: { __typename: 'RunLinks', pullRequest: 'https://github.com/acme/api/pull/7', checkRun: null, actionsRun: 'https://github.com/acme/api/actions/runs/5', review: null, incrementalCompare: 'https://github.com/acme/api/compare/bbbbbbb...aaaaaaa' },
  timeline: [
    { __typename: 'RunEvent', id: 'e1', at: '2026-11-29T10:00:01Z', fromStatus: 'queued', toStatus: 'dispatched', message: 'Workflow started', detail: '' },
    { __typename: 'RunEvent', id: 'e2', at: '2026-11-29T10:00:30Z', fromStatus: 'dispatched', toStatus: 'running', message: '', detail: '' },
    { __typename: 'RunEvent', id: 'e3', at: '2026-11-29T10:03:00Z', fromStatus: 'running', toStatus: 'failed', message: 'Publishing failed', detail: 'secret operator detail' },
  ],
  learningsApplied: [{ __typename: 'ReviewLearning', id: 'l1', directive: 'Prefer errors.Is', glob: '**/*.go', scope: 'repo' }],
  ...over,
});

const finding = (id: string, path: string, severity: string, posted: boolean) => ({
  __typename: 'Finding',
  id,
  path,
  line: 12,
  startLine: 0,
  severity,
  category: 'security',
  title: `Finding ${id}`,
  body: 'Because.',
  suggestion: '',
  posted,
  placement: posted ? 'inline' : 'none',
  droppedReason: posted ? '' : 'below min_severity',
  commentURL: posted ? `https://github.com/acme/api/pull/7#discussion_r${id}` : '',
  resolved: false,
  outcome: 'open',
  outcomeAt: null,
  outcomeReason: '',
});

const handlers = (r = run()) => ({
  RunPage: () => ({ data: { run: r } }),
  RunFindings: () => ({ data: { findings: connection('Finding', [finding('1', 'a.go', 'blocker', true), finding('2', 'b.go', 'nit', false), finding('3', 'a.go', 'nit', true)]) } }),
});

describe('RunPage', () => {
  it('shows the failure reason, and the operator detail only to admins', async () => {
    setup(<RunPage id="r1" />, { viewer: user, handlers: handlers() });
    expect(await screen.findByText('The review could not be published.')).toBeTruthy();
    expect(screen.queryByText(/POST \/repos/)).toBeNull();
    expect(document.body.textContent).not.toContain('secret operator detail');
  });

  it('shows admins the operator detail', async () => {
    setup(<RunPage id="r1" />, { viewer: admin, handlers: handlers() });
    expect(await screen.findByText(/POST \/repos\/acme\/api\/pulls\/7\/reviews: 422/)).toBeTruthy();
  });

  it('says which changes were reviewed and links the comparison', async () => {
    setup(<RunPage id="r1" />, { handlers: handlers() });
    const link = await screen.findByRole('link', { name: 'bbbbbbb' });
    expect(link.closest('p')?.textContent).toMatch(/Reviewed only the changes since bbbbbbb/);
    expect(link.getAttribute('href')).toContain('/compare/');
  });

  it('groups findings by file with posted/dropped and comment links', async () => {
    setup(<RunPage id="r1" />, { handlers: handlers() });
    const fileA = (await screen.findByRole('heading', { name: 'a.go' })).closest('section')!;
    expect(within(fileA).getAllByRole('listitem').length).toBe(2);
    expect(within(fileA).getAllByRole('link', { name: 'View comment' })[0].getAttribute('href')).toContain('discussion_r1');
    const fileB = screen.getByRole('heading', { name: 'b.go' }).closest('section')!;
    expect(fileB.textContent).toMatch(/dropped: below min_severity/);
    expect(screen.getByText('Prefer errors.Is')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Actions run' }).getAttribute('href')).toBe('https://github.com/acme/api/actions/runs/5');
  });

  it("shows each posted finding's outcome with its reason and time", async () => {
    const decided = { ...finding('1', 'a.go', 'blocker', true), outcome: 'dismissed', outcomeAt: '2026-11-02T10:00:00Z', outcomeReason: 'thread resolved by @alice with no change under it' };
    const atMerge = { ...finding('3', 'a.go', 'nit', true), outcome: 'open_at_merge', outcomeAt: '2026-11-03T10:00:00Z', outcomeReason: 'pull request merged with the thread open' };
    setup(<RunPage id="r1" />, {
      handlers: { ...handlers(), RunFindings: () => ({ data: { findings: connection('Finding', [decided, finding('2', 'b.go', 'nit', false), atMerge]) } }) },
    });
    const fileA = (await screen.findByRole('heading', { name: 'a.go' })).closest('section')!;
    const [first, second] = within(fileA).getAllByRole('listitem');
    expect(within(first).getByText('dismissed')).toBeTruthy();
    expect(first.textContent).toMatch(/thread resolved by @alice with no change under it/);
    expect(within(second).getByText('open at merge')).toBeTruthy();
    // A dropped finding has no outcome.
    const fileB = screen.getByRole('heading', { name: 'b.go' }).closest('section')!;
    expect(within(fileB).queryByText('open')).toBeNull();
  });

  it('marks a backtest run, its side, and that nothing was posted', async () => {
    setup(<RunPage id="r1" />, { handlers: handlers(run({ status: 'succeeded', trigger: 'backtest', shadow: true, backtestSide: 'new', backtestID: 4, incrementalSince: '' })) });
    const note = (await screen.findByText('Backtest run')).closest('p')!;
    expect(note.textContent).toMatch(/changed version of security, backtest 4/);
    expect(note.textContent).toMatch(/Nothing was posted on the pull request/);
    expect(screen.getByRole('link', { name: 'Backtest runs' }).getAttribute('href')).toBe('/runs?view=backtests');
  });

  it('does not mark a review as a backtest run', async () => {
    setup(<RunPage id="r1" />, { handlers: handlers() });
    await screen.findByText('Timeline');
    expect(screen.queryByText('Backtest run')).toBeNull();
    expect(screen.getByRole('link', { name: 'Runs' }).getAttribute('href')).toBe('/runs');
  });

  it("shows how the review was made from the run's checked figures", async () => {
    const checked = { samples: { passes: 3, ran: 2, agree: 2, pass_findings: [3, 1], distinct: 3, kept: 1, dropped: 2 }, verify: { candidates: 1, confirmed: 0, refuted: 1, unverified: 0, min_confidence: 0, calls: 1, turns: 2, cost_usd: 0.12 } };
    setup(<RunPage id="r1" />, { handlers: handlers(run({ checked })) });
    const panel = (await screen.findByRole('heading', { name: 'How this review was made' })).closest('section')!;
    expect(panel.textContent).toMatch(/2 of 3 ran/);
    expect(panel.textContent).toMatch(/2 findings of 3 distinct/);
    expect(panel.textContent).toMatch(/1 candidate: 0 confirmed, 1 refuted/);
    expect(panel.textContent).toMatch(/\$0\.12 \(the runner's estimate\) in 2 model calls, part of the run's \$0\.31/);
  });

  it('shows no review-method panel for a reply run', async () => {
    setup(<RunPage id="r1" />, { handlers: handlers(run({ kind: 'reply', checked: null })) });
    await screen.findByText('Timeline');
    expect(screen.queryByRole('heading', { name: 'How this review was made' })).toBeNull();
  });

  it('says when the run is not found', async () => {
    setup(<RunPage id="nope" />, { handlers: { RunPage: () => ({ data: { run: null } }) } });
    expect(await screen.findByText('Run not found')).toBeTruthy();
  });

  it('offers Cancel only for cancellable runs and writers', async () => {
    setup(<RunPage id="r1" />, { viewer: user, handlers: handlers(run({ status: 'running', cancellable: true })) });
    expect(await screen.findByRole('button', { name: 'Cancel run' })).toBeTruthy();
  });

  it('hides Cancel from read-only viewers', async () => {
    setup(<RunPage id="r1" />, { viewer: { ...user, canWrite: false }, handlers: handlers(run({ status: 'running', cancellable: true })) });
    await screen.findByText('Timeline');
    expect(screen.queryByRole('button', { name: 'Cancel run' })).toBeNull();
  });
});

describe('timelineSteps', () => {
  const ev = (to: string, at: string) => ({ id: to, at, fromStatus: '', toStatus: to, message: '', detail: '' });
  it.each([
    ['queued only', 'queued', [], ['current', 'todo', 'todo', 'todo', 'todo']],
    ['running', 'running', [ev('dispatched', 't1'), ev('running', 't2')], ['done', 'done', 'current', 'todo', 'todo']],
    ['succeeded', 'succeeded', [ev('dispatched', 't1'), ev('running', 't2'), ev('publishing', 't3'), ev('succeeded', 't4')], ['done', 'done', 'done', 'done', 'done']],
    ['failed while running', 'failed', [ev('dispatched', 't1'), ev('running', 't2'), ev('failed', 't3')], ['done', 'done', 'done', 'skipped', 'done']],
  ])('%s', (_n, status, events, want) => {
    const steps = timelineSteps(status, events, 't0');
    expect(steps.map((s) => s.state)).toEqual(want);
    expect(steps[0].at).toBe('t0');
    expect(steps.at(-1)!.status).toBe(status === 'failed' || status === 'cancelled' ? status : 'succeeded');
  });
});
