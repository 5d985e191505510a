// Package ghsim is an in-process, stateful GitHub simulator served over real
// HTTP on 127.0.0.1. Chakshu's production clients (go-github, githubv4,
// ghinstallation, go-oidc, x/oauth2) talk to it unchanged with only base URLs
// switched. See API.md beside this file.
package ghsim

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// APIPrefix is the path of the REST API under the simulator's root, as on
// GitHub Enterprise Server. URL() includes it.
const APIPrefix = "/api/v3"

// Options configure a simulator. The zero value is usable.
type Options struct {
	// Seed makes the tests' fault injection deterministic (Seed).
	Seed int64
	// AsyncWebhooks delivers webhooks from a goroutine instead of before the
	// call that caused them returns. Synchronous is the default.
	AsyncWebhooks bool
	// Validator, when set, checks every REST request and response and every
	// webhook payload against GitHub's published descriptions, and turns on
	// the reporting of GraphQL documents that do not validate against
	// GitHub's schema; failures are recorded (ValidationErrors) and reported
	// to OnValidationError. The descriptions live with the tests
	// (ghsimtest.Spec; ghsimtest.New turns it on), out of the server.
	Validator Validator
	// OnValidationError is called with each validation failure.
	OnValidationError func(error)
	// Logf, when set, receives one line per request and delivery.
	Logf func(format string, args ...any)
	// WebhookClient delivers webhooks; nil means a client with a 10 s timeout.
	WebhookClient *http.Client
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Addr is the listen address; "" means 127.0.0.1:0. Only loopback
	// addresses are accepted (the sandbox may pin a port).
	Addr string
	// PagesURL is the root the "github.com" pages are served under, as html_url
	// fields and page links give it (the sandbox mounts PagesHandler on
	// Chakshu's own listener, so links survive a restart); "" means the
	// simulator's own address.
	PagesURL string
	// RunLog returns what an Actions run's log holds so far (the simulated
	// runner's output); nil shows no log on the run page.
	RunLog func(runID int64) ([]byte, error)
	// EnterpriseVersion, when set (e.g. "3.19.0"), makes the simulator speak
	// GitHub Enterprise Server's dialect: GET /meta carries installed_version,
	// workflow dispatch refuses return_run_details with 422
	// (benc-uk/workflow-dispatch#86) and the Actions OIDC issuer is
	// http://127.0.0.1:PORT/_services/token. REST stays under /api/v3 and
	// GraphQL at /api/graphql, as on every Enterprise Server.
	EnterpriseVersion string
	// Limits, when set, is the realistic mode: GitHub's primary and
	// secondary rate limits per installation and a cap on concurrent
	// requests (limits.go; API.md "Rate limits").
	Limits *Limits
}

// Sim is a running simulator. All methods are safe for concurrent use.
type Sim struct {
	opts Options
	srv  *httptest.Server
	// limits is the realistic mode (Options.Limits); nil without it.
	limits *limiter
	base   string // http://127.0.0.1:PORT
	// pagesBase is where /sim/… pages are served (Options.PagesURL).
	pagesBase string

	routes []*route

	mu       sync.Mutex
	nextID   int64
	accounts map[string]*account // by lower login
	teams    map[string]*team    // "org/slug"
	apps     map[int64]*app
	installs map[int64]*installation
	tokens   map[string]*accessToken
	repos    map[string]*repo             // lower "owner/name"
	pulls    map[string]*pull             // "owner/name#n"
	issues   map[string]*issue            // "owner/name#n"; numbers shared with pulls
	orgRoles map[string]map[string]string // lower org → lower login → admin|member
	checks   map[int64]*checkRun
	runs     map[int64]*workflowRun
	oauth    map[string]*oauthCode
	// refreshTokens are user tokens' refresh tokens (oauth.go).
	refreshTokens map[string]*refreshToken
	hook          *webhookConfig
	pending       []*Delivery
	deliveries    []*Delivery
	oauthLogin    string
	htmlOnce      sync.Once
	pages         *http.ServeMux
	calls         map[string]int
	gqlCalls      map[string]int
	apiKeys       map[string]bool // keys of calls to the API (REST, GraphQL)
	valErrs       []string
	intercept     atomic.Pointer[Interceptor]
	oidcKey       *rsa.PrivateKey
	onDisp        []func(WorkflowRun)
	deliverMu     sync.Mutex // serialises synchronous deliveries
	deliverWG     inflight
	closed        bool
}

// New starts a simulator on 127.0.0.1:0 (or opts.Addr). It panics if the
// address cannot be bound; Start returns the error instead.
func New(opts Options) *Sim {
	s, err := Start(opts)
	if err != nil {
		panic(err)
	}
	return s
}

