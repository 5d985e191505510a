package graph

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"entgo.io/ent/dialect/sql"
	"github.com/99designs/gqlgen/graphql"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/apitoken"
	"github.com/chakshu-dev/chakshu/ent/backtest"
	"github.com/chakshu-dev/chakshu/ent/connectorcredential"
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

// access is what a viewer may read: everything (global admins), or the
// repositories they can read on GitHub that Chakshu knows plus every
// repository of the installations they administer (org owners), and those
// repositories' installations.
type access struct {
	viewer    *auth.Viewer
	all       bool
	repoIDs   []int
	instIDs   []int
	repoNames []string // full names, for webhook events
	// adminInst are the installations the viewer administers (not global
	// admins: all covers them); adminInstGH their GitHub ids.
	adminInst   map[int]bool
	adminInstGH map[int64]bool
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
	a := &access{viewer: v, all: v.Admin, adminInst: map[int]bool{}, adminInstGH: map[int64]bool{}}
	if a.all {
		return a, nil
	}
	insts := map[int]bool{}
	seen := map[int]bool{}
	if len(v.AdminInstallations) > 0 {
		ins, err := h.db.Installation.Query().Where(installation.IDIn(v.AdminInstallations...)).
			WithRepositories(func(q *ent.RepositoryQuery) {
				q.Where(repository.Removed(false)).Select(repository.FieldID, repository.FieldFullName, repository.InstallationColumn)
			}).All(ctx)
		if err != nil {
			return nil, fmt.Errorf("load administered installations: %w", err)
		}
		for _, in := range ins {
			a.adminInst[in.ID], a.adminInstGH[in.GithubID], insts[in.ID] = true, true, true
			for _, r := range in.Edges.Repositories {
				seen[r.ID] = true
				a.repoIDs = append(a.repoIDs, r.ID)
				a.repoNames = append(a.repoNames, r.FullName)
			}
		}
	}
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
			if seen[r.ID] {
				continue
			}
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

// The access predicates: what of each entity the viewer may read. The
// interceptors apply them to every query; scopeWhere adds them inside every
// where-input, so an edge predicate (hasRunsWith, hasRepositoryWith, … at any
// depth, which ent turns into EXISTS subqueries no interceptor sees) only
// matches rows the viewer may read. All of them are no-ops for a.all.

func (a *access) runP() predicate.Run {
	return func(s *sql.Selector) { s.Where(inInts(s, run.RepositoryColumn, a.repoIDs)) }
}

func (a *access) findingP() predicate.Finding {
	return func(s *sql.Selector) { s.Where(sql.In(s.C(finding.RunColumn), runsOf(a.repoIDs))) }
}

func (a *access) runEventP() predicate.RunEvent {
	return func(s *sql.Selector) { s.Where(sql.In(s.C(runevent.RunColumn), runsOf(a.repoIDs))) }
}

func (a *access) repositoryP() predicate.Repository {
	return func(s *sql.Selector) { s.Where(inInts(s, repository.FieldID, a.repoIDs)) }
}

func (a *access) installationP() predicate.Installation {
	return func(s *sql.Selector) { s.Where(inInts(s, installation.FieldID, a.instIDs)) }
}

func (a *access) reviewerP() predicate.Reviewer {
	return func(s *sql.Selector) { s.Where(inInts(s, reviewer.InstallationColumn, a.instIDs)) }
}

func (a *access) learningP() predicate.ReviewLearning {
	return func(s *sql.Selector) {
		s.Where(sql.Or(
			inInts(s, reviewlearning.RepositoryColumn, a.repoIDs),
			sql.And(sql.IsNull(s.C(reviewlearning.RepositoryColumn)), inInts(s, reviewlearning.InstallationColumn, a.instIDs)),
		))
	}
}

func (a *access) webhookEventP() predicate.WebhookEvent {
	if len(a.repoNames) == 0 {
		return func(s *sql.Selector) { s.Where(sql.False()) }
	}
	return webhookevent.RepositoryIn(a.repoNames...)
}

func (a *access) userP() predicate.User { return user.ID(a.viewer.User.ID) }

func (a *access) apiTokenP() predicate.APIToken {
	return apitoken.HasOwnerWith(user.ID(a.viewer.User.ID))
}

// adminInstIDs are the installations the viewer administers.
func (a *access) adminInstIDs() []int {
	ids := make([]int, 0, len(a.adminInst))
	for id := range a.adminInst {
		ids = append(ids, id)
	}
	return ids
}

// credentialP: connector credentials of the installations the viewer administers.
func (a *access) credentialP() predicate.ConnectorCredential {
	ids := a.adminInstIDs()
	return func(s *sql.Selector) { s.Where(inInts(s, connectorcredential.InstallationColumn, ids)) }
}

// backtestP: backtests of the installations the viewer administers. A
// backtest's report sums findings over pull requests of every repository the
// reviewer reviewed, which a reader of one repository may not see.
func (a *access) backtestP() predicate.Backtest {
	ids := a.adminInstIDs()
	return func(s *sql.Selector) { s.Where(inInts(s, backtest.InstallationColumn, ids)) }
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
			if !a.all {
				apply(a, q)
			}
			return nil
		})
	}
	c.Run.Intercept(filter(func(a *access, q ent.Query) { q.(*ent.RunQuery).Where(a.runP()) }))
	c.Finding.Intercept(filter(func(a *access, q ent.Query) { q.(*ent.FindingQuery).Where(a.findingP()) }))
	c.RunEvent.Intercept(filter(func(a *access, q ent.Query) { q.(*ent.RunEventQuery).Where(a.runEventP()) }))
	c.Repository.Intercept(filter(func(a *access, q ent.Query) { q.(*ent.RepositoryQuery).Where(a.repositoryP()) }))
	c.Installation.Intercept(filter(func(a *access, q ent.Query) { q.(*ent.InstallationQuery).Where(a.installationP()) }))
	c.Reviewer.Intercept(filter(func(a *access, q ent.Query) { q.(*ent.ReviewerQuery).Where(a.reviewerP()) }))
	c.ReviewLearning.Intercept(filter(func(a *access, q ent.Query) { q.(*ent.ReviewLearningQuery).Where(a.learningP()) }))
	c.WebhookEvent.Intercept(filter(func(a *access, q ent.Query) { q.(*ent.WebhookEventQuery).Where(a.webhookEventP()) }))
	c.User.Intercept(filter(func(a *access, q ent.Query) { q.(*ent.UserQuery).Where(a.userP()) }))
	c.APIToken.Intercept(filter(func(a *access, q ent.Query) { q.(*ent.APITokenQuery).Where(a.apiTokenP()) }))
	c.ConnectorCredential.Intercept(filter(func(a *access, q ent.Query) {
		q.(*ent.ConnectorCredentialQuery).Where(a.credentialP())
	}))
	c.AuditEntry.Intercept(filter(func(a *access, q ent.Query) { q.(*ent.AuditEntryQuery).Where(a.auditP()) }))
	c.Backtest.Intercept(filter(func(a *access, q ent.Query) { q.(*ent.BacktestQuery).Where(a.backtestP()) }))
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
			ok, err := h.adminOverParent(ctx, fc)
			if err != nil {
				return nil, err
			}
			if !ok {
				return "", nil
			}
		}
	}
	return next(ctx)
}

