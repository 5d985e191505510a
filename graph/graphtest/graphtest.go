// Package graphtest serves Chakshu's real /graphql handler and login routes
// over a real database, with GitHub simulated by ghsim, for tests outside
// package graph (the security suite). Sign-ins go through the real OAuth web
// flow against the simulator; the handler's SQL statements are counted.
package graphtest

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
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/chakshu-dev/chakshu/graph"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/server/auth"
)

// Statements counts the SQL statements the GraphQL handler's client sends.
type Statements struct {
	dialect.Driver
	n atomic.Int64
}

// Query implements dialect.Driver.
func (d *Statements) Query(ctx context.Context, q string, args, v any) error {
	d.n.Add(1)
	return d.Driver.Query(ctx, q, args, v)
}

// Exec implements dialect.Driver.
func (d *Statements) Exec(ctx context.Context, q string, args, v any) error {
	d.n.Add(1)
	return d.Driver.Exec(ctx, q, args, v)
}

// Count is the number of statements so far.
func (d *Statements) Count() int64 { return d.n.Load() }

// Clock is a settable test clock.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// Env is one Chakshu API server: Sim is GitHub, DB the database, AppID the
// App installed by Install.
type Env struct {
	T     testing.TB
	DB    *store.DB
	Sim   *ghsim.Sim
	URL   string
	AppID int64
	Stmts *Statements
	Clock *Clock
}

// New starts the server. admins are CHAKSHU_ADMINS.
func New(t testing.TB, db *store.DB, admins ...string) *Env {
	t.Helper()
	e := &Env{T: t, DB: db, Sim: ghsimtest.New(t), Clock: &Clock{t: time.Now()}}
	appID, pem := e.Sim.CreateApp("chakshu")
	e.AppID = appID
	clientID, clientSecret := e.Sim.AppClientCredentials(appID)
	key := make([]byte, 32)
	rand.Read(key) //nolint:errcheck
	var h http.Handler = http.NotFoundHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	e.URL = srv.URL
	cfg := &config.Config{
		SharedPart: config.SharedPart{PublicURL: srv.URL, GitHubURL: e.Sim.URL(), GitHubGraphQLURL: e.Sim.GraphQLURL(), SecretKey: key, DeadWorkerAfter: 90 * time.Second},
		WebPart:    config.WebPart{OAuthClientID: clientID, OAuthClientSecret: clientSecret, Admins: admins},
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := auth.New(auth.Config{DB: db, Log: log, Settings: auth.SettingsFrom(cfg.SharedPart, cfg.WebPart), Now: e.Clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	apps, err := gh.New(gh.Config{AppID: appID, PrivateKey: pem, BaseURL: e.Sim.URL(), GraphQLURL: e.Sim.GraphQLURL()})
	if err != nil {
		t.Fatal(err)
	}
	e.Stmts = &Statements{Driver: db.Driver()}
	gql, err := graph.NewHandler(graph.Config{DB: db, Log: log, Bus: wakeup.NewLocal(), Settings: graph.SettingsFrom(cfg.SharedPart, cfg.WebPart), Auth: a, GitHub: apps, Driver: e.Stmts,
		Now: e.Clock.Now, PollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	mux.Handle("/graphql", gql)
	h = mux
	return e
}

// Client is one browser (a cookie jar) or one API token.
type Client struct {
	e      *Env
	hc     *http.Client
	csrf   string
	Bearer string
	Who    string
}

// Login signs login in through the OAuth web flow against the simulator.
func (e *Env) Login(login string) *Client {
	e.T.Helper()
	jar, _ := cookiejar.New(nil)
	c := &Client{e: e, hc: &http.Client{Jar: jar, Timeout: 60 * time.Second}, Who: login}
	e.Sim.SetOAuthLogin(login)
	resp, err := c.hc.Get(e.URL + "/auth/login?return_to=/runs")
	if err != nil {
		e.T.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/runs" {
		e.T.Fatalf("login %s ended at %s (status %d)", login, resp.Request.URL, resp.StatusCode)
	}
	c.csrf = c.Me().CSRFToken
	return c
}

// Me is GET /api/me as c.
func (c *Client) Me() auth.Me {
	req, _ := http.NewRequest(http.MethodGet, c.e.URL+"/api/me", nil)
	if c.Bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.Bearer)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.e.T.Fatal(err)
	}
	defer resp.Body.Close()
	var me auth.Me
	json.NewDecoder(resp.Body).Decode(&me) //nolint:errcheck
	return me
}

// WithToken is a client that sends the API token tok.
func (e *Env) WithToken(tok, who string) *Client {
	return &Client{e: e, hc: &http.Client{Timeout: 60 * time.Second}, Bearer: tok, Who: who}
}

// Resp is a GraphQL answer.
type Resp struct {
	Status int
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
	Raw string
}

// Code is the first error's code, or "OK".
func (r Resp) Code() string {
	if len(r.Errors) == 0 {
		return "OK"
	}
	c, _ := r.Errors[0].Extensions["code"].(string)
	if c == "" {
		return "ERROR"
	}
	return c
}

// OK fails the test unless r has no errors, and decodes its data into v (if not nil).
func (r Resp) OK(t testing.TB, v any) {
	t.Helper()
	if len(r.Errors) > 0 || r.Status != http.StatusOK {
		t.Fatalf("want no errors, got %d %s", r.Status, r.Raw)
	}
	if v != nil {
		if err := json.Unmarshal(r.Data, v); err != nil {
			t.Fatalf("decode %s: %v", r.Raw, err)
		}
	}
}

// Do sends one GraphQL operation.
func (c *Client) Do(query string, vars map[string]any) Resp {
	c.e.T.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, c.e.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if c.Bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.Bearer)
	} else {
		req.Header.Set(auth.CSRFHeader, c.csrf)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.e.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := Resp{Status: resp.StatusCode, Raw: string(b)}
	json.Unmarshal(b, &out) //nolint:errcheck
	return out
}

// Token creates an API token as c (createAPIToken) and returns a client
// using it, and the mutation's answer.
func (c *Client) Token(scope string) (*Client, Resp) {
	c.e.T.Helper()
	r := c.Do(`mutation($s: APITokenScope!) { createAPIToken(input: {name: "dash", scope: $s}) { token apiToken { id prefix scope expiresAt } } }`,
		map[string]any{"s": scope})
	var d struct{ CreateAPIToken struct{ Token string } }
	r.OK(c.e.T, &d)
	if !strings.HasPrefix(d.CreateAPIToken.Token, auth.TokenPrefix) {
		c.e.T.Fatalf("token %q", d.CreateAPIToken.Token)
	}
	return c.e.WithToken(d.CreateAPIToken.Token, c.Who+"-"+scope+"-token"), r
}

// AuthHeader is what c authenticates with (its Authorization header, or
// its session cookie), for dialling the WebSocket as c.
func (c *Client) AuthHeader() http.Header {
	h := http.Header{}
	if c.Bearer != "" {
		h.Set("Authorization", "Bearer "+c.Bearer)
		return h
	}
	u, _ := url.Parse(c.e.URL)
	for _, ck := range c.hc.Jar.Cookies(u) {
		h.Add("Cookie", ck.String())
	}
	return h
}

// Logout signs c's session out (POST /auth/logout).
func (c *Client) Logout() {
	c.e.T.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.e.URL+"/auth/logout", nil)
	req.Header.Set(auth.CSRFHeader, c.csrf)
	resp, err := c.hc.Do(req)
	if err != nil {
		c.e.T.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		c.e.T.Fatalf("logout: %d", resp.StatusCode)
	}
}
