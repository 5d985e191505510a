// Settings of the GraphQL explorer (main.tsx), apart so they can be unit-tested
// without loading GraphiQL.

/** The graphql-ws URL of this origin's /graphql (wss on https). */
export function explorerWsUrl(loc: Pick<Location, 'protocol' | 'host'>): string {
  return `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/graphql`;
}

/** What the query editor shows first. */
export const explorerDefaultQuery = `# Chakshu's GraphQL API: press the run button (or Ctrl-Enter).
# Signed in, you query as yourself. With an API token instead, open the
# Headers tab below and paste {"Authorization": "Bearer chkt_…"}.
# The Docs button (top left) lists every type and field; docs/api.md has
# worked examples for dashboards.
query Me {
  viewer {
    login
    authMethod
    tokenScope
  }
}
`;
