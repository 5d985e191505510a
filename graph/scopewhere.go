package graph

import (
	"context"
	"reflect"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"github.com/chakshu-dev/chakshu/ent"
)

// scopeWhere adds the viewer's access predicates to every where-input in a
// field's arguments, at every depth (edge predicates, and, or, not): ent
// builds hasXWith as an EXISTS subquery of X's table that the interceptors
// never see, so without this a filter could test rows the viewer may not
// read, and count them one guessed character at a time. A where-input type
// scopeWhere does not know is refused rather than let through.
func (h *api) scopeWhere(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || len(fc.Args) == 0 || allowAll(ctx) {
		return next(ctx)
	}
	var a *access
	for _, v := range fc.Args {
		rv := reflect.ValueOf(v)
		if !hasWhereInput(rv) {
			continue
		}
		if a == nil {
			var err error
			if a, err = h.access(ctx); err != nil {
				return nil, err
			}
		}
		if a.all {
			return next(ctx)
		}
		if err := a.scope(rv); err != nil {
			return nil, err
		}
	}
	return next(ctx)
}

// hasWhereInput reports whether v is, or is a list of, ent where-inputs.
func hasWhereInput(v reflect.Value) bool {
	t := v.Type()
	if v.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return isWhereInput(t)
}

var entPkg = reflect.TypeOf(ent.RunWhereInput{}).PkgPath()

func isWhereInput(t reflect.Type) bool {
	return t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct &&
		t.Elem().PkgPath() == entPkg && strings.HasSuffix(t.Elem().Name(), "WhereInput")
}

// scope adds the access predicate to v (a where-input or a list of them)
// and to every where-input it holds.
func (a *access) scope(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if err := a.scope(v.Index(i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
	default:
		return nil
	}
	switch w := v.Interface().(type) {
	case *ent.RunWhereInput:
		w.AddPredicates(a.runP())
	case *ent.FindingWhereInput:
		w.AddPredicates(a.findingP())
	case *ent.RunEventWhereInput:
		w.AddPredicates(a.runEventP())
	case *ent.RepositoryWhereInput:
		w.AddPredicates(a.repositoryP())
	case *ent.InstallationWhereInput:
		w.AddPredicates(a.installationP())
	case *ent.ReviewerWhereInput:
		w.AddPredicates(a.reviewerP())
	case *ent.ReviewLearningWhereInput:
		w.AddPredicates(a.learningP())
	case *ent.WebhookEventWhereInput:
		w.AddPredicates(a.webhookEventP())
	case *ent.UserWhereInput:
		w.AddPredicates(a.userP())
	case *ent.APITokenWhereInput:
		w.AddPredicates(a.apiTokenP())
	case *ent.BacktestWhereInput:
		w.AddPredicates(a.backtestP())
	case *ent.WorkerWhereInput:
		// any signed-in viewer reads workers
	default:
		return forbidden("the filter %s is not access-checked", v.Type().Elem().Name())
	}
	s := v.Elem()
	for i := 0; i < s.NumField(); i++ {
		f := s.Field(i)
		if !s.Type().Field(i).IsExported() {
			continue
		}
		if (f.Kind() == reflect.Pointer && isWhereInput(f.Type())) || (f.Kind() == reflect.Slice && isWhereInput(f.Type().Elem())) {
			if err := a.scope(f); err != nil {
				return err
			}
		}
	}
	return nil
}