// adminOverParent reports whether the viewer administers the installation of
// the object whose field fc resolves (a run, run event or webhook event).
func (h *api) adminOverParent(ctx context.Context, fc *graphql.FieldContext) (bool, error) {
	v := auth.FromContext(ctx)
	if v == nil || !v.AnyAdmin() {
		return false, nil
	}
	if v.Admin {
		return true, nil
	}
	var obj any
	for p := fc.Parent; p != nil && obj == nil; p = p.Parent {
		obj = p.Result
	}
	a, err := h.access(ctx)
	if err != nil {
		return false, err
	}
	return h.adminOverObject(ctx, a, obj)
}

// adminOverObject reports whether a administers obj's installation.
func (h *api) adminOverObject(ctx context.Context, a *access, obj any) (bool, error) {
	if a.all {
		return true, nil
	}
	ctx = allowAllCtx(ctx)
	var q *ent.RepositoryQuery
	switch o := obj.(type) {
	case **ent.Run:
		return h.adminOverObject(ctx, a, *o)
	case **ent.RunEvent:
		return h.adminOverObject(ctx, a, *o)
	case **ent.WebhookEvent:
		return h.adminOverObject(ctx, a, *o)
	case *ent.Run:
		q = h.db.Run.QueryRepository(o)
	case *ent.RunEvent:
		q = h.db.RunEvent.QueryRun(o).QueryRepository()
	case *ent.WebhookEvent:
		return a.adminInstGH[o.InstallationID], nil
	default:
		return false, nil
	}
	inst, err := q.QueryInstallation().OnlyID(ctx)
	if ent.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return a.adminInst[inst], nil
}

// requireAdminOf refuses viewers who do not administer the installation.
func requireAdminOf(ctx context.Context, instID int) error {
	v, err := viewer(ctx)
	if err != nil {
		return err
	}
	if !v.AdminOf(instID) {
		return errAdminOnly
	}
	return nil
}

// requireAdmin refuses viewers who are not global admins.
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
