package graph

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/gh/ghtest"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/server/auth"
)

// env is a real handler over a real database, with GitHub simulated by ghsim:
// installation "acme" with repositories acme/api (A) and acme/secret (B).
// alice can write A and cannot see B; bob can read A and B; carol is an admin.
type env struct {
	t      *testing.T
	db     *store.DB
	sim    *ghsim.Sim
	srv    *httptest.Server
	bus    *wakeup.Local
	drv    *countingDriver
	inst   *ent.Installation
	repoA  *ent.Repository
	repoB  *ent.Repository
	revSec *ent.Reviewer
	revPrf *ent.Reviewer
	prA    int // open PR on acme/api
	prB    int // open PR on acme/secret
}

// countingDriver counts the statements the GraphQL client sends (N+1 checks).
type countingDriver struct {
	dialect.Driver
	n atomic.Int64
}

func (d *countingDriver) Query(ctx context.Context, q string, args, v any) error {
	d.n.Add(1)
	return d.Driver.Query(ctx, q, args, v)
}

func (d *countingDriver) Exec(ctx context.Context, q string, args, v any) error {
	d.n.Add(1)
	return d.Driver.Exec(ctx, q, args, v)
}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	ctx := context.Background()
	e := &env{t: t, db: db, sim: ghsimtest.New(t), bus: wakeup.NewLocal()}
	runstate.NotifyLiveUpdates(db.Client, e.bus) // as the app wires it
	s := e.sim
	appID, pem := s.CreateApp("chakshu")
	clientID, clientSecret := s.AppClientCredentials(appID)
	s.CreateOrg("acme")
	for _, u := range []string{"alice", "bob", "carol"} {
		s.CreateUser(u)
	}
	s.CreateRepo("acme", "api", map[string]string{"main.go": "package main\n"})
	s.CreateRepo("acme", "secret", map[string]string{"main.go": "package main\n"})
	s.SetPermission("acme/api", "alice", "write")
	s.SetPermission("acme/api", "bob", "read")
	s.SetPermission("acme/secret", "bob", "read")
	ghInst := s.Install(appID, "acme", nil, nil)
	s.CreateBranch("acme/api", "feature", "main")
	s.Commit("acme/api", "feature", map[string]string{"a.go": "package main\n"}, "add a")
	e.prA = s.OpenPR("acme/api", "feature", "main", "Add a", "", "alice", false)
	s.CreateBranch("acme/secret", "feature", "main")
	s.Commit("acme/secret", "feature", map[string]string{"b.go": "package main\n"}, "add b")
	e.prB = s.OpenPR("acme/secret", "feature", "main", "Add b", "", "bob", false)

	key := make([]byte, 32)
	rand.Read(key) //nolint:errcheck
	var h http.Handler = http.NotFoundHandler()
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(e.srv.Close)
	cfg := &config.Config{
		SharedPart: config.SharedPart{PublicURL: e.srv.URL, GitHubURL: s.URL(), GitHubGraphQLURL: s.GraphQLURL(), SecretKey: key, DeadWorkerAfter: 90 * time.Second, GitHubWritesPerMinute: 80, GitHubWritesPerHour: 500}, // writes paced at the defaults
		WebPart:    config.WebPart{OAuthClientID: clientID, OAuthClientSecret: clientSecret, Admins: []string{"carol"}},
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := auth.New(auth.Config{DB: db, Log: log, Settings: auth.SettingsFrom(cfg.SharedPart, cfg.WebPart)})
	if err != nil {
		t.Fatal(err)
	}
	apps := ghtest.Apps(t, s, appID, pem)
	e.drv = &countingDriver{Driver: entsql.OpenDB(db.Dialect, db.SQL)}
	gql, err := NewHandler(Config{DB: db, Log: log, Bus: e.bus, Settings: SettingsFrom(cfg.SharedPart, cfg.WebPart), Auth: a, GitHub: apps,
		PollInterval: 200 * time.Millisecond, Driver: e.drv})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	mux.Handle("/graphql", gql)
	h = mux

	e.inst = db.Installation.Create().SetGithubID(ghInst).SetAccountLogin("acme").SaveX(ctx)
	e.repoA = db.Repository.Create().SetGithubID(s.RepoID("acme/api")).SetOwner("acme").SetName("api").
		SetFullName("acme/api").SetInstallation(e.inst).SaveX(ctx)
	e.repoB = db.Repository.Create().SetGithubID(s.RepoID("acme/secret")).SetOwner("acme").SetName("secret").
		SetFullName("acme/secret").SetInstallation(e.inst).SaveX(ctx)
	e.revSec = db.Reviewer.Create().SetName("security").SetDescription("Looks for holes").SetInstallation(e.inst).
		SetSkills([]reviewerconfig.Skill{{Name: "authz", Description: "Access checks", Content: "SECRET SKILL BODY"}}).
		SetConfig(&reviewerconfig.Config{Connectors: []string{"github"}, Model: "claude-x", MaxCostUSD: 1.5}).SaveX(ctx)
	e.revPrf = db.Reviewer.Create().SetName("perf").SetInstallation(e.inst).SaveX(ctx)
	return e
}

