// Package runnerapi is Chakshu's runner REST API under /api/runner/v1/
// (DESIGN §2.5, §2.7, §2.8, §7): the OIDC-verified job fetch that hands a
// dispatched run to its Actions runner with a run token (internal/job builds
// the job), result intake, connector tools and the model gateway. openapi.yaml beside this file
// describes it; internal/runnerproto holds the wire types.
package runnerapi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/connectors"
	"github.com/chakshu-dev/chakshu/internal/gateway"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/job"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/runnerbin"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/version"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/server"
)

// GitHub hands out installation clients; *gh.Apps satisfies it.
type GitHub interface {
	// InstallationFor is a token narrowed to scope (read-only here).
	InstallationFor(id int64, scope gh.Scope) (*gh.Installation, error)
}

var _ GitHub = (*gh.Apps)(nil)

// GitHubActionsIssuer is the issuer of GitHub.com's Actions OIDC tokens.
const GitHubActionsIssuer = "https://token.actions.githubusercontent.com"

// Config builds the API.
type Config struct {
	DB  *store.DB
	Log *slog.Logger
	// Bus wakes the publisher once a result is in.
	Bus wakeup.Bus
	// GitHub reads pull requests; the web process never writes to GitHub
	// (the worker's finisher completes the check of a run cancelled here).
	GitHub GitHub
	// Issuer is the Actions OIDC issuer (CHAKSHU_OIDC_ISSUER); empty means GitHub's.
	Issuer string
	// Audience is the audience tokens must carry (CHAKSHU_OIDC_AUDIENCE; default the public URL).
	Audience string
	// PublicURL is where runners reach Chakshu; the job's URLs are built on it.
	PublicURL string
	// AppSlug is the App's slug, for "@<slug> review" in texts.
	AppSlug string
	// SecretKey (32 bytes, CHAKSHU_SECRET_KEY) decrypts connector credentials.
	SecretKey []byte
	// SecretKeyPrevious (CHAKSHU_SECRET_KEY_PREVIOUS) still open what they sealed.
	SecretKeyPrevious [][]byte
	// ModelURL and ModelAPIKey are the gateway's upstream (CHAKSHU_MODEL_URL, CHAKSHU_MODEL_API_KEY).
	ModelURL, ModelAPIKey string
	// Models is the model catalogue (CHAKSHU_MODEL_CATALOG); nil means the built-in one.
	Models *models.Source
	// ModelBetas are the anthropic-beta values runners may send (CHAKSHU_MODEL_BETAS).
	ModelBetas []string
	// ModelInferenceGeo is the Anthropic workspace's default inference geo (gateway.Config.InferenceGeo).
	ModelInferenceGeo string
	// ModelUpstreams are the model providers besides Anthropic's API and
	// ModelPlatform the one Anthropic's models go through (gateway.Config).
	ModelUpstreams map[string]gateway.Upstream
	ModelPlatform  string
	// HTTPClient fetches the OIDC discovery document and keys; nil means a
	// client with a 10 s timeout. Answers are capped at 1 MiB either way.
	HTTPClient *http.Client
	// ModelHTTPClient calls the model upstream; nil means the gateway's default.
	ModelHTTPClient *http.Client
	// ConnectorTransport carries http connector calls; nil means http.DefaultTransport.
	ConnectorTransport http.RoundTripper
	// AllowPlainHTTPConnectors lets http connector endpoints use http:// (sandbox, tests).
	AllowPlainHTTPConnectors bool
	// RatePerSecond and Burst shape the token bucket of each run token; 0 means 10/s, burst 60.
	RatePerSecond float64
	Burst         int
	// ReplyMaxCostUSD and ReplyMaxTurns cap reply runs; 0 means $0.50 and 12 turns.
	ReplyMaxCostUSD float64
	ReplyMaxTurns   int
	// DispatchWait is how long a job fetch waits for the dispatcher to record
	// the Actions run it started (a runner can be faster); 0 means 15 s.
	DispatchWait time.Duration
	// ReviewWallSeconds and ReplyWallSeconds bound the agent's wall time; 0 means 25 and 8 minutes.
	ReviewWallSeconds, ReplyWallSeconds int
	// ModelRetryHorizon goes in every job as its retry_seconds
	// (CHAKSHU_MODEL_RETRY_HORIZON); 0 leaves the runner's default.
	ModelRetryHorizon time.Duration
	// Version is this server's version (empty means version.Version): jobs go
	// only to runners of it.
	Version string
	// Runners serves chakshu-action of Version (PathRunner); nil means the
	// binaries in runnerbin.DefaultDir.
	Runners *runnerbin.Store
}

