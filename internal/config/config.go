// Package config reads Chakshu's settings (DESIGN §12) from the environment or
// a config file, validates them, and says which one is wrong in one line.
package config

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Config holds every setting of every process. Each field names its variable.
type Config struct {
	// Addr is the listen address of web and all (CHAKSHU_ADDR).
	Addr string
	// PublicURL is where GitHub and runners reach Chakshu (CHAKSHU_PUBLIC_URL).
	PublicURL string
	// DataDir holds the SQLite file and local state (CHAKSHU_DATA_DIR).
	DataDir string
	// DatabaseMaxConns caps each process's PostgreSQL pool
	// (CHAKSHU_DATABASE_MAX_CONNS, default 20); the process holds one more
	// connection for LISTEN. Unused on SQLite.
	DatabaseMaxConns int
	// DatabaseURL selects PostgreSQL when set (CHAKSHU_DATABASE_URL).
	DatabaseURL string
	// RunnerDir holds the chakshu-action binaries the runner API serves
	// (CHAKSHU_RUNNER_DIR); "" means runner/ beside the chakshu executable.
	RunnerDir string

	// AppID and AppSlug identify the GitHub App (CHAKSHU_APP_ID, CHAKSHU_APP_SLUG).
	AppID   int64
	AppSlug string
	// PrivateKey is the App's PEM key (CHAKSHU_PRIVATE_KEY or CHAKSHU_PRIVATE_KEY_FILE).
	PrivateKey []byte
	// WebhookSecrets are accepted webhook secrets, newest first (CHAKSHU_WEBHOOK_SECRET, comma-separated).
	WebhookSecrets []string
	// GitHubURL and GitHubGraphQLURL are the API base URLs (CHAKSHU_GITHUB_URL, CHAKSHU_GITHUB_GRAPHQL_URL).
	GitHubURL        string
	GitHubGraphQLURL string
	// OAuthClientID and OAuthClientSecret are the portal login (CHAKSHU_OAUTH_CLIENT_ID, CHAKSHU_OAUTH_CLIENT_SECRET).
	OAuthClientID     string
	OAuthClientSecret string
	// OIDCIssuer and OIDCAudience verify Actions tokens (CHAKSHU_OIDC_ISSUER, CHAKSHU_OIDC_AUDIENCE).
	OIDCIssuer   string
	OIDCAudience string
	// SecretKey is 32 bytes for sessions and stored credentials (CHAKSHU_SECRET_KEY, base64).
	SecretKey []byte
	// SecretKeyPrevious are keys CHAKSHU_SECRET_KEY replaced, still accepted
	// for opening during a rotation (CHAKSHU_SECRET_KEY_PREVIOUS; retention.go).
	SecretKeyPrevious [][]byte
	// ModelURL and ModelAPIKey are the model gateway's upstream (CHAKSHU_MODEL_URL, CHAKSHU_MODEL_API_KEY).
	ModelURL    string
	ModelAPIKey string
	// ModelCatalog is an operator's model catalogue file merged over the
	// built-in one and re-read when it changes (CHAKSHU_MODEL_CATALOG).
	ModelCatalog string
	// ModelBetas are the anthropic-beta values runners may send through the
	// gateway (CHAKSHU_MODEL_BETAS, comma-separated; default none).
	ModelBetas []string
	// ModelInferenceGeo is the Anthropic workspace's default inference geo
	// (CHAKSHU_MODEL_INFERENCE_GEO: global or us; default global): state
	// "us" when the workspace's default_inference_geo is US-only, so the
	// gateway meters the 1.1x price of requests that do not name a geo and
	// whose answers do not report one.
	ModelInferenceGeo string
	// ModelRetryHorizon is how long a runner keeps asking the model again
	// after 429, 529 and 5xx answers before the run fails
	// (CHAKSHU_MODEL_RETRY_HORIZON; default 2m, from 1s to 20m). It travels
	// in each job, so runners need no setting of their own.
	ModelRetryHorizon time.Duration
	// Providers are the model providers besides Anthropic's API (providers.go).
	Providers Providers
	// Admins are GitHub logins with admin rights (CHAKSHU_ADMINS, comma-separated).
	Admins []string
	// ReviewAllowList are GitHub logins who may ask for reviews without write
	// access to the repository (CHAKSHU_REVIEW_ALLOWLIST, comma-separated).
	ReviewAllowList []string
	// ReplyLimitPerPR and ReplyLimitPerUser cap the reply runs queued in any
	// hour per pull request and per person (CHAKSHU_REPLY_LIMIT_PER_PR,
	// CHAKSHU_REPLY_LIMIT_PER_USER; replylimits.go).
	ReplyLimitPerPR, ReplyLimitPerUser int
	// MaxConcurrentRuns caps the runs of one installation dispatched and not
	// yet finished (CHAKSHU_MAX_CONCURRENT_RUNS; 0: no cap). Runs over the cap
	// stay queued (blast.go).
	MaxConcurrentRuns int
	// InfraFailureConclusion is the check conclusion of a run that failed in
	// Chakshu itself rather than on a finding: failure (the default) or
	// neutral (CHAKSHU_INFRA_FAILURE_CONCLUSION; blast.go).
	InfraFailureConclusion string
	// LogLevel and LogFormat shape the logs (CHAKSHU_LOG_LEVEL, CHAKSHU_LOG_FORMAT).
	LogLevel  string
	LogFormat string

	// PublicURLDefaulted is true when CHAKSHU_PUBLIC_URL was not set, so the
	// public URL follows the address actually listened on.
	PublicURLDefaulted bool
	// AudienceDefaulted is true when CHAKSHU_OIDC_AUDIENCE was not set.
	AudienceDefaulted bool

	// Sandbox is true when no GitHub App is configured: the simulator and the
	// scripted model stand in for GitHub and Anthropic.
	Sandbox bool
	// SandboxExplicit is CHAKSHU_SANDBOX=1: sandbox mode was asked for, so
	// it may run on a non-loopback address or a CHAKSHU_DATABASE_URL
	// (SandboxAllowed).
	SandboxExplicit bool

	// Worker timings (CHAKSHU_HEARTBEAT_INTERVAL, CHAKSHU_DEAD_WORKER_AFTER,
	// CHAKSHU_RUN_REPORT_TIMEOUT, CHAKSHU_POLL_INTERVAL). Tests shorten them.
	HeartbeatInterval time.Duration
	DeadWorkerAfter   time.Duration
	RunReportTimeout  time.Duration
	PollInterval      time.Duration

	// APITokenRate is how many requests per minute one API token may make
	// (CHAKSHU_API_TOKEN_RATE; 0: unlimited); APITokenBurst how many at once
	// (CHAKSHU_API_TOKEN_BURST). Sessions are not limited.
	APITokenRate  int
	APITokenBurst int
	// GitHubWritesPerMinute and GitHubWritesPerHour pace the
	// content-creating writes to GitHub per installation, shared by every
	// worker process (CHAKSHU_GITHUB_WRITES_PER_MINUTE, default 80, and
	// CHAKSHU_GITHUB_WRITES_PER_HOUR, default 500: GitHub's secondary limits;
	// set them to an Enterprise Server's own; 0 turns that window off).
	GitHubWritesPerMinute int
	GitHubWritesPerHour   int
	// InternalAddr is the internal listener every process serves /metrics,
	// /healthz and /readyz on (CHAKSHU_INTERNAL_ADDR), apart from the public
	// listener so scrapes and probes need not be routed publicly.
	InternalAddr string
	// DrainTimeout bounds the drain after SIGTERM (CHAKSHU_DRAIN_TIMEOUT):
	// readiness turns 503 at once, in-flight requests and relayed model
	// streams get this long to finish, then the process stops.
	DrainTimeout time.Duration
	// SandboxModelLatency delays each answer of the sandbox's scripted model
	// (CHAKSHU_SANDBOX_MODEL_LATENCY), so a run lasts long enough to watch its
	// Actions log live (browser tests, demos). 0 answers at once.
	SandboxModelLatency time.Duration
	// Retention bounds what the database keeps (CHAKSHU_RETAIN_*,
	// CHAKSHU_PRUNE_*; retention.go).
	Retention Retention
}