// seedRun stores a finished run with findings.
func (e *env) seedRun(repo *ent.Repository, rev *ent.Reviewer, pr int, status run.Status, cost float64, durMs int64, findings int) *ent.Run {
	ctx := context.Background()
	r := e.db.Run.Create().SetRepository(repo).SetReviewer(rev).SetTrigger(run.TriggerComment).SetPrNumber(pr).
		SetPrTitle("PR " + repo.Name).SetPrURL(e.sim.WebURL() + "/" + repo.FullName + "/pull/" + itoa(pr)).
		SetHeadSha(strings.Repeat("a", 40)).SetStatus(status).SetCostUsd(cost).SetDurationMs(durMs).
		SetFindingsMajor(findings).SetFailureDetail("token ghs_secretdetail failed").SetCheckRunID(77).
		SetInputTokens(1000).SetOutputTokens(200).SaveX(ctx)
	for i := 0; i < findings; i++ {
		e.db.Finding.Create().SetRun(r).SetHiddenID("h" + itoa(i)).SetPath("a.go").SetLine(i + 1).
			SetSeverity("major").SetTitle("finding " + itoa(i)).SaveX(ctx)
	}
	e.db.RunEvent.Create().SetRun(r).SetToStatus(string(status)).SetMessage("done").SetDetail("operator detail").SaveX(ctx)
	return r
}

// seedQueued stores a queued run (cancellable).
func (e *env) seedQueued(repo *ent.Repository, requester string) *ent.Run {
	return e.db.Run.Create().SetRepository(repo).SetReviewer(e.revPrf).SetTrigger(run.TriggerPortal).
		SetPrNumber(9000 + int(time.Now().UnixNano()%100000)).SetHeadSha("b").SetRequester(requester).
		SaveX(context.Background())
}

func (e *env) seedFailedEvent(repo string) *ent.WebhookEvent {
	return e.db.WebhookEvent.Create().SetDeliveryID(repo + time.Now().String()).SetEvent("pull_request").
		SetRepository(repo).SetPayload([]byte(`{"secret":"payload"}`)).SetStatus(webhookevent.StatusFailed).
		SetLastError("boom").SetAttempts(3).SaveX(context.Background())
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// client is one browser (cookie jar) or one API token.
type client struct {
	e      *env
	hc     *http.Client
	csrf   string
	bearer string
	who    string
}

func (e *env) anon() *client {
	jar, _ := cookiejar.New(nil)
	c := &client{e: e, hc: &http.Client{Jar: jar, Timeout: 30 * time.Second}, who: "anonymous"}
	c.refreshCSRF()
	return c
}

// login signs in through the real OAuth web flow against the simulator.
func (e *env) login(login string) *client {
	e.t.Helper()
	c := e.anon()
	c.who = login
	e.sim.SetOAuthLogin(login)
	resp, err := c.hc.Get(e.srv.URL + "/auth/login?return_to=/runs")
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/runs" {
		e.t.Fatalf("login %s ended at %s (status %d)", login, resp.Request.URL, resp.StatusCode)
	}
	c.refreshCSRF()
	return c
}

func (c *client) refreshCSRF() {
	resp, err := c.hc.Get(c.e.srv.URL + "/api/me")
	if err != nil {
		c.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var me auth.Me
	json.NewDecoder(resp.Body).Decode(&me) //nolint:errcheck
	c.csrf = me.CSRFToken
}

// token creates an API token as c and returns a client using it.
func (c *client) token(scope string) *client {
	c.e.t.Helper()
	r := c.do(`mutation($s: APITokenScope!) { createAPIToken(input: {name: "dash", scope: $s}) { token apiToken { id prefix scope } } }`,
		map[string]any{"s": scope})
	r.ok(c.e.t)
	var d struct {
		CreateAPIToken struct{ Token string }
	}
	r.into(c.e.t, &d)
	if !strings.HasPrefix(d.CreateAPIToken.Token, "chkt_") {
		c.e.t.Fatalf("token %q", d.CreateAPIToken.Token)
	}
	return &client{e: c.e, hc: &http.Client{Timeout: 30 * time.Second}, bearer: d.CreateAPIToken.Token, who: c.who + "-" + scope + "-token"}
}

type gqlError struct {
	Message    string         `json:"message"`
	Extensions map[string]any `json:"extensions"`
}

type gqlResp struct {
	Status int
	Data   json.RawMessage `json:"data"`
	Errors []gqlError      `json:"errors"`
	raw    string
}

func (r gqlResp) code() string {
	if len(r.Errors) == 0 {
		return "OK"
	}
	c, _ := r.Errors[0].Extensions["code"].(string)
	return c
}

func (r gqlResp) ok(t *testing.T) {
	t.Helper()
	if r.code() != "OK" {
		t.Fatalf("want no errors, got %d %s", r.Status, r.raw)
	}
}

func (r gqlResp) into(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Data, v); err != nil {
		t.Fatalf("decode %s: %v", r.raw, err)
	}
}

func (c *client) do(query string, vars map[string]any) gqlResp {
	c.e.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return c.post(body, true)
}

func (c *client) post(body []byte, withCSRF bool) gqlResp {
	c.e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.e.srv.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	} else if withCSRF {
		req.Header.Set(auth.CSRFHeader, c.csrf)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := gqlResp{Status: resp.StatusCode, raw: string(b)}
	json.Unmarshal(b, &out) //nolint:errcheck
	return out
}
