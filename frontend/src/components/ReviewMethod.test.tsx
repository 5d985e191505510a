import { describe, expect, it } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import { makeFragmentData } from '../gql';
import type { RunStatus } from '../gql/graphql';
import { ReviewMethod, ReviewMethodFragment, reviewFigures } from './ReviewMethod';

// Run.checked as the server stores it (internal/findings.Coverage's JSON).
const samples = { passes: 3, ran: 3, agree: 2, pass_findings: [4, 2, 3], distinct: 6, kept: 3, dropped: 3 };
const verify = { candidates: 3, confirmed: 2, refuted: 1, unverified: 0, min_confidence: 70, calls: 2, turns: 5, cost_usd: 0.042 };

const show = (checked: Record<string, unknown> | null, status: RunStatus = 'succeeded') =>
  render(<ReviewMethod run={makeFragmentData({ __typename: 'Run', id: 'r1', status, costUsd: 0.31, checked }, ReviewMethodFragment)} />);

const fact = (term: string) => within(screen.getByText(term, { selector: 'dt' }).parentElement!).getByRole('definition').textContent;

describe('ReviewMethod', () => {
  it('shows passes, agreement, findings dropped, verification and the verifier cost beside the run cost', () => {
    show({ files: ['a.go'], samples, verify });
    expect(screen.getByRole('heading', { name: 'How this review was made' })).toBeTruthy();
    expect(fact('Passes')).toBe('3 of 3 ran (findings per pass: 4, 2, 3)');
    expect(fact('Agreement')).toBe('Met: a finding needed 2 of 3 passes');
    expect(fact('Dropped by agreement')).toBe('3 findings of 6 distinct, 3 kept');
    expect(fact('Verified')).toBe('3 candidates: 2 confirmed, 1 refuted (minimum confidence 70)');
    expect(fact("Verifier's cost")).toBe("$0.04 (the runner's estimate) in 5 model calls, part of the run's $0.31");
    expect(screen.queryByText(/No figures/)).toBeNull();
    // No lenses declared: no lenses row.
    expect(screen.queryByText('Lenses')).toBeNull();
  });

  it('lists the lens each pass that ran took, with its findings', () => {
    show({ samples: { ...samples, lenses: ['security', 'logic and data flow', 'security'] } });
    const items = within(screen.getByText('Lenses', { selector: 'dt' }).parentElement!)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(items).toEqual(['Pass 1: security (4 findings)', 'Pass 2: logic and data flow (2 findings)', 'Pass 3: security (3 findings)']);
  });

  it('says when agreement could not be met because fewer passes ran than asked', () => {
    show({ samples: { passes: 3, ran: 1, agree: 1, agree_asked: 2, pass_findings: [5], distinct: 5, kept: 5, dropped: 0 } });
    expect(fact('Passes')).toBe('1 of 3 ran (findings per pass: 5)');
    const agreement = fact('Agreement');
    expect(agreement).toMatch(/^Not met/);
    expect(agreement).toBe('Not met: the reviewer asks 2 passes to agree, only 1 pass ran, so a finding needed 1');
    expect(fact('Dropped by agreement')).toBe('0 findings of 5 distinct, 5 kept');
    // Verification was off: no verifier figures.
    expect(screen.queryByText('Verified')).toBeNull();
    expect(screen.queryByText("Verifier's cost")).toBeNull();
  });

  it.each([
    ['an old run without checked', null],
    ['one pass, verify off', { files: ['a.go'], skills: [], files_read: ['a.go'], evidence: { kept: 1, moved: 0, dropped: 0, unchecked: 0, dropped_findings: [] } }],
    ['malformed figures', { samples: 'three', verify: [1, 2] }],
  ])('shows the empty state for %s', (_name, checked) => {
    show(checked);
    expect(screen.getByText('No figures on how this review was made')).toBeTruthy();
    expect(screen.queryByRole('definition')).toBeNull();
  });

  it('says the figures come when the run finishes, not that there are none, while it runs', () => {
    show(null, 'running');
    expect(screen.getByText(/appear here when the run has finished/)).toBeTruthy();
    expect(screen.queryByText('No figures on how this review was made')).toBeNull();
  });
});

describe('reviewFigures', () => {
  it('reads verify alone when the review ran in one pass', () => {
    const got = reviewFigures({ verify });
    expect(got.passes).toBeNull();
    expect(got.verify).toEqual({ candidates: 3, confirmed: 2, refuted: 1, unverified: 0, minConfidence: 70, calls: 2, turns: 5, costUsd: 0.042 });
  });

  it('treats non-numbers as zero rather than showing NaN', () => {
    const got = reviewFigures({ samples: { passes: 2, ran: '2', agree: null, pass_findings: [1, 'x'], lenses: ['security', 7] } });
    expect(got.passes).toMatchObject({ passes: 2, ran: 0, agree: 0, passFindings: [1, 0], lenses: ['security', ''], dropped: 0 });
    expect(reviewFigures({ samples }).passes?.lenses).toEqual([]);
  });
});
