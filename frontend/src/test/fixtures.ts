// Response fixtures shaped like the API's answers.
export function runNode(over: Record<string, unknown> = {}) {
  return {
    __typename: 'Run',
    id: 'UnVuOjE=',
    status: 'succeeded',
    kind: 'review',
    trigger: 'comment',
    shadow: false,
    backtestSide: 'none',
    prNumber: 7,
    prTitle: 'Add rate limiter',
    createdAt: '2026-11-29T10:00:00Z',
    durationMs: 83000,
    costUsd: 0.42,
    repository: { __typename: 'Repository', id: 'repo1', fullName: 'acme/api' },
    reviewer: { __typename: 'Reviewer', id: 'rv1', name: 'security' },
    findingCounts: { __typename: 'SeverityCounts', blocker: 1, major: 2, minor: 0, nit: 3 },
    links: { __typename: 'RunLinks', pullRequest: 'https://github.com/acme/api/pull/7', checkRun: 'https://github.com/acme/api/runs/9', actionsRun: null },
    ...over,
  };
}

export function connection(typename: string, nodes: unknown[], pi: Record<string, unknown> = {}, totalCount = nodes.length) {
  return {
    __typename: `${typename}Connection`,
    totalCount,
    pageInfo: { __typename: 'PageInfo', hasNextPage: false, hasPreviousPage: false, startCursor: nodes.length ? 'c0' : null, endCursor: nodes.length ? 'c9' : null, ...pi },
    edges: nodes.map((node, i) => ({ __typename: `${typename}Edge`, cursor: `c${i}`, node })),
  };
}

export const emptyOptions = () => ({
  data: { repositories: { __typename: 'RepositoryConnection', edges: [] }, reviewers: { __typename: 'ReviewerConnection', edges: [] } },
});
