// Package security is Chakshu's security regression suite: one test file per
// attack an application-security review (issue 19) ran against Chakshu, each
// failing on the code before its fix. It holds only tests; `make test` runs it
// on SQLite and PostgreSQL like every storage test (internal/store/storetest).
//
// What it attacks:
//   - graph_edge_filters_test.go: GraphQL where-input edge predicates
//     (hasXWith at any depth) reading rows the viewer may not read, for every
//     edge of every where-input the generated schema has.
//   - org_owner_admin_test.go: admin rights from owning one organisation
//     reaching another installation (runs, raw webhook payloads, connector
//     credentials, installation-wide learnings, review requests), and an
//     organisation recognised by its login instead of its id.
//   - query_cost_test.go: nested list fields and nodes(ids) making thousands
//     of SQL statements; a query over budget must be refused before it runs.
//   - api_token_staleness_test.go: API tokens keeping the access their owner
//     had at the last login, and never expiring.
//   - login_open_redirect_test.go: return_to values that browsers normalise
//     into another site's address after login.
//
// Other files in this package (connectors, reply runs, the mention sanitizer,
// grep, the runner log, the webhook body, sandbox refusal) are listed in
// README's Security section.
package security
