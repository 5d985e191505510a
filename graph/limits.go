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

// Page sizes of connections.
const (
	MaxPageSize     = 100
	DefaultPageSize = 50
)

// limits checks each operation before it runs: nesting depth, and the page
// size of every connection field (first/last ≤ 100; first: 50 is added when
// neither is given, so no connection ever loads without a limit).
type limits struct{ maxDepth int }

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
	return l.walk(oc.Operation.SelectionSet, oc.Variables, 1)
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

// setComplexity prices connections by page size (gqlgen counts 1 per field otherwise).
func setComplexity(c *exec.ComplexityRoot) {
	c.Query.Runs = func(ch int, _ cursor, f *int, _ cursor, l *int, _ *ent.RunOrder, _ *ent.RunWhereInput) int {
		return pageCost(ch, f, l)
	}
	c.Query.Findings = func(ch int, _ cursor, f *int, _ cursor, l *int, _ *ent.FindingOrder, _ *ent.FindingWhereInput) int {
		return pageCost(ch, f, l)
	}
	c.Query.Reviewers = func(ch int, _ cursor, f *int, _ cursor, l *int, _ *ent.ReviewerOrder, _ *ent.ReviewerWhereInput) int {
		return pageCost(ch, f, l)
	}
	c.Query.WebhookEvents = func(ch int, _ cursor, f *int, _ cursor, l *int, _ *ent.WebhookEventOrder, _ *ent.WebhookEventWhereInput) int {
		return pageCost(ch, f, l)
	}
	c.Query.ReviewLearnings = func(ch int, _ cursor, f *int, _ cursor, l *int, _ *ent.ReviewLearningOrder, _ *ent.ReviewLearningWhereInput) int {
		return pageCost(ch, f, l)
	}
	c.Query.APITokens = func(ch int, _ cursor, f *int, _ cursor, l *int, _ *ent.APITokenOrder, _ *ent.APITokenWhereInput) int {
		return pageCost(ch, f, l)
	}
	c.Query.Repositories = func(ch int, _ cursor, f *int, _ cursor, l *int, _ *ent.RepositoryOrder, _ *ent.RepositoryWhereInput) int {
		return pageCost(ch, f, l)
	}
	c.Query.Installations = func(ch int, _ cursor, f *int, _ cursor, l *int, _ *ent.InstallationOrder, _ *ent.InstallationWhereInput) int {
		return pageCost(ch, f, l)
	}
	c.Query.Nodes = func(ch int, ids []int) int { return 1 + max(len(ids), 1)*ch }
	c.Repository.Runs = func(ch int, _ cursor, f *int, _ cursor, l *int, _ *ent.RunOrder, _ *ent.RunWhereInput) int {
		return pageCost(ch, f, l)
	}
	c.Reviewer.Runs = func(ch int, _ cursor, f *int, _ cursor, l *int, _ *ent.RunOrder, _ *ent.RunWhereInput) int {
		return pageCost(ch, f, l)
	}
	c.Run.Findings = func(ch int, _ cursor, f *int, _ cursor, l *int, _ *ent.FindingOrder, _ *ent.FindingWhereInput) int {
		return pageCost(ch, f, l)
	}
}