// DefaultModelRetryHorizon and MaxModelRetryHorizon bound
// CHAKSHU_MODEL_RETRY_HORIZON: retries stop well inside a review's wall time
// (25 minutes).
const (
	DefaultModelRetryHorizon = 2 * time.Minute
	MaxModelRetryHorizon     = 20 * time.Minute
)

// Settings lists every variable Load reads, for --help.
var Settings = []struct{ Name, Meaning, Default string }{
	{"CHAKSHU_ADDR", "listen address of web / all", "127.0.0.1:8080"},
	{"CHAKSHU_PUBLIC_URL", "URL GitHub and runners reach Chakshu at", "http://<CHAKSHU_ADDR>"},
	{"CHAKSHU_DATA_DIR", "where the SQLite file and local state live", "./data"},
	{"CHAKSHU_DATABASE_URL", "postgres://… for PostgreSQL; unset → SQLite in the data dir", "unset"},
	{"CHAKSHU_DATABASE_MAX_CONNS", "PostgreSQL connections each process pools (it opens one more for LISTEN); size max_connections for all processes", "20"},
	{"CHAKSHU_RUNNER_DIR", "folder of the chakshu-action binaries served to workflows (scripts/runners.sh builds them)", "runner/ beside the chakshu executable"},
	{"CHAKSHU_APP_ID, CHAKSHU_APP_SLUG", "the GitHub App", "unset → sandbox"},
	{"CHAKSHU_PRIVATE_KEY / CHAKSHU_PRIVATE_KEY_FILE", "the App's PEM key", "unset → sandbox"},
	{"CHAKSHU_WEBHOOK_SECRET", "comma-separated webhook secrets (rotation)", "sandbox: sandbox-secret"},
	{"CHAKSHU_GITHUB_URL, CHAKSHU_GITHUB_GRAPHQL_URL", "API base URLs (GitHub Enterprise Server)", "GitHub.com"},
	{"CHAKSHU_OAUTH_CLIENT_ID, CHAKSHU_OAUTH_CLIENT_SECRET", "portal login", "unset → sandbox login"},
	{"CHAKSHU_OIDC_ISSUER, CHAKSHU_OIDC_AUDIENCE", "Actions token issuer and audience", "GitHub's issuer; the public URL"},
	{"CHAKSHU_SECRET_KEY", "32-byte key (base64) for sessions and credentials", "sandbox: generated into the data dir"},
	{"CHAKSHU_SECRET_KEY_PREVIOUS", "comma-separated keys CHAKSHU_SECRET_KEY replaced, still accepted while rotating (chakshu secrets rotate)", "unset"},
	{"CHAKSHU_MODEL_URL, CHAKSHU_MODEL_API_KEY", "upstream of the model gateway", "Anthropic; sandbox: the scripted model"},
	{"CHAKSHU_MODEL_CATALOG", "a JSON model catalogue merged over the built-in one (re-read on change)", "the built-in catalogue"},
	{"CHAKSHU_MODEL_BETAS", "comma-separated anthropic-beta values runners may send", "none"},
	{"CHAKSHU_MODEL_INFERENCE_GEO", "the Anthropic workspace's default inference geo, global or us (US-only inference is metered at 1.1x on Opus 4.6 and later)", "global"},
	{"CHAKSHU_MODEL_RETRY_HORIZON", "how long a runner retries the model after overload, rate limit and 5xx answers (1s to 20m)", "2m"},
	{"CHAKSHU_ADMINS", "comma-separated GitHub logins with admin rights", "sandbox: the sandbox user"},
	{"CHAKSHU_REVIEW_ALLOWLIST", "comma-separated GitHub logins who may ask for reviews without write access", "unset"},
	{"CHAKSHU_REPLY_LIMIT_PER_PR, CHAKSHU_REPLY_LIMIT_PER_USER", "reply runs (answers in Chakshu's review threads) per pull request, and per person, in any hour", "20; 10"},
	{"CHAKSHU_MAX_CONCURRENT_RUNS", "runs per installation dispatched at once; more stay queued (0: no cap)", "0"},
	{"CHAKSHU_INFRA_FAILURE_CONCLUSION", "check conclusion when Chakshu itself fails (not a finding): failure or neutral", "failure"},
	{"CHAKSHU_SANDBOX", "1: run sandbox mode on purpose, even on a non-loopback address or with CHAKSHU_DATABASE_URL", "unset: sandbox on loopback and SQLite only"},
	{"CHAKSHU_LOG_LEVEL, CHAKSHU_LOG_FORMAT", "debug…error; json or text", "info; json off a terminal"},
	{"CHAKSHU_API_TOKEN_RATE, CHAKSHU_API_TOKEN_BURST", "requests per minute per API token (0: unlimited); how many at once", "600; 60"},
	{"CHAKSHU_GITHUB_WRITES_PER_MINUTE, CHAKSHU_GITHUB_WRITES_PER_HOUR", "content-creating writes to GitHub per installation, shared by every worker process (0: that window off; set an Enterprise Server's own limits)", "80; 500"},
	{"CHAKSHU_INTERNAL_ADDR", "internal listener of every process (web, worker, all): /metrics, /healthz, /readyz", "127.0.0.1:9090"},
	{"CHAKSHU_DRAIN_TIMEOUT", "after SIGTERM: readiness answers 503 at once, in-flight requests and model streams get this long to finish", "60s"},
	{"CHAKSHU_HEARTBEAT_INTERVAL", "how often a worker refreshes its row and the leases it holds", "20s"},
	{"CHAKSHU_DEAD_WORKER_AFTER", "a worker silent this long is dead: its runs and webhook events go back to the queue", "90s"},
	{"CHAKSHU_RUN_REPORT_TIMEOUT", "a dispatched run that has not reported back this long fails", "45m"},
	{"CHAKSHU_POLL_INTERVAL", "the slowest a worker loop looks for work when no wake-up came", "1s"},
	{"CHAKSHU_SANDBOX_MODEL_LATENCY", "sandbox: delay of each scripted model answer, to watch a run's log live", "0"},
	{"CHAKSHU_RETAIN_WEBHOOK_PAYLOADS", "a handled webhook's payload is emptied after this (the row stays for deduplication); 0 keeps it", "24h"},
	{"CHAKSHU_RETAIN_WEBHOOK_EVENTS", "a handled webhook's row is deleted after this; at least GitHub's redelivery window (3d github.com, 7d Enterprise Server)", "8d"},
	{"CHAKSHU_RETAIN_FAILED_EVENTS", "a failed webhook is deleted after this", "30d"},
	{"CHAKSHU_RETAIN_RUN_EVENTS", "finished runs' timeline entries are deleted after this", "90d"},
	{"CHAKSHU_RETAIN_RUNS", "finished runs (with findings and timeline) are deleted after this; cost figures stay exact", "365d"},
	{"CHAKSHU_RETAIN_WORKERS", "rows of workers silent this long are deleted", "7d"},
	{"CHAKSHU_PRUNE_INTERVAL, CHAKSHU_PRUNE_BATCH", "how often a worker prunes; the most rows per pruning transaction", "1m; 500"},
	{"CHAKSHU_PRUNE_WRITE_TARGET", "how long one pruning transaction may hold the write lock: batches shrink while theirs take longer, grow while they take under half", "1ms"},
	{"CHAKSHU_CONFIG_FILE", "a file of NAME=value lines setting the same names (the environment wins)", "unset"},
}

