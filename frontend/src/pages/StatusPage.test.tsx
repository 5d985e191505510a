import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import StatusPage from './StatusPage';
import { connection } from '../test/fixtures';
import { admin, pending, setup, user } from '../test/harness';

const status = (failedNodes: unknown[]) => ({
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
      installations: [{ __typename: 'Installation', id: 'i1', accountLogin: 'acme', reviewersRepo: '', lastSyncAt: '2026-11-30T11:00:00Z', lastSyncCommit: 'abcdef0123', lastSyncError: '', syncRequestedAt: null }],
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

  it('shows an error state', async () => {
    setup(<StatusPage />, { handlers: { StatusPage: () => ({ errors: [{ message: 'Sign in to see this.', extensions: { code: 'UNAUTHENTICATED' } }] }) } });
    expect((await screen.findByRole('alert')).textContent).toMatch(/session has ended/);
  });

  it('never resolves: stays loading without errors', async () => {
    setup(<StatusPage />, { handlers: { StatusPage: pending } });
    expect(await screen.findByRole('status')).toBeTruthy();
  });
});
