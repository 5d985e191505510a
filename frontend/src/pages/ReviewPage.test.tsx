import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import ReviewPage, { looksLikePR } from './ReviewPage';
import { connection } from '../test/fixtures';
import { setup, user } from '../test/harness';

const reviewer = (id: string, name: string) => ({ __typename: 'Reviewer', id, name, description: `${name} things`, installation: { __typename: 'Installation', id: 'i1', accountLogin: 'acme' } });
const queued = (id: string, name: string, status: string) => ({
  __typename: 'Run',
  id,
  status,
  costUsd: 0,
  failureReason: '',
  reviewer: { __typename: 'Reviewer', id: `rv-${name}`, name },
  findingCounts: { __typename: 'SeverityCounts', blocker: 0, major: 0, minor: 0, nit: 0 },
});

describe('ReviewPage', () => {
  it('checks the URL before asking the API', async () => {
    const t = setup(<ReviewPage />, { handlers: { ReviewerOptions: () => ({ data: { reviewers: connection('Reviewer', []) } }) } });
    await screen.findByText(/No reviewers are synced yet/);
    await userEvent.type(screen.getByLabelText('Pull request URL'), 'not a url');
    await userEvent.click(screen.getByRole('button', { name: 'Request review' }));
    expect(screen.getByText(/Enter the address of a pull request/)).toBeTruthy();
    expect(t.callsOf('RequestReview')).toHaveLength(0);
  });

  it('queues the chosen reviewers and follows the runs until they finish', async () => {
    let polls = 0;
    const t = setup(<ReviewPage />, {
      handlers: {
        ReviewerOptions: () => ({ data: { reviewers: connection('Reviewer', [reviewer('a', 'performance'), reviewer('b', 'security')]) } }),
        RequestReview: () => ({ data: { requestReview: { __typename: 'RequestReviewPayload', headSha: 'abc', alreadyQueued: ['style'], runs: [queued('r1', 'security', 'queued')] } } }),
        QueuedRuns: () => ({ data: { nodes: [queued('r1', 'security', polls++ < 1 ? 'running' : 'succeeded')] } }),
      },
    });
    await userEvent.type(screen.getByLabelText('Pull request URL'), 'https://github.com/acme/api/pull/7');
    await userEvent.click(await screen.findByRole('checkbox', { name: /security/ }));
    await userEvent.type(screen.getByLabelText(/Note for the reviewers/), 'look at auth');
    await userEvent.click(screen.getByRole('button', { name: 'Request review' }));
    expect(t.callsOf('RequestReview')[0].variables).toEqual({ input: { prURL: 'https://github.com/acme/api/pull/7', reviewers: ['security'], note: 'look at auth' } });
    expect(await screen.findByText(/Already queued or running for this commit: style/)).toBeTruthy();
    expect((await screen.findByRole('link', { name: 'security' })).getAttribute('href')).toBe('/runs/r1');
    await waitFor(() => expect(screen.getByText('succeeded')).toBeTruthy(), { timeout: 8000 });
    // Finished runs stop the polling.
    const n = t.callsOf('QueuedRuns').length;
    await new Promise((r) => setTimeout(r, 2500));
    expect(t.callsOf('QueuedRuns').length).toBe(n);
  }, 20_000);

  it('shows why the API refused', async () => {
    setup(<ReviewPage />, {
      viewer: user,
      handlers: {
        ReviewerOptions: () => ({ data: { reviewers: connection('Reviewer', []) } }),
        RequestReview: () => ({ errors: [{ message: 'You need write access to acme/api to request a review.', extensions: { code: 'FORBIDDEN' } }] }),
      },
    });
    await userEvent.type(screen.getByLabelText('Pull request URL'), 'https://github.com/acme/api/pull/7');
    await userEvent.click(screen.getByRole('button', { name: 'Request review' }));
    expect((await screen.findByRole('alert')).textContent).toMatch('You need write access to acme/api');
  });

  it('tells read-only viewers they cannot request reviews', async () => {
    setup(<ReviewPage />, { viewer: { ...user, canWrite: false }, handlers: {} });
    expect(await screen.findByText('Read-only access')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Request review' })).toBeNull();
  });
});

describe('looksLikePR', () => {
  it.each([
    ['https://github.com/acme/api/pull/7', true],
    ['https://ghe.example.com/acme/api/pull/7/', true],
    ['http://127.0.0.1:9000/acme/api/pull/12#discussion', true],
    ['https://github.com/acme/api/issues/7', false],
    ['github.com/acme/api/pull/7', false],
    ['https://github.com/acme/api/pull/x', false],
  ])('%s → %s', (u, want) => expect(looksLikePR(u)).toBe(want));

  it.each([
    ['https://github.com/acme/api/pull/7/files', 'https://github.com', true],
    ['https://GitHub.com/acme/api/pull/7', 'https://github.com/', true],
    ['https://ghe.example.com/acme/api/pull/7', 'https://github.com', false],
    ['http://127.0.0.1:9/sim/acme/api/pull/3', 'http://127.0.0.1:9/sim', true],
    ['http://127.0.0.1:9/acme/api/pull/3', 'http://127.0.0.1:9/sim', false],
    ['http://127.0.0.1:9/sim/acme/api/issues/3', 'http://127.0.0.1:9/sim', false],
  ])('%s on %s → %s', (u, web, want) => expect(looksLikePR(u, web)).toBe(want));
});