// Defaults.
const (
	DefaultAddr = "127.0.0.1:8080"
	// DefaultInternalAddr is where /metrics, /healthz and /readyz are served
	// apart from the public listener.
	DefaultInternalAddr = "127.0.0.1:9090"
	// DefaultDrainTimeout is how long in-flight requests (a relayed model
	// stream may last minutes) get after SIGTERM.
	DefaultDrainTimeout = 60 * time.Second
	DefaultGitHubURL    = "https://api.github.com/"
	DefaultGraphQLURL   = "https://api.github.com/graphql"
	DefaultOIDCIssuer   = "https://token.actions.githubusercontent.com"
	DefaultModelURL     = "https://api.anthropic.com"
	SandboxSecret       = "sandbox-secret"
	SandboxUser         = "sandbox-admin"
)

// DefaultDeadWorkerAfter is how long a worker (and a lease it holds) may go
// without a heartbeat before it counts as dead and its work is taken over
// (DESIGN §3; CHAKSHU_DEAD_WORKER_AFTER).
const DefaultDeadWorkerAfter = 90 * time.Second

// Lookup finds a setting by name, like os.LookupEnv.
type Lookup func(name string) (string, bool)

// FromEnv reads the process environment, and CHAKSHU_CONFIG_FILE when set
// (the environment wins over the file).
func FromEnv() (Lookup, error) {
	file := map[string]string{}
	if p := os.Getenv("CHAKSHU_CONFIG_FILE"); p != "" {
		var err error
		if file, err = readFile(p); err != nil {
			return nil, err
		}
	}
	return func(n string) (string, bool) {
		if v, ok := os.LookupEnv(n); ok {
			return v, true
		}
		v, ok := file[n]
		return v, ok
	}, nil
}

