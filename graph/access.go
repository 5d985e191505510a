package graph

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"entgo.io/ent/dialect/sql"
	"github.com/99designs/gqlgen/graphql"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/apitoken"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/predicate"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/reviewlearning"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/runevent"
	"github.com/chakshu-dev/chakshu/ent/user"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/server/auth"
)

// access is what a viewer may read: everything (admins), or the repositories
// they can read on GitHub that Chakshu knows, and those repositories' installations.
type access struct {
	viewer    *auth.Viewer
	all       bool
	repoIDs   []int
	instIDs   []int
	repoNames []string // full names, for webhook events
}

type accessCell struct {
	once sync.Once
	a    *access
	err  error
}

type accessKey struct{}

// withAccess gives each request (and each websocket connection) one lazily
// computed access.
func (h *api) withAccess(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), accessKey{}, &accessCell{})))
	})
}

// access returns the request's access, or errUnauthenticated.
func (h *api) access(ctx context.Context) (*access, error) {
	v := auth.FromContext(ctx)
	if v == nil {
		return nil, errUnauthenticated
	}
	cell, _ := ctx.Value(accessKey{}).(*accessCell)
	if cell == nil { // outside a request (tests, internal calls): compute uncached
		return h.loadAccess(ctx, v)
	}
	cell.once.Do(func() { cell.a, cell.err = h.loadAccess(ctx, v) })
	return cell.a, cell.err
}

// loadAccess maps the viewer's GitHub repository ids to Chakshu's rows.
func (h *api) loadAccess(ctx context.Context, v *auth.Viewer) (*access, error) {
	a := &access{viewer: v, all: v.Admin}
	if a.all {
		return a, nil
	}
	insts := map[int]bool{}
	const chunk = 5000
	for i := 0; i < len(v.RepoGitHubIDs); i += chunk {
		ids := v.RepoGitHubIDs[i:min(i+chunk, len(v.RepoGitHubIDs))]
		repos, err := h.db.Repository.Query().Where(repository.GithubIDIn(ids...), repository.Removed(false)).
			Select(repository.FieldID, repository.FieldFullName, repository.InstallationColumn).
			WithInstallation(func(q *ent.InstallationQuery) { q.Select(installation.FieldID) }).All(ctx)
		if err != nil {
			return nil, fmt.Errorf("load readable repositories: %w", err)
		}
		for _, r := range repos {
			a.repoIDs = append(a.repoIDs, r.ID)
			a.repoNames = append(a.repoNames, r.FullName)
			if r.Edges.Installation != nil {
				insts[r.Edges.Installation.ID] = true
			}
		}
	}
	for id := range insts {
		a.instIDs = append(a.instIDs, id)
	}
	return a, nil
}

// inInts is column IN (ids), or false when ids is empty.
func inInts(s *sql.Selector, col string, ids []int) *sql.Predicate {
	if len(ids) == 0 {
		return sql.False()
	}
	return sql.InInts(s.C(col), ids...)
}

// runsOf is a sub-select of the ids of runs in the readable repositories.
func runsOf(repoIDs []int) *sql.Selector {
	t := sql.Table(run.Table)
	q := sql.Select(t.C(run.FieldID)).From(t)
	if len(repoIDs) == 0 {
		return q.Where(sql.False())
	}
	return q.Where(sql.InInts(t.C(run.RepositoryColumn), repoIDs...))
}

