import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import StatusPage from './StatusPage';
import { connection } from '../test/fixtures';
import { admin, pending, setup, user } from '../test/harness';

const acme = { __typename: 'Installation', id: 'i1', accountLogin: 'acme', reviewersRepo: '', lastSyncAt: '2026-11-30T11:00:00Z', lastSyncCommit: 'abcdef0123', lastSyncError: '', syncRequestedAt: null, resolveBlocked: '', githubWaitUntil: null, githubWaitReason: '' };

const fullBudget = {
  __typename: 'ContentBudget',
  installation: { __typename: 'Installation', id: 'i1', accountLogin: 'acme' },
  windows: [
    { __typename: 'ContentWindow', seconds: 60, limit: 80, available: 10 },
    { __typename: 'ContentWindow', seconds: 3600, limit: 500, available: 62 },
  ],
  newReviewsAt: null,
};

const status = (failedNodes: unknown[], installations: unknown[] = [acme], contentBudgets: unknown[] = [fullBudget]) => ({
  data: {
    status: {
      __typename: 'SystemStatus',
      now: '2026-11-30T12:00:00Z',
      failedWebhooks: failedNodes.length,
      workers: [
        {
          __typename: 'WorkerStatus',
          alive: true,
          heldRuns: 1,
          heldEvents: 0,
          worker: { __typename: 'Worker', id: 'w1', workerID: 'host-1-abc', hostname: 'host-1', pid: 42, version: 'dev', startedAt: '2026-11-30T11:00:00Z', heartbeatAt: '2026-11-30T11:59:50Z', stopped: false },
        },
      ],
      runQueues: [{ __typename: 'RunQueue', status: 'queued', count: 3, oldestAt: '2026-11-30T11:58:00Z', oldestAgeSeconds: 120 }],
      webhookQueues: [{ __typename: 'WebhookQueue', status: 'pending', count: 0, oldestAt: null, oldestAgeSeconds: null }],
      installations,
      contentBudgets,
    },
    failed: connection('WebhookEvent', failedNodes),
  },
});

const failedEvent = {
  __typename: 'WebhookEvent',
  id: 'we1',
  deliveryID: 'd-123',
  event: 'pull_request',
  action: 'opened',
  repository: 'acme/api',
  attempts: 3,
  lastError: 'handle pull_request: GitHub answered 502',
  receivedAt: '2026-11-30T11:00:00Z',
  status: 'failed',
};