func readFile(p string) (map[string]string, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("CHAKSHU_CONFIG_FILE: %w", err)
	}
	defer f.Close()
	m := map[string]string{}
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !strings.HasPrefix(strings.TrimSpace(k), "CHAKSHU_") {
			return nil, fmt.Errorf("CHAKSHU_CONFIG_FILE: line %d: want CHAKSHU_NAME=value", n)
		}
		m[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
	}
	return m, s.Err()
}

// Load reads and validates the settings. The error names the bad setting.
func Load(look Lookup) (*Config, error) {
	get := func(n, def string) string {
		if v, ok := look(n); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
		return def
	}
	c := &Config{
		Addr:              get("CHAKSHU_ADDR", DefaultAddr),
		InternalAddr:      get("CHAKSHU_INTERNAL_ADDR", DefaultInternalAddr),
		DataDir:           get("CHAKSHU_DATA_DIR", "./data"),
		DatabaseURL:       get("CHAKSHU_DATABASE_URL", ""),
		RunnerDir:         get("CHAKSHU_RUNNER_DIR", ""),
		AppSlug:           get("CHAKSHU_APP_SLUG", ""),
		GitHubURL:         get("CHAKSHU_GITHUB_URL", DefaultGitHubURL),
		GitHubGraphQLURL:  get("CHAKSHU_GITHUB_GRAPHQL_URL", ""),
		OAuthClientID:     get("CHAKSHU_OAUTH_CLIENT_ID", ""),
		OAuthClientSecret: get("CHAKSHU_OAUTH_CLIENT_SECRET", ""),
		OIDCIssuer:        get("CHAKSHU_OIDC_ISSUER", ""),
		ModelURL:          get("CHAKSHU_MODEL_URL", DefaultModelURL),
		ModelAPIKey:       get("CHAKSHU_MODEL_API_KEY", ""),
		ModelCatalog:      get("CHAKSHU_MODEL_CATALOG", ""),
		LogLevel:          strings.ToLower(get("CHAKSHU_LOG_LEVEL", "info")),
		LogFormat:         strings.ToLower(get("CHAKSHU_LOG_FORMAT", "")),
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return nil, fmt.Errorf("CHAKSHU_ADDR: want host:port, got %q", c.Addr)
	}
	if _, _, err := net.SplitHostPort(c.InternalAddr); err != nil {
		return nil, fmt.Errorf("CHAKSHU_INTERNAL_ADDR: want host:port, got %q", c.InternalAddr)
	}
	c.PublicURL = strings.TrimRight(get("CHAKSHU_PUBLIC_URL", "http://"+c.Addr), "/")
	c.PublicURLDefaulted = get("CHAKSHU_PUBLIC_URL", "") == ""
	c.AudienceDefaulted = get("CHAKSHU_OIDC_AUDIENCE", "") == ""
	if err := checkURL("CHAKSHU_PUBLIC_URL", c.PublicURL); err != nil {
		return nil, err
	}
	c.OIDCAudience = get("CHAKSHU_OIDC_AUDIENCE", c.PublicURL)
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		return nil, errors.New("CHAKSHU_DATABASE_URL: want a postgres:// URL")
	}
	if v := get("CHAKSHU_APP_ID", ""); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("CHAKSHU_APP_ID: want a positive number, got %q", v)
		}
		c.AppID = id
	}
	key := get("CHAKSHU_PRIVATE_KEY", "")
	if f := get("CHAKSHU_PRIVATE_KEY_FILE", ""); f != "" {
		if key != "" {
			return nil, errors.New("CHAKSHU_PRIVATE_KEY_FILE: set it or CHAKSHU_PRIVATE_KEY, not both")
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("CHAKSHU_PRIVATE_KEY_FILE: %w", err)
		}
		key = string(b)
	}
	if key != "" {
		key = strings.ReplaceAll(key, `\n`, "\n")
		if !strings.Contains(key, "PRIVATE KEY-----") {
			return nil, errors.New("CHAKSHU_PRIVATE_KEY: not a PEM private key")
		}
		c.PrivateKey = []byte(key)
	}
	switch {
	case c.AppID == 0 && len(c.PrivateKey) == 0:
		c.Sandbox = true
	case c.AppID == 0:
		return nil, errors.New("CHAKSHU_APP_ID: required when a private key is set")
	case len(c.PrivateKey) == 0:
		return nil, errors.New("CHAKSHU_PRIVATE_KEY: required when CHAKSHU_APP_ID is set")
	case c.AppSlug == "":
		return nil, errors.New("CHAKSHU_APP_SLUG: required when CHAKSHU_APP_ID is set")
	}
	switch v := strings.ToLower(get("CHAKSHU_SANDBOX", "")); v {
	case "", "0", "false":
	case "1", "true":
		if !c.Sandbox {
			return nil, errors.New("CHAKSHU_SANDBOX: sandbox mode is for running without a GitHub App; unset it, or unset CHAKSHU_APP_ID and the private key")
		}
		c.SandboxExplicit = true
	default:
		return nil, fmt.Errorf("CHAKSHU_SANDBOX: want 1 or 0, got %q", v)
	}
	if c.Sandbox && c.AppSlug == "" {
		c.AppSlug = "chakshu"
	}
	c.WebhookSecrets = splitList(get("CHAKSHU_WEBHOOK_SECRET", ""))
	if len(c.WebhookSecrets) == 0 {
		if !c.Sandbox {
			return nil, errors.New("CHAKSHU_WEBHOOK_SECRET: required when a GitHub App is configured")
		}
		c.WebhookSecrets = []string{SandboxSecret}
	}
	if !strings.HasSuffix(c.GitHubURL, "/") {
		c.GitHubURL += "/"
	}
	if err := checkURL("CHAKSHU_GITHUB_URL", c.GitHubURL); err != nil {
		return nil, err
	}
	if c.GitHubGraphQLURL == "" {
		if c.GitHubURL == DefaultGitHubURL {
			c.GitHubGraphQLURL = DefaultGraphQLURL
		} else { // GitHub Enterprise Server: https://host/api/v3/ → https://host/api/graphql
			c.GitHubGraphQLURL = strings.TrimSuffix(strings.TrimSuffix(c.GitHubURL, "/"), "/v3") + "/graphql"
		}
	}
	if c.OIDCIssuer == "" {
		c.OIDCIssuer = DefaultOIDCIssuerFor(c.GitHubURL)
	}
	if (c.OAuthClientID == "") != (c.OAuthClientSecret == "") {
		return nil, errors.New("CHAKSHU_OAUTH_CLIENT_SECRET: set both CHAKSHU_OAUTH_CLIENT_ID and CHAKSHU_OAUTH_CLIENT_SECRET, or neither")
	}
	if err := checkURL("CHAKSHU_MODEL_URL", c.ModelURL); err != nil {
		return nil, err
	}
	if err := c.loadProviders(get); err != nil {
		return nil, err
	}
	if !c.Sandbox && c.ModelAPIKey == "" && c.ModelURL == DefaultModelURL && c.Providers.Platform == "" {
		return nil, errors.New("CHAKSHU_MODEL_API_KEY: required to reach Anthropic")
	}
	if v := get("CHAKSHU_SECRET_KEY", ""); v != "" {
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil || len(b) != 32 {
			return nil, errors.New("CHAKSHU_SECRET_KEY: want 32 bytes, base64-encoded (openssl rand -base64 32)")
		}
		c.SecretKey = b
	} else if !c.Sandbox {
		return nil, errors.New("CHAKSHU_SECRET_KEY: required when a GitHub App is configured (openssl rand -base64 32)")
	}
	if err := c.loadPreviousKeys(get); err != nil {
		return nil, err
	}
	c.Admins = splitList(get("CHAKSHU_ADMINS", ""))
	c.ModelBetas = splitList(get("CHAKSHU_MODEL_BETAS", ""))
	switch c.ModelInferenceGeo = strings.ToLower(strings.TrimSpace(get("CHAKSHU_MODEL_INFERENCE_GEO", "global"))); c.ModelInferenceGeo {
	case "global", "us":
	default:
		return nil, fmt.Errorf("CHAKSHU_MODEL_INFERENCE_GEO %q: want global or us", c.ModelInferenceGeo)
	}
	c.ReviewAllowList = splitList(get("CHAKSHU_REVIEW_ALLOWLIST", ""))
	if c.Sandbox && len(c.Admins) == 0 {
		c.Admins = []string{SandboxUser}
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return nil, fmt.Errorf("CHAKSHU_LOG_LEVEL: want debug, info, warn or error, got %q", c.LogLevel)
	}
	switch c.LogFormat {
	case "", "json", "text":
	default:
		return nil, fmt.Errorf("CHAKSHU_LOG_FORMAT: want json or text, got %q", c.LogFormat)
	}
	if err := c.loadTokenRate(get); err != nil {
		return nil, err
	}
	if err := c.loadWritePace(get); err != nil {
		return nil, err
	}
	if err := c.loadReplyLimits(get); err != nil {
		return nil, err
	}
	if err := c.loadBlastRadius(get); err != nil {
		return nil, err
	}
	if err := loadWholeNumbers(get, []wholeNumber{{"CHAKSHU_DATABASE_MAX_CONNS", &c.DatabaseMaxConns, 20, 1}}); err != nil {
		return nil, err
	}
	durs := []struct {
		name string
		dst  *time.Duration
		def  time.Duration
	}{
		{"CHAKSHU_HEARTBEAT_INTERVAL", &c.HeartbeatInterval, 20 * time.Second},
		{"CHAKSHU_DEAD_WORKER_AFTER", &c.DeadWorkerAfter, DefaultDeadWorkerAfter},
		{"CHAKSHU_RUN_REPORT_TIMEOUT", &c.RunReportTimeout, 45 * time.Minute},
		{"CHAKSHU_POLL_INTERVAL", &c.PollInterval, time.Second},
		{"CHAKSHU_DRAIN_TIMEOUT", &c.DrainTimeout, DefaultDrainTimeout},
	}
	for _, d := range durs {
		*d.dst = d.def
		if v := get(d.name, ""); v != "" {
			x, err := time.ParseDuration(v)
			if err != nil || x <= 0 {
				return nil, fmt.Errorf("%s: want a duration such as 20s, got %q", d.name, v)
			}
			*d.dst = x
		}
	}
	c.ModelRetryHorizon = DefaultModelRetryHorizon
	if v := get("CHAKSHU_MODEL_RETRY_HORIZON", ""); v != "" {
		x, err := time.ParseDuration(v)
		if err != nil || x < time.Second || x > MaxModelRetryHorizon {
			return nil, fmt.Errorf("CHAKSHU_MODEL_RETRY_HORIZON: want a duration from 1s to 20m such as 2m, got %q", v)
		}
		c.ModelRetryHorizon = x
	}
	if err := c.loadRetention(get); err != nil {
		return nil, err
	}
	if v := get("CHAKSHU_SANDBOX_MODEL_LATENCY", ""); v != "" {
		x, err := time.ParseDuration(v)
		if err != nil || x < 0 || x > time.Minute {
			return nil, fmt.Errorf("CHAKSHU_SANDBOX_MODEL_LATENCY: want a duration from 0 to 1m such as 300ms, got %q", v)
		}
		c.SandboxModelLatency = x
	}
	return c, nil
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func checkURL(name, v string) error {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s: want an http(s) URL, got %q", name, v)
	}
	return nil
}