// intercept filters every query of the GraphQL client by the viewer's access:
// root connections, node(id:), edges and eager loads alike. No viewer, no rows.
func (h *api) intercept(c *ent.Client) {
	filter := func(apply func(a *access, q ent.Query)) ent.Interceptor {
		return ent.TraverseFunc(func(ctx context.Context, q ent.Query) error {
			if allowAll(ctx) {
				return nil
			}
			a, err := h.access(ctx)
			if err != nil {
				return err
			}
			apply(a, q)
			return nil
		})
	}
	c.Run.Intercept(filter(func(a *access, q ent.Query) {
		if !a.all {
			q.(*ent.RunQuery).Where(predicate.Run(func(s *sql.Selector) { s.Where(inInts(s, run.RepositoryColumn, a.repoIDs)) }))
		}
	}))
	c.Finding.Intercept(filter(func(a *access, q ent.Query) {
		if !a.all {
			q.(*ent.FindingQuery).Where(predicate.Finding(func(s *sql.Selector) {
				s.Where(sql.In(s.C(finding.RunColumn), runsOf(a.repoIDs)))
			}))
		}
	}))
	c.RunEvent.Intercept(filter(func(a *access, q ent.Query) {
		if !a.all {
			q.(*ent.RunEventQuery).Where(predicate.RunEvent(func(s *sql.Selector) {
				s.Where(sql.In(s.C(runevent.RunColumn), runsOf(a.repoIDs)))
			}))
		}
	}))
	c.Repository.Intercept(filter(func(a *access, q ent.Query) {
		if !a.all {
			q.(*ent.RepositoryQuery).Where(predicate.Repository(func(s *sql.Selector) { s.Where(inInts(s, repository.FieldID, a.repoIDs)) }))
		}
	}))
	c.Installation.Intercept(filter(func(a *access, q ent.Query) {
		if !a.all {
			q.(*ent.InstallationQuery).Where(predicate.Installation(func(s *sql.Selector) { s.Where(inInts(s, installation.FieldID, a.instIDs)) }))
		}
	}))
	c.Reviewer.Intercept(filter(func(a *access, q ent.Query) {
		if !a.all {
			q.(*ent.ReviewerQuery).Where(predicate.Reviewer(func(s *sql.Selector) { s.Where(inInts(s, reviewer.InstallationColumn, a.instIDs)) }))
		}
	}))
	c.ReviewLearning.Intercept(filter(func(a *access, q ent.Query) {
		if !a.all {
			q.(*ent.ReviewLearningQuery).Where(predicate.ReviewLearning(func(s *sql.Selector) {
				s.Where(sql.Or(
					inInts(s, reviewlearning.RepositoryColumn, a.repoIDs),
					sql.And(sql.IsNull(s.C(reviewlearning.RepositoryColumn)), inInts(s, reviewlearning.InstallationColumn, a.instIDs)),
				))
			}))
		}
	}))
	c.WebhookEvent.Intercept(filter(func(a *access, q ent.Query) {
		if !a.all {
			if len(a.repoNames) == 0 {
				q.(*ent.WebhookEventQuery).Where(predicate.WebhookEvent(func(s *sql.Selector) { s.Where(sql.False()) }))
				return
			}
			q.(*ent.WebhookEventQuery).Where(webhookevent.RepositoryIn(a.repoNames...))
		}
	}))
	c.User.Intercept(filter(func(a *access, q ent.Query) {
		if !a.all {
			q.(*ent.UserQuery).Where(user.ID(a.viewer.User.ID))
		}
	}))
	c.APIToken.Intercept(filter(func(a *access, q ent.Query) {
		if !a.all {
			q.(*ent.APITokenQuery).Where(apitoken.HasOwnerWith(user.ID(a.viewer.User.ID)))
		}
	}))
	c.ConnectorCredential.Intercept(filter(func(a *access, q ent.Query) {
		if !a.all {
			q.(*ent.ConnectorCredentialQuery).Where(predicate.ConnectorCredential(func(s *sql.Selector) { s.Where(sql.False()) }))
		}
	}))
	c.Worker.Intercept(filter(func(*access, ent.Query) {})) // any signed-in viewer
	countOnlyWhenAsked(c)
}

type allowAllKey struct{}

// allowAll reports whether ctx bypasses the access filter (internal look-ups
// of rows the viewer is already known to reach).
func allowAll(ctx context.Context) bool { b, _ := ctx.Value(allowAllKey{}).(bool); return b }

// viewer returns the signed-in viewer or errUnauthenticated.
func viewer(ctx context.Context) (*auth.Viewer, error) {
	if v := auth.FromContext(ctx); v != nil {
		return v, nil
	}
	return nil, errUnauthenticated
}

// adminOnlyFields are blanked for viewers who are not admins.
var adminOnlyFields = map[string]bool{
	"Run.failureDetail":      true,
	"RunEvent.detail":        true,
	"WebhookEvent.lastError": true,
}

// publicRootFields answer anonymous viewers.
var publicRootFields = map[string]bool{"viewer": true, "__schema": true, "__type": true, "__typename": true}

// fieldPolicy enforces, for every field: sign-in on root fields, write access
// on mutations, and admin-only fields.
func (h *api) fieldPolicy(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil {
		return next(ctx)
	}
	switch fc.Object {
	case "Query", "Subscription":
		if !publicRootFields[fc.Field.Name] && auth.FromContext(ctx) == nil {
			return nil, errUnauthenticated
		}
	case "Mutation":
		v := auth.FromContext(ctx)
		if v == nil {
			return nil, errUnauthenticated
		}
		if !v.CanWrite() {
			return nil, errReadOnlyToken
		}
	default:
		if adminOnlyFields[fc.Object+"."+fc.Field.Name] {
			if v := auth.FromContext(ctx); v == nil || !v.Admin {
				return "", nil
			}
		}
	}
	return next(ctx)
}

// isAdmin reports whether the viewer is an admin.
func isAdmin(ctx context.Context) bool {
	v := auth.FromContext(ctx)
	return v != nil && v.Admin
}

// requireAdmin refuses non-admins.
func requireAdmin(ctx context.Context) error {
	v, err := viewer(ctx)
	if err != nil {
		return err
	}
	if !v.Admin {
		return errAdminOnly
	}
	return nil
}

// equalFoldAny is a small helper for login comparisons.
func equalFoldAny(s string, list ...string) bool {
	for _, x := range list {
		if strings.EqualFold(s, x) {
			return true
		}
	}
	return false
}
