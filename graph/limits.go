package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/chakshu-dev/chakshu/ent"
	entgql "github.com/chakshu-dev/chakshu/graph/entgqlrt"
	"github.com/chakshu-dev/chakshu/graph/exec"
)

// Page sizes of connections, and what lists cost.
const (
	MaxPageSize     = 100
	DefaultPageSize = 50
	// MaxNodeIDs caps nodes(ids:).
	MaxNodeIDs = 100
	// ListCost is the number of elements a list field (not a connection,
	// whose page size is known) is priced at.
	ListCost = 50
)

// limits checks each operation before it runs: nesting depth, and the page
// size of every connection field (first/last ≤ 100; first: 50 is added when
// neither is given, so no connection ever loads without a limit).
type limits struct{ maxDepth, maxCost int }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = limits{}

func (limits) ExtensionName() string                   { return "ChakshuLimits" }
func (limits) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext implements graphql.OperationContextMutator.
func (l limits) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	if err := l.walk(oc.Operation.SelectionSet, oc.Variables, 1); err != nil {
		return err
	}
	if l.maxCost > 0 {
		c, err := cost(oc.Operation.SelectionSet, oc.Variables)
		if err != nil {
			return err
		}
		if c > l.maxCost {
			return gqlerror.Errorf("query complexity (cost) %d is over the budget of %d: ask for smaller pages or fewer nested lists", c, l.maxCost)
		}
	}
	return nil
}

// cost prices a selection set before it runs: every field costs 1 plus its
// children times how many times they run: a connection's page size
// (first/last, default 50), len(ids) for nodes, ListCost for any other list
// of objects (a connection's own edges and nodes lists are its page).
// Fragments are priced where they are spread.
func cost(set ast.SelectionSet, vars map[string]any) (int, *gqlerror.Error) {
	total := 0
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") || s.Definition == nil {
				continue
			}
			child, err := cost(s.SelectionSet, vars)
			if err != nil {
				return 0, err
			}
			n, err := multiplicity(s, vars)
			if err != nil {
				return 0, err
			}
			total += 1 + n*child
		case *ast.InlineFragment:
			c, err := cost(s.SelectionSet, vars)
			if err != nil {
				return 0, err
			}
			total += c
		case *ast.FragmentSpread:
			if s.Definition != nil {
				c, err := cost(s.Definition.SelectionSet, vars)
				if err != nil {
					return 0, err
				}
				total += c
			}
		}
		if total > 1<<30 {
			return total, nil
		}
	}
	return total, nil
}

// multiplicity is how many times a field's children run.
func multiplicity(f *ast.Field, vars map[string]any) (int, *gqlerror.Error) {
	def := f.Definition
	if def.Arguments.ForName("first") != nil && def.Arguments.ForName("last") != nil {
		args := f.ArgumentMap(vars)
		if n, ok := intArg(args["first"]); ok {
			return max(int(n), 1), nil
		}
		if n, ok := intArg(args["last"]); ok {
			return max(int(n), 1), nil
		}
		return DefaultPageSize, nil
	}
	if def.Name == "nodes" && def.Arguments.ForName("ids") != nil {
		ids, _ := f.ArgumentMap(vars)["ids"].([]any)
		if len(ids) > MaxNodeIDs {
			return 0, gqlerror.Errorf("nodes takes at most %d ids", MaxNodeIDs)
		}
		return max(len(ids), 1), nil
	}
	if def.Type.Elem == nil || len(f.SelectionSet) == 0 {
		return 1, nil
	}
	if f.ObjectDefinition != nil && strings.HasSuffix(f.ObjectDefinition.Name, "Connection") {
		return 1, nil // edges/nodes: the connection's page, priced by its first/last
	}
	return ListCost, nil
}

func (l limits) walk(set ast.SelectionSet, vars map[string]any, depth int) *gqlerror.Error {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") {
				continue // introspection has its own fixed shape
			}
			if depth > l.maxDepth {
				return gqlerror.Errorf("query is nested deeper than %d levels", l.maxDepth)
			}
			if err := pageArgs(s, vars); err != nil {
				return err
			}
			if err := l.walk(s.SelectionSet, vars, depth+1); err != nil {
				return err
			}
		case *ast.InlineFragment:
			if err := l.walk(s.SelectionSet, vars, depth); err != nil {
				return err
			}
		case *ast.FragmentSpread:
			if s.Definition != nil {
				if err := l.walk(s.Definition.SelectionSet, vars, depth); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// pageArgs checks a connection field's first/last and adds the default page size.
func pageArgs(f *ast.Field, vars map[string]any) *gqlerror.Error {
	def := f.Definition
	if def == nil || def.Arguments.ForName("first") == nil || def.Arguments.ForName("last") == nil {
		return nil
	}
	args := f.ArgumentMap(vars)
	first, hasFirst := intArg(args["first"])
	last, hasLast := intArg(args["last"])
	for _, n := range []struct {
		name string
		v    int64
		ok   bool
	}{{"first", first, hasFirst}, {"last", last, hasLast}} {
		if n.ok && (n.v < 0 || n.v > MaxPageSize) {
			return gqlerror.Errorf("%s.%s must be between 0 and %d", f.Alias, n.name, MaxPageSize)
		}
	}
	if !hasFirst && !hasLast {
		f.Arguments = append(f.Arguments, &ast.Argument{
			Name:     "first",
			Value:    &ast.Value{Kind: ast.IntValue, Raw: fmt.Sprint(DefaultPageSize), ExpectedType: def.Arguments.ForName("first").Type},
			Position: f.Position,
		})
	}
	return nil
}

func intArg(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case float64:
		return int64(n), true
	}
	return 0, false
}

// pageCost is the complexity of a connection: its children times the page size.
func pageCost(child int, first, last *int) int {
	n := DefaultPageSize
	switch {
	case first != nil:
		n = *first
	case last != nil:
		n = *last
	}
	return 1 + max(n, 1)*child
}

type cursor = *entgql.Cursor[int]

// connCost prices a connection of any order and filter by its page size.
func connCost[Order, Where any](ch int, _ cursor, f *int, _ cursor, l *int, _ Order, _ Where) int {
	return pageCost(ch, f, l)
}

// setComplexity prices connections by page size (gqlgen counts 1 per field otherwise).
func setComplexity(c *exec.ComplexityRoot) {
	c.Query.Runs = connCost[*ent.RunOrder, *ent.RunWhereInput]
	c.Query.Findings = connCost[*ent.FindingOrder, *ent.FindingWhereInput]
	c.Query.Reviewers = connCost[*ent.ReviewerOrder, *ent.ReviewerWhereInput]
	c.Query.WebhookEvents = connCost[*ent.WebhookEventOrder, *ent.WebhookEventWhereInput]
	c.Query.ReviewLearnings = connCost[*ent.ReviewLearningOrder, *ent.ReviewLearningWhereInput]
	c.Query.APITokens = connCost[*ent.APITokenOrder, *ent.APITokenWhereInput]
	c.Query.Repositories = connCost[*ent.RepositoryOrder, *ent.RepositoryWhereInput]
	c.Query.Installations = connCost[*ent.InstallationOrder, *ent.InstallationWhereInput]
	c.Query.Nodes = func(ch int, ids []int) int { return 1 + max(len(ids), 1)*ch }
	c.Repository.Runs = connCost[*ent.RunOrder, *ent.RunWhereInput]
	c.Reviewer.Runs = connCost[*ent.RunOrder, *ent.RunWhereInput]
	c.Run.Findings = connCost[*ent.FindingOrder, *ent.FindingWhereInput]
}