// EnsureSecretKey fills SecretKey in sandbox mode from a key file in the data
// dir, generating it on first start.
func (c *Config) EnsureSecretKey() error {
	if len(c.SecretKey) == 32 {
		return nil
	}
	p := filepath.Join(c.DataDir, "secret.key")
	if b, err := os.ReadFile(p); err == nil {
		k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
		if err == nil && len(k) == 32 {
			c.SecretKey = k
			return nil
		}
		return fmt.Errorf("%s: not a base64 32-byte key", p)
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return err
	}
	if err := os.MkdirAll(c.DataDir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(p, []byte(base64.StdEncoding.EncodeToString(k)+"\n"), 0o600); err != nil {
		return err
	}
	c.SecretKey = k
	return nil
}

// CheckWeb refuses a configuration `web` (or `all`) cannot serve people
// with: a GitHub App without the OAuth client the portal's login needs
// (sandbox mode signs in without one).
func (c *Config) CheckWeb() error {
	if !c.Sandbox && c.OAuthClientID == "" {
		return errors.New("CHAKSHU_OAUTH_CLIENT_ID: required by web with a GitHub App configured, or nobody can sign in to the portal (the App's client id and CHAKSHU_OAUTH_CLIENT_SECRET; chakshu setup writes both)")
	}
	return nil
}

// SettingNames are the variable names Settings lists, in order.
func SettingNames() []string {
	var out []string
	for _, s := range Settings {
		out = append(out, settingName.FindAllString(s.Name, -1)...)
	}
	return out
}

var settingName = regexp.MustCompile(`CHAKSHU_[A-Z0-9_]+`)

// IsAdmin reports whether login is a configured admin.
func (c *Config) IsAdmin(login string) bool {
	for _, a := range c.Admins {
		if strings.EqualFold(a, login) {
			return true
		}
	}
	return false
}

// DefaultOIDCIssuerFor is the Actions OIDC issuer of the GitHub at apiURL:
// github.com's; https://token.actions.SUBDOMAIN.ghe.com on GitHub Enterprise
// Cloud with data residency, whose API is https://api.SUBDOMAIN.ghe.com
// (docs "Feature overview for GitHub Enterprise Cloud with data residency",
// URL differences); or https://HOST/_services/token on Enterprise Server
// (docs "OpenID Connect", GHES: the issuer is the instance's own).
func DefaultOIDCIssuerFor(apiURL string) string {
	u, err := url.Parse(apiURL)
	if err != nil || apiURL == DefaultGitHubURL || u.Host == "api.github.com" {
		return DefaultOIDCIssuer
	}
	host := strings.ToLower(u.Hostname())
	if sub, ok := strings.CutSuffix(host, ".ghe.com"); ok {
		sub = strings.TrimPrefix(sub, "api.")
		return "https://token.actions." + sub + ".ghe.com"
	}
	return u.Scheme + "://" + u.Host + "/_services/token"
}
