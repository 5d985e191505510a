package events_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/gh/ghtest"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/server/webhook"
	"github.com/chakshu-dev/chakshu/server/webhook/webhooktest"
	"github.com/chakshu-dev/chakshu/worker/events"
)

const (
	slug   = "chakshu"
	secret = "hook-secret"
	repoFN = "acme/widget"
)

// env is a simulated GitHub that delivers its webhooks to the real intake,
// and an events loop that handles them with real GitHub clients.
type env struct {
	t      *testing.T
	db     *store.DB
	sim    *ghsim.Sim
	bus    *wakeup.Local
	apps   *gh.Apps
	loop   *events.Loop
	instID int64
	app    int64
	intake string
	inst   *ent.Installation
	repo   *ent.Repository
}

type envOpts struct {
	allow   []string
	backoff []time.Duration
	files   map[string]string // extra files on main
	log     io.Writer         // the loop's JSON log; nil discards
	// outcomes counts the loop's attempts; nil counts nothing.
	outcomes events.Outcomes
}

func newEnv(t *testing.T, db *store.DB, o envOpts) *env {
	t.Helper()
	e := &env{t: t, db: db, bus: wakeup.NewLocal()}
	e.sim = ghsimtest.New(t)
	appID, pem := e.sim.CreateApp(slug)
	e.app = appID
	var logOut io.Writer = io.Discard
	if o.log != nil {
		logOut = o.log
	}
	log := slog.New(slog.NewJSONHandler(logOut, nil))
	e.intake = webhooktest.StartIntake(t, webhook.Config{DB: db, Secrets: []string{secret}, Log: log, Bus: e.bus}).URL
	e.sim.SetWebhook(e.intake, secret)

	e.sim.CreateOrg("acme")
	e.sim.CreateUser("alice")
	e.sim.CreateUser("mallory")
	e.sim.CreateBot("dependabot[bot]")
	files := map[string]string{"main.go": "package main\n\nfunc main() {}\n", ".github/workflows/chakshu.yml": action.WorkflowTemplate}
	for k, v := range o.files {
		files[k] = v
	}
	e.sim.CreateRepo("acme", "widget", files)
	e.sim.SetPermission(repoFN, "alice", "write")
	e.sim.SetPermission(repoFN, "mallory", "read")
	e.instID = e.sim.Install(appID, "acme", nil, nil)

	var err error
	e.apps = ghtest.Apps(t, e.sim, appID, pem, ghtest.Retry(gh.RetryPolicy{Attempts: 2, BaseDelay: 10 * time.Millisecond, MaxDelay: 50 * time.Millisecond}))
	backoff := o.backoff
	if backoff == nil {
		backoff = []time.Duration{0, 0}
	}
	e.loop, err = events.New(events.Config{DB: db, Bus: e.bus, Log: log, GitHub: e.apps, AppSlug: slug,
		WorkerID: "test-worker", AllowList: o.allow, Backoff: backoff, Outcomes: o.outcomes})
	if err != nil {
		t.Fatal(err)
	}
	e.drain()
	ctx := context.Background()
	e.inst = db.Installation.Query().Where(installation.GithubID(e.instID)).OnlyX(ctx)
	e.repo = db.Repository.Query().Where(repository.FullName(repoFN)).OnlyX(ctx)
	return e
}

// drain handles every stored event and fails the test on any that failed.
func (e *env) drain() {
	e.t.Helper()
	if _, err := e.loop.Drain(context.Background()); err != nil {
		e.t.Fatalf("drain: %v", err)
	}
	failed := e.db.WebhookEvent.Query().Where(webhookevent.StatusNEQ(webhookevent.StatusDone)).AllX(context.Background())
	for _, f := range failed {
		e.t.Fatalf("event %s %s.%s is %s: %s", f.DeliveryID, f.Event, f.Action, f.Status, f.LastError)
	}
}

// reviewer adds an enabled reviewer with cfg.
func (e *env) reviewer(name string, mut func(c *reviewerconfig.Config)) *ent.Reviewer {
	c := reviewerconfig.Defaults()
	if mut != nil {
		mut(&c)
	}
	return e.db.Reviewer.Create().SetName(name).SetInstallation(e.inst).SetConfig(&c).SaveX(context.Background())
}

// pr opens a PR from a new branch that changes path.
func (e *env) pr(branch, path string, draft bool) int {
	e.sim.CreateBranch(repoFN, branch, "main")
	e.sim.Commit(repoFN, branch, map[string]string{path: "package main\n\n// changed\nfunc f() {}\n"}, "change")
	return e.sim.OpenPR(repoFN, branch, "main", "Change "+path, "", "alice", draft)
}

// installationClient is the App's REST client on the installation (to act as Chakshu in setup).
func (e *env) installationClient() *gh.Installation {
	in := ghtest.Installation(e.t, e.apps, e.instID)
	return in
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func (e *env) appID() int64 { return e.app }

// githubClientFor is a REST client acting as a person (OAuth token).
func githubClientFor(e *env, login string) *github.Client {
	tok := e.sim.UserToken(login)
	return gh.NewREST(&http.Client{Transport: bearer{tok}}, e.sim.URL())
}

type bearer struct{ tok string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "token "+b.tok)
	return http.DefaultTransport.RoundTrip(r)
}