describe('StatusPage', () => {
  it('shows loading, then workers and queues', async () => {
    let release: (v: unknown) => void = () => {};
    setup(<StatusPage />, { handlers: { StatusPage: () => new Promise((r) => (release = r)) } });
    expect((await screen.findByRole('status')).textContent).toMatch(/Checking status/);
    release(status([]));
    expect(await screen.findByText('host-1')).toBeTruthy();
    expect(screen.getByText('alive')).toBeTruthy();
    expect(screen.getByText('Runs queued').nextSibling?.textContent).toMatch(/3 · oldest 2 min/);
    expect(screen.getByText('No failed webhooks')).toBeTruthy();
  });

  it('hides Retry and the error text from non-admins', async () => {
    setup(<StatusPage />, { viewer: user, handlers: { StatusPage: () => status([failedEvent]) } });
    expect(await screen.findByText('d-123')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Retry/ })).toBeNull();
    expect(screen.queryByText(/GitHub answered 502/)).toBeNull();
    expect(screen.getByText('visible to admins')).toBeTruthy();
  });

  it('lets an admin retry a failed webhook', async () => {
    const t = setup(<StatusPage />, {
      viewer: admin,
      handlers: {
        StatusPage: () => status([failedEvent]),
        RetryWebhook: (v) => ({ data: { retryWebhookEvent: { __typename: 'WebhookEvent', id: v.id, status: 'pending', attempts: 0 } } }),
      },
    });
    expect(await screen.findByText(/GitHub answered 502/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Retry pull_request delivery d-123' }));
    expect((await screen.findByText(/Queued again: pull_request.opened delivery d-123/)).getAttribute('role')).toBe('status');
    expect(t.callsOf('RetryWebhook')[0].variables).toEqual({ id: 'we1' });
    await waitFor(() => expect(t.callsOf('StatusPage').length).toBeGreaterThan(1));
  });

  it('says no installation waits for GitHub', async () => {
    setup(<StatusPage />, { handlers: { StatusPage: () => status([]) } });
    expect(await screen.findByText(/No installation is waiting for GitHub/)).toBeTruthy();
  });

  it('shows installations waiting for GitHub until when, and those that cannot resolve threads', async () => {
    const installations = [
      { ...acme, githubWaitUntil: '2026-11-30T12:04:00Z', githubWaitReason: 'a secondary rate limit' },
      // a wait that has passed is not shown
      { ...acme, id: 'i2', accountLogin: 'globex', githubWaitUntil: '2026-11-30T11:59:59Z', githubWaitReason: 'a secondary rate limit' },
      { ...acme, id: 'i3', accountLogin: 'initech', resolveBlocked: 'GitHub refused to resolve a review thread: grant Contents: write.' },
    ];
    setup(<StatusPage />, { handlers: { StatusPage: () => status([], installations) } });
    const waiting = (await screen.findByText(/waiting for GitHub until/)).closest('li');
    expect(waiting?.textContent).toMatch(/^acme: waiting for GitHub until .*\(a secondary rate limit\); its reviews go on then\.$/);
    expect(screen.getAllByText(/waiting for GitHub until/)).toHaveLength(1);
    expect(screen.getByText(/cannot resolve review threads/).closest('li')?.textContent).toMatch(/^initech: cannot resolve review threads\. GitHub refused .*Contents: write\.$/);
    expect(screen.queryByText(/No installation is waiting/)).toBeNull();
  });

  it("shows each installation's content budget and when new reviews start", async () => {
    const spent = {
      ...fullBudget,
      installation: { __typename: 'Installation', id: 'i2', accountLogin: 'globex' },
      windows: [
        { __typename: 'ContentWindow', seconds: 60, limit: 80, available: 0 },
        { __typename: 'ContentWindow', seconds: 3600, limit: 500, available: 40 },
      ],
      newReviewsAt: '2026-11-30T12:00:04Z',
    };
    setup(<StatusPage />, { handlers: { StatusPage: () => status([], [acme], [fullBudget, spent]) } });
    const table = await screen.findByRole('table', { name: 'Content budgets' });
    const rows = Array.from(table.querySelectorAll('tbody tr')).map((r) => Array.from(r.querySelectorAll('td')).map((c) => c.textContent));
    expect(rows[0]).toEqual(['acme', '10 (of 80 a minute) · 62 (of 500 an hour)', 'start now']);
    expect(rows[1][0]).toBe('globex');
    expect(rows[1][1]).toBe('0 (of 80 a minute) · 40 (of 500 an hour)');
    expect(rows[1][2]).toMatch(/^start at /);
  });

  it('shows no budget table without installations', async () => {
    setup(<StatusPage />, { handlers: { StatusPage: () => status([], [], []) } });
    expect(await screen.findByText('No installations')).toBeTruthy();
    expect(screen.queryByRole('table', { name: 'Content budgets' })).toBeNull();
  });

  it('shows an error state', async () => {
    setup(<StatusPage />, { handlers: { StatusPage: () => ({ errors: [{ message: 'Sign in to see this.', extensions: { code: 'UNAUTHENTICATED' } }] }) } });
    expect((await screen.findByRole('alert')).textContent).toMatch(/session has ended/);
  });

  it('never resolves: stays loading without errors', async () => {
    setup(<StatusPage />, { handlers: { StatusPage: pending } });
    expect(await screen.findByRole('status')).toBeTruthy();
  });
});
