// Package graph is Chakshu's GraphQL API: gqlgen resolvers over ent (entgql),
// with access control per viewer, limits, and the one error shape. Resolvers
// stay thin; the work is in the handler's methods beside them.
package graph

// Resolver is the root resolver; it carries the handler's dependencies.
type Resolver struct{ h *api }
