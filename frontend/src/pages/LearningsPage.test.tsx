import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import LearningsPage, { learningsWhere } from './LearningsPage';
import { connection } from '../test/fixtures';
import { setup, user } from '../test/harness';

const proposal = (id: string, over: Record<string, unknown> = {}) => ({
  __typename: 'ReviewLearning',
  id,
  glob: 'lib/a.go',
  directive: `The security reviewer reported the correctness finding "nil map ${id}" on lib/a.go, and it was dismissed as wrong.`,
  prNumber: 7,
  createdAt: '2026-11-29T10:00:00Z',
  repository: { __typename: 'Repository', id: 'repo1', fullName: 'acme/api' },
  ...over,
});

const decided = (id: string, status: string) => ({ __typename: 'ReviewLearning', id, status, enabled: status === 'accepted' });

describe('LearningsPage proposals', () => {
  it('accepts one proposal and discards another, each by its own mutation, and lists what is left', async () => {
    let left = ['p1', 'p2'];
    const t = setup(<LearningsPage />, {
      handlers: {
        LearningsPage: () => ({ data: { reviewLearnings: connection('ReviewLearning', []) } }),
        LearningProposals: () => ({ data: { reviewLearnings: connection('ReviewLearning', left.map((id) => proposal(id))) } }),
        AcceptLearning: (v) => {
          left = left.filter((id) => id !== v.id);
          return { data: { acceptLearning: decided(v.id, 'accepted') } };
        },
        DiscardLearning: (v) => {
          left = left.filter((id) => id !== v.id);
          return { data: { discardLearning: decided(v.id, 'discarded') } };
        },
      },
    });
    expect(await screen.findByText(/nil map p1/)).toBeTruthy();
    expect(screen.getByText('Proposed (2)')).toBeTruthy();
    expect(screen.getByText(/None is used until someone accepts it/)).toBeTruthy();

    await userEvent.click(screen.getByRole('button', { name: 'Accept learning p1' }));
    await waitFor(() => expect(screen.queryByText(/nil map p1/)).toBeNull());
    expect(t.callsOf('AcceptLearning').map((c) => c.variables)).toEqual([{ id: 'p1' }]);
    expect(t.callsOf('DiscardLearning')).toHaveLength(0);

    await userEvent.click(screen.getByRole('button', { name: 'Discard learning p2' }));
    await waitFor(() => expect(screen.queryByText(/nil map p2/)).toBeNull());
    expect(t.callsOf('DiscardLearning').map((c) => c.variables)).toEqual([{ id: 'p2' }]);
    // Nothing left to decide: the section goes away.
    await waitFor(() => expect(screen.queryByText(/^Proposed/)).toBeNull());
  });

  it('keeps a refused proposal listed and shows why', async () => {
    setup(<LearningsPage />, {
      handlers: {
        LearningsPage: () => ({ data: { reviewLearnings: connection('ReviewLearning', []) } }),
        LearningProposals: () => ({ data: { reviewLearnings: connection('ReviewLearning', [proposal('p1')]) } }),
        AcceptLearning: () => ({ data: null, errors: [{ message: 'you need write access to acme/api', extensions: { code: 'FORBIDDEN' } }] }),
      },
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Accept learning p1' }));
    expect(await screen.findByText(/write access to acme\/api/)).toBeTruthy();
    expect(screen.getByText(/nil map p1/)).toBeTruthy();
  });

  it('shows no Accept or Discard to a read-only viewer', async () => {
    setup(<LearningsPage />, {
      viewer: { ...user, canWrite: false },
      handlers: {
        LearningsPage: () => ({ data: { reviewLearnings: connection('ReviewLearning', []) } }),
        LearningProposals: () => ({ data: { reviewLearnings: connection('ReviewLearning', [proposal('p1')]) } }),
      },
    });
    expect(await screen.findByText(/nil map p1/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Accept|Discard/ })).toBeNull();
  });

  it('lists only decided learnings below the proposals', () => {
    expect(learningsWhere({})).toEqual({ status: 'accepted' });
    expect(learningsWhere({ state: 'disabled' })).toEqual({ status: 'accepted', enabled: false });
    expect(learningsWhere({ state: 'discarded' })).toEqual({ status: 'discarded' });
  });
});