// Start is New returning an error when opts.Addr is not a loopback address
// or cannot be bound.
func Start(opts Options) (*Sim, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.WebhookClient == nil {
		opts.WebhookClient = &http.Client{Timeout: 10 * time.Second}
	}
	s := &Sim{
		opts:          opts,
		limits:        newLimiter(opts.Limits),
		nextID:        1000,
		accounts:      map[string]*account{},
		teams:         map[string]*team{},
		apps:          map[int64]*app{},
		installs:      map[int64]*installation{},
		tokens:        map[string]*accessToken{},
		repos:         map[string]*repo{},
		pulls:         map[string]*pull{},
		issues:        map[string]*issue{},
		orgRoles:      map[string]map[string]string{},
		checks:        map[int64]*checkRun{},
		runs:          map[int64]*workflowRun{},
		oauth:         map[string]*oauthCode{},
		refreshTokens: map[string]*refreshToken{},
		calls:         map[string]int{},
		gqlCalls:      map[string]int{},
		apiKeys:       map[string]bool{},
		oidcKey:       sharedKey(0),
	}
	s.registerRoutes()
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serveHTTP))
	s.srv.Config.ReadHeaderTimeout = 10 * time.Second
	if opts.Addr != "" {
		host, _, err := net.SplitHostPort(opts.Addr)
		if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
			return nil, fmt.Errorf("ghsim: listen address %q is not a loopback address", opts.Addr)
		}
		l, err := net.Listen("tcp", opts.Addr)
		if err != nil {
			return nil, fmt.Errorf("ghsim: listen on %s: %w", opts.Addr, err)
		}
		s.srv.Listener.Close()
		s.srv.Listener = l
	}
	s.srv.Start()
	s.base = s.srv.URL
	s.pagesBase = strings.TrimRight(opts.PagesURL, "/")
	if s.pagesBase == "" {
		s.pagesBase = s.base
	}
	return s, nil
}

// URL is the REST API base, with a trailing slash: http://127.0.0.1:PORT/api/v3/.
func (s *Sim) URL() string { return s.base + APIPrefix + "/" }

// GraphQLURL is the GraphQL endpoint: http://127.0.0.1:PORT/api/graphql.
func (s *Sim) GraphQLURL() string { return s.base + "/api/graphql" }

// IssuerURL is the Actions OIDC issuer: http://127.0.0.1:PORT/oidc, or
// http://127.0.0.1:PORT/_services/token in Enterprise Server mode (GHES's
// issuer is https://HOST/_services/token).
func (s *Sim) IssuerURL() string { return s.base + s.oidcPrefix() }

func (s *Sim) oidcPrefix() string {
	if s.opts.EnterpriseVersion != "" {
		return "/_services/token"
	}
	return "/oidc"
}

// WebURL is the root of the simulator's "github.com" side (OAuth, HTML pages):
// http://127.0.0.1:PORT.
func (s *Sim) WebURL() string { return s.base }

// PagesURL is the root of the simulated GitHub's pages, ending in /sim
// (Options.PagesURL + "/sim"): the index of repositories is PagesURL()+"/".
func (s *Sim) PagesURL() string { return s.pagesBase + "/sim" }

// PagesHandler serves the pages under /sim/, for mounting on another
// listener (Options.PagesURL).
func (s *Sim) PagesHandler() http.Handler { return http.HandlerFunc(s.serveHTML) }

// Close stops the server and waits for asynchronous deliveries.
func (s *Sim) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.deliverWG.wait()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

func (s *Sim) now() time.Time { return s.opts.Now().UTC().Truncate(time.Second) }

func (s *Sim) id() int64 {
	s.nextID++
	return s.nextID
}

func (s *Sim) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// sharedKeys caches RSA keys: generating one costs ~50 ms on these cores and
// every sim needs a few.
var (
	keyMu   sync.Mutex
	keyPool = map[int]*rsa.PrivateKey{}
)

func sharedKey(i int) *rsa.PrivateKey {
	keyMu.Lock()
	defer keyMu.Unlock()
	if k, ok := keyPool[i]; ok {
		return k
	}
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	keyPool[i] = k
	return k
}

// route is one endpoint: method and a path template in OpenAPI form.
type route struct {
	method   string
	template string // e.g. /repos/{owner}/{repo}/pulls/{pull_number}
	segs     []string
	literal  int
	auth     authKind
	h        func(*reqCtx)
	api      bool // under APIPrefix and described by GitHub's OpenAPI document
}

type authKind int

const (
	authInstallation authKind = iota // installation or user token
	authApp                          // app JWT
	authNone
)

func (s *Sim) handle(method, template string, auth authKind, h func(*reqCtx)) {
	r := &route{method: method, template: template, auth: auth, h: h, api: true}
	r.segs = strings.Split(strings.Trim(template, "/"), "/")
	for _, sg := range r.segs {
		if !strings.HasPrefix(sg, "{") {
			r.literal++
		}
	}
	s.routes = append(s.routes, r)
}

