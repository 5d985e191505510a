package graph

import (
	"context"
	"strings"

	"entgo.io/ent"
	"github.com/99designs/gqlgen/graphql"

	gen "github.com/chakshu-dev/chakshu/ent"
)

// countOnlyWhenAsked stops the COUNT entgql's Paginate runs whenever a
// connection's pageInfo is selected: pageInfo comes from the extra row the
// page fetches, so the count is needed only for totalCount. Without this, every
// runs page counted all the runs its filter matches (millions, unfiltered).
// A connection field that does not select totalCount gets 0 for the count, and
// Paginate then sets totalCount to the page's length (unused).
func countOnlyWhenAsked(c *gen.Client) {
	c.Intercept(ent.InterceptFunc(func(next ent.Querier) ent.Querier {
		return ent.QuerierFunc(func(ctx context.Context, q ent.Query) (ent.Value, error) {
			if qc := ent.QueryFromContext(ctx); qc != nil && qc.Op == ent.OpQueryCount && connectionWithoutTotal(ctx) {
				return 0, nil
			}
			return next.Query(ctx, q)
		})
	}))
}

// connectionWithoutTotal reports whether ctx is resolving a connection field
// whose selection does not include totalCount.
func connectionWithoutTotal(ctx context.Context) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || fc.Field.Definition == nil ||
		!strings.HasSuffix(fc.Field.Definition.Type.Name(), "Connection") {
		return false
	}
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if f.Name == "totalCount" {
			return false
		}
	}
	return true
}