// API serves the runner API.
type API struct {
	cfg     Config
	log     *slog.Logger
	gateway *gateway.Gateway
	tools   *connectors.Registry
	jobs    *job.Builder
	limits  *limiter
	public  string

	oidcMu   sync.Mutex
	verifier tokenVerifier
}

// New validates cfg and builds the API.
func New(cfg Config) (*API, error) {
	if cfg.DB == nil || cfg.GitHub == nil {
		return nil, errors.New("runnerapi: DB and GitHub are required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Issuer == "" {
		cfg.Issuer = GitHubActionsIssuer
	}
	pub, err := url.Parse(cfg.PublicURL)
	if err != nil || (pub.Scheme != "http" && pub.Scheme != "https") || pub.Host == "" {
		return nil, fmt.Errorf("runnerapi: CHAKSHU_PUBLIC_URL %q is not an http(s) URL", cfg.PublicURL)
	}
	if cfg.Audience == "" {
		cfg.Audience = cfg.PublicURL
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.RatePerSecond <= 0 {
		cfg.RatePerSecond = 10
	}
	if cfg.Burst <= 0 {
		cfg.Burst = 60
	}
	if cfg.DispatchWait <= 0 {
		cfg.DispatchWait = 15 * time.Second
	}
	if cfg.AppSlug == "" {
		cfg.AppSlug = "chakshu"
	}
	if cfg.Version == "" {
		cfg.Version = version.Version
	}
	if cfg.Runners == nil {
		cfg.Runners = runnerbin.New("", cfg.Version)
	}
	a := &API{cfg: cfg, log: cfg.Log, limits: newLimiter(cfg.RatePerSecond, cfg.Burst),
		public: strings.TrimRight(cfg.PublicURL, "/")}
	a.gateway, err = gateway.New(gateway.Config{DB: cfg.DB, Log: cfg.Log, UpstreamURL: cfg.ModelURL,
		APIKey: cfg.ModelAPIKey, Models: cfg.Models, Betas: cfg.ModelBetas, InferenceGeo: cfg.ModelInferenceGeo, HTTPClient: cfg.ModelHTTPClient,
		Upstreams: cfg.ModelUpstreams, Platform: cfg.ModelPlatform})
	if err != nil {
		return nil, err
	}
	var creds *connectors.Credentials
	if len(cfg.SecretKey) > 0 {
		s, err := connectors.NewSealer(cfg.SecretKey, cfg.SecretKeyPrevious...)
		if err != nil {
			return nil, err
		}
		creds = &connectors.Credentials{DB: cfg.DB.Client, Sealer: s}
	}
	a.tools, err = connectors.New(connectors.Config{DB: cfg.DB.Client, Log: cfg.Log, Credentials: creds, GitHub: cfg.GitHub,
		HTTPTransport: cfg.ConnectorTransport, AllowPlainHTTP: cfg.AllowPlainHTTPConnectors})
	if err != nil {
		return nil, err
	}
	a.jobs = job.New(job.Config{DB: cfg.DB.Client, GitHub: cfg.GitHub, Tools: a.tools, Models: cfg.Models, Bus: cfg.Bus,
		AppSlug: cfg.AppSlug, Limits: job.Limits{ReplyMaxCostUSD: cfg.ReplyMaxCostUSD, ReplyMaxTurns: cfg.ReplyMaxTurns,
			ReviewWallSeconds: cfg.ReviewWallSeconds, ReplyWallSeconds: cfg.ReplyWallSeconds, ModelRetryHorizon: cfg.ModelRetryHorizon}})
	return a, nil
}

// Routes are the API's handlers, for server.Config.Routes.
func (a *API) Routes() []server.Route {
	return []server.Route{
		{Pattern: "POST " + runnerproto.PathJob, Handler: http.HandlerFunc(a.handleJob)},
		{Pattern: "POST " + runnerproto.PathResult, Handler: http.HandlerFunc(a.handleResult)},
		{Pattern: "POST " + runnerproto.PathTool, Handler: http.HandlerFunc(a.handleTool)},
		{Pattern: "POST " + runnerproto.PathModel + "/v1/messages", Handler: http.HandlerFunc(a.handleModel)},
		{Pattern: "GET " + runnerproto.PathRunner, Handler: http.HandlerFunc(a.handleRunner)},
		{Pattern: "GET " + runnerproto.PathRunnerSHA256, Handler: http.HandlerFunc(a.handleRunnerSHA256)},
	}
}

// Error codes of the API (runnerproto.Error shape).
const (
	codeBadRequest   = "bad_request"
	codeUnauthorized = "unauthorized"
	codeForbidden    = "forbidden"
	codeNotFound     = "not_found"
	codeConflict     = "conflict"
	codePRMoved      = job.CodePRMoved
	codeInvalid      = "invalid_result"
	codeNotDeclared  = "tool_not_declared"
	codeRateLimited  = "rate_limited"
	codeTooLarge     = "request_too_large"
	codeUnavailable  = "github_unavailable"
	codeInternal     = "internal"
)

// Run tokens.
const tokenPrefix = "chkr_"

func newRunToken() (token, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("run token: %w", err)
	}
	token = tokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return token, hashToken(token), nil
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// receipt binds an accepted report to the token that sent it.
func receipt(tokenHash string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(tokenHash))
	h.Write([]byte{0})
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

func equalHex(a, b string) bool {
	return a != "" && b != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// presentedToken is the run token of a request: x-api-key (the Anthropic SDK)
// or Authorization: Bearer.
func presentedToken(r *http.Request) string {
	if k := strings.TrimSpace(r.Header.Get("x-api-key")); k != "" {
		return k
	}
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// authRun checks the request's run token against run {id}. It answers the
// caller itself and returns nil when the token is not this run's current one.
// allowStopped is for the result endpoint, which checks the receipt of a
// stopped run itself.
func (a *API) authRun(w http.ResponseWriter, r *http.Request, allowStopped bool) (*ent.Run, string) {
	id, err := strconv.Atoi(r.PathValue("id"))
	tok := presentedToken(r)
	if err != nil || id <= 0 || !strings.HasPrefix(tok, tokenPrefix) {
		server.WriteError(w, http.StatusUnauthorized, codeUnauthorized, "a valid run token is required")
		return nil, ""
	}
	// The token is checked before it is given a bucket (issue 43 item 3):
	// made-up tokens must not grow the limiter.
	rn, err := a.cfg.DB.Run.Query().Where(run.ID(id)).WithReviewer().WithRepository(func(q *ent.RepositoryQuery) { q.WithInstallation() }).Only(r.Context())
	if ent.IsNotFound(err) {
		server.WriteError(w, http.StatusUnauthorized, codeUnauthorized, "a valid run token is required")
		return nil, ""
	}
	if err != nil {
		a.log.Error("load run", "run_id", id, "err", err)
		server.WriteError(w, http.StatusInternalServerError, codeInternal, "internal error")
		return nil, ""
	}
	th := hashToken(tok)
	key := ""
	switch {
	case rn.Status == run.StatusRunning && equalHex(th, rn.RunTokenHash):
		key = th
	case allowStopped && rn.Status != run.StatusRunning && rn.ResultHash != "":
		key = "stopped:" + strconv.Itoa(rn.ID) // the result handler compares the receipt
	}
	if key != "" {
		if !a.limits.allow(key) {
			server.WriteError(w, http.StatusTooManyRequests, codeRateLimited, "too many requests for this run; slow down")
			return nil, ""
		}
		return rn, tok
	}
	a.log.Warn("run token refused", "run_id", id, "status", rn.Status)
	server.WriteError(w, http.StatusUnauthorized, codeUnauthorized, "the run token is not valid for this run")
	return nil, ""
}

// limiter is a token bucket per verified run token. Buckets idle for
// bucketIdle are dropped, at most once a minute; past maxBuckets a new key
// is refused rather than the map grown.
type limiter struct {
	mu      sync.Mutex
	rate    float64
	burst   float64
	buckets map[string]*bucket
	pruned  time.Time
}

const (
	maxBuckets = 10_000
	bucketIdle = 10 * time.Minute
)

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(rate float64, burst int) *limiter {
	return &limiter{rate: rate, burst: float64(burst), buckets: map[string]*bucket{}}
}

func (l *limiter) allow(key string) bool {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.pruned) > time.Minute {
		l.pruned = now
		for k, b := range l.buckets {
			if now.Sub(b.last) > bucketIdle {
				delete(l.buckets, k)
			}
		}
	}
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= maxBuckets {
			return false
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

func (a *API) notify(ctx context.Context, topics ...string) {
	if a.cfg.Bus == nil {
		return
	}
	for _, t := range topics {
		if err := a.cfg.Bus.Notify(ctx, t); err != nil {
			a.log.Warn("notify", "topic", t, "err", err)
		}
	}
}