// match finds the most specific route for a path below APIPrefix.
func (s *Sim) match(method, path string) (*route, map[string]string, bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var best *route
	var bestVars map[string]string
	methodMismatch := false
	for _, r := range s.routes {
		vars, ok := matchSegs(r.segs, segs)
		if !ok {
			continue
		}
		if r.method != method {
			methodMismatch = true
			continue
		}
		if best == nil || r.literal > best.literal {
			best, bestVars = r, vars
		}
	}
	return best, bestVars, methodMismatch
}

func matchSegs(tpl, segs []string) (map[string]string, bool) {
	vars := map[string]string{}
	for i, t := range tpl {
		if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "...}") {
			vars[strings.TrimSuffix(t[1:], "...}")] = strings.Join(segs[i:], "/")
			return vars, i < len(segs)
		}
		if i >= len(segs) {
			return nil, false
		}
		if strings.HasPrefix(t, "{") {
			if segs[i] == "" {
				return nil, false
			}
			vars[t[1:len(t)-1]] = segs[i]
			continue
		}
		if t != segs[i] {
			return nil, false
		}
	}
	return vars, len(tpl) == len(segs)
}

// Routes lists the REST operations the simulator serves, as "METHOD
// /template" in OpenAPI form. The spec generator extracts these from GitHub's
// description.
func Routes() []string {
	s := &Sim{}
	s.registerRoutes()
	var out []string
	for _, r := range s.routes {
		t := strings.ReplaceAll(r.template, "...}", "}")
		out = append(out, r.method+" "+t)
	}
	sort.Strings(out)
	return out
}

// reqCtx is one request being served.
type reqCtx struct {
	s     *Sim
	w     http.ResponseWriter
	r     *http.Request
	vars  map[string]string
	tok   *accessToken // installation or user token
	app   *app         // app JWT
	route *route
}

func (c *reqCtx) v(name string) string { return c.vars[name] }

// json writes v with status.
func (c *reqCtx) json(status int, v any) {
	c.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	c.w.WriteHeader(status)
	_ = json.NewEncoder(c.w).Encode(v)
}

// fail writes GitHub's error shape.
func (c *reqCtx) fail(status int, msg string, errs ...any) {
	body := map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest", "status": fmt.Sprint(status)}
	if len(errs) > 0 {
		body["errors"] = errs
	}
	c.json(status, body)
}

func (c *reqCtx) notFound() { c.fail(http.StatusNotFound, "Not Found") }

// decode reads a JSON body (at most 10 MB).
func (c *reqCtx) decode(v any) bool {
	data, err := io.ReadAll(io.LimitReader(c.r.Body, 10<<20))
	if err != nil {
		c.fail(http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return true
	}
	if err := json.Unmarshal(data, v); err != nil {
		c.fail(http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

// Calls returns how many requests each endpoint received, keyed "METHOD
// /template" (OpenAPI form, e.g. "GET /repos/{owner}/{repo}/pulls/{pull_number}"),
// plus "POST /graphql" and the non-API pages by their paths.
func (s *Sim) Calls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.calls))
	for k, v := range s.calls {
		out[k] = v
	}
	return out
}

// APICalls is Calls() of GitHub's API alone (REST and GraphQL, the calls
// its rate limits count): without the Actions token service, OIDC
// discovery, OAuth and the HTML pages.
func (s *Sim) APICalls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.calls {
		if s.apiKeys[k] {
			out[k] = v
		}
	}
	return out
}

// CreatesContent says a call, keyed as Calls keys it, is one GitHub counts
// as content-generating: a REST POST that makes something (createsContent).
func CreatesContent(key string) bool {
	method, path, _ := strings.Cut(key, " ")
	return path != strings.TrimPrefix(graphQLKey, "POST ") && createsContent(method, key)
}

// CallCount is Calls()[key].
func (s *Sim) CallCount(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[key]
}

// TotalCalls sums the calls whose key starts with prefix ("" for all,
// "GET " for every GET).
func (s *Sim) TotalCalls(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, v := range s.calls {
		if strings.HasPrefix(k, prefix) {
			n += v
		}
	}
	return n
}

// GraphQLCalls counts GraphQL top-level fields by operation, e.g.
// "query repository", "mutation resolveReviewThread" (one per field per
// request; Calls()["POST /graphql"] counts requests).
func (s *Sim) GraphQLCalls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.gqlCalls))
	for k, v := range s.gqlCalls {
		out[k] = v
	}
	return out
}

// ResetCalls zeroes the counters (REST and GraphQL).
func (s *Sim) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = map[string]int{}
	s.gqlCalls = map[string]int{}
}

// ValidationErrors returns every validation failure recorded so far.
func (s *Sim) ValidationErrors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.valErrs...)
}

func (s *Sim) validationError(err error) {
	s.mu.Lock()
	s.valErrs = append(s.valErrs, err.Error())
	s.mu.Unlock()
	s.logf("ghsim: validation: %v", err)
	if s.opts.OnValidationError != nil {
		s.opts.OnValidationError(err)
	}
}
