// Package entgqlrt is the run-time half of entgo.io/contrib/entgql: the types
// and helpers that ent's generated GraphQL code (ent/gql_*.go) and gqlgen's
// executor (graph/exec) call while serving requests: Relay cursors, page
// info, order direction, cursor predicates, per-parent limits, the
// not-found error and the mutation transaction.
//
// Upstream entgql is also the code generator, so importing it links
// entgo.io/ent/entc/gen, gqlgen's codegen and golang.org/x/tools into the
// server and runs their template parsing at start-up (about 17 MB of
// resident memory for nothing). `make generate` still runs upstream entgql
// and gqlgen; ent/entc.go then points ent's generated files at this package,
// imported as entgql so that they read as upstream's (gqlgen's executor names
// it by its package name, gqlgen.yml's autobind).
//
// Cursors are opaque to clients; their encoding here is this package's own
// (base64url of a small JSON document that keeps the order value's type).
package entgqlrt
