// Package config reads Chakshu's settings (DESIGN §12) from the environment or
// a config file into the struct of the process that reads them (settings.go),
// validates them, and says which one is wrong in one line.
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
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/internal/retention"
)

// Config is what a process's settings (Web, Worker or All) resolve to: the
// values checked against each other, with what follows from them filled in.
// Each field names its variable. It is made of the parts settings.go reads
// (Shared, WebOnly, WorkerOnly), so the wiring of each side can be handed
// only its own part and the shared one. The parts a process does not read
// hold their defaults.
type Config struct {
	SharedPart
	WebPart
	WorkerPart
}

// SharedPart is what every process reads (settings.go's Shared), resolved.
type SharedPart struct {
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
	// AppID and AppSlug identify the GitHub App (CHAKSHU_APP_ID, CHAKSHU_APP_SLUG).
	AppID   int64
	AppSlug string
	// PrivateKey is the App's PEM key (CHAKSHU_PRIVATE_KEY or CHAKSHU_PRIVATE_KEY_FILE).
	PrivateKey []byte
	// GitHubURL and GitHubGraphQLURL are the API base URLs (CHAKSHU_GITHUB_URL, CHAKSHU_GITHUB_GRAPHQL_URL).
	GitHubURL        string
	GitHubGraphQLURL string
	// SecretKey is 32 bytes for sessions and stored credentials (CHAKSHU_SECRET_KEY, base64).
	SecretKey []byte
	// SecretKeyPrevious are keys CHAKSHU_SECRET_KEY replaced, still accepted
	// for opening during a rotation (CHAKSHU_SECRET_KEY_PREVIOUS; retention.go).
	SecretKeyPrevious [][]byte
	// ModelCatalog is an operator's model catalogue file merged over the
	// built-in one and re-read when it changes (CHAKSHU_MODEL_CATALOG).
	ModelCatalog string
	// ReviewAllowList are GitHub logins who may ask for reviews without write
	// access to the repository (CHAKSHU_REVIEW_ALLOWLIST, comma-separated).
	ReviewAllowList []string
	// LogLevel and LogFormat shape the logs (CHAKSHU_LOG_LEVEL, CHAKSHU_LOG_FORMAT).
	LogLevel  string
	LogFormat string
	// PublicURLDefaulted is true when CHAKSHU_PUBLIC_URL was not set, so the
	// public URL follows the address actually listened on.
	PublicURLDefaulted bool
	// Sandbox is true when no GitHub App is configured: the simulator and the
	// scripted model stand in for GitHub and Anthropic.
	Sandbox bool
	// SandboxExplicit is CHAKSHU_SANDBOX=1: sandbox mode was asked for, so
	// it may run on a non-loopback address or a CHAKSHU_DATABASE_URL
	// (SandboxAllowed).
	SandboxExplicit bool
	// DeadWorkerAfter is how long a worker may stay silent before its work
	// is taken back (CHAKSHU_DEAD_WORKER_AFTER).
	DeadWorkerAfter time.Duration
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
}

// WebPart is what only the HTTP side reads (settings.go's WebOnly),
// resolved: webhook intake, portal login, the runner API and the model
// gateway.
type WebPart struct {
	// RunnerDir holds the chakshu-action binaries the runner API serves
	// (CHAKSHU_RUNNER_DIR); "" means runner/ beside the chakshu executable.
	RunnerDir string
	// WebhookSecrets are accepted webhook secrets, newest first (CHAKSHU_WEBHOOK_SECRET, comma-separated).
	WebhookSecrets []string
	// OAuthClientID and OAuthClientSecret are the portal login (CHAKSHU_OAUTH_CLIENT_ID, CHAKSHU_OAUTH_CLIENT_SECRET).
	OAuthClientID     string
	OAuthClientSecret string
	// OIDCIssuer and OIDCAudience verify Actions tokens (CHAKSHU_OIDC_ISSUER, CHAKSHU_OIDC_AUDIENCE).
	OIDCIssuer   string
	OIDCAudience string
	// ModelURL and ModelAPIKey are the model gateway's upstream (CHAKSHU_MODEL_URL, CHAKSHU_MODEL_API_KEY).
	ModelURL    string
	ModelAPIKey string
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
	// AudienceDefaulted is true when CHAKSHU_OIDC_AUDIENCE was not set.
	AudienceDefaulted bool
	// APITokenRate is how many requests per minute one API token may make
	// (CHAKSHU_API_TOKEN_RATE; 0: unlimited); APITokenBurst how many at once
	// (CHAKSHU_API_TOKEN_BURST). Sessions are not limited.
	APITokenRate  int
	APITokenBurst int
}

// WorkerPart is what only the background side reads (settings.go's
// WorkerOnly), resolved: its timings, the limits on what it queues and
// dispatches, and retention.
type WorkerPart struct {
	// HeartbeatInterval follows CHAKSHU_DEAD_WORKER_AFTER, 2/9 of it (20 s
	// at the default 90 s), so a live worker beats four times before it
	// could count as dead. RunReportTimeout fails a dispatched run that
	// never reported (CHAKSHU_RUN_REPORT_TIMEOUT).
	HeartbeatInterval time.Duration
	RunReportTimeout  time.Duration
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
	// Retention bounds what the database keeps (CHAKSHU_RETAIN_*,
	// CHAKSHU_PRUNE_BATCH; retention.go).
	Retention retention.Retention
	// PruneInterval is how often a worker prunes (CHAKSHU_PRUNE_INTERVAL);
	// PruneWriteTarget how long one pruning transaction may hold the write
	// lock (CHAKSHU_PRUNE_WRITE_TARGET; worker.PruneConfig).
	PruneInterval, PruneWriteTarget time.Duration
}

// DefaultModelRetryHorizon and MaxModelRetryHorizon bound
// CHAKSHU_MODEL_RETRY_HORIZON: retries stop well inside a review's wall time
// (25 minutes).
const (
	DefaultModelRetryHorizon = 2 * time.Minute
	MaxModelRetryHorizon     = 20 * time.Minute
)

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

// Load reads and validates every setting (what `chakshu all` reads). The
// error names the bad setting in one line.
func Load(look Lookup) (*Config, error) {
	var s All
	if err := Parse(look, &s); err != nil {
		return nil, err
	}
	return s.Config()
}

// LoadFor reads and validates what a process reads: "web" its Web, "worker"
// its Worker, anything else (all, migrate, doctor, …) All.
func LoadFor(process string, look Lookup) (*Config, error) {
	switch process {
	case "web":
		var s Web
		if err := Parse(look, &s); err != nil {
			return nil, err
		}
		return s.Config()
	case "worker":
		var s Worker
		if err := Parse(look, &s); err != nil {
			return nil, err
		}
		return s.Config()
	}
	return Load(look)
}

// Parse reads the settings s (a pointer to Web, Worker or All) names through
// look; a set but blank value counts as unset. The error names the setting.
func Parse(look Lookup, s any) error { return parse(s, look) }

// defaults are the settings of a part a process does not read.
func defaults[T any]() T {
	var t T
	if err := parse(&t, func(string) (string, bool) { return "", false }); err != nil {
		panic(err) // our own defaults: the tests parse them
	}
	return t
}

// Config validates web's settings and resolves what follows from them.
// Worker settings take their defaults.
func (s Web) Config() (*Config, error) {
	return resolve(All{Shared: s.Shared, WebOnly: s.WebOnly, WorkerOnly: defaults[WorkerOnly]()}, true, false)
}

// Config validates a worker's settings and resolves what follows from them.
// Web settings take their defaults.
func (s Worker) Config() (*Config, error) {
	return resolve(All{Shared: s.Shared, WebOnly: defaults[WebOnly](), WorkerOnly: s.WorkerOnly}, false, true)
}

// Config validates every setting and resolves what follows from them.
func (s All) Config() (*Config, error) { return resolve(s, true, true) }

// resolve checks what the library cannot (one setting against another,
// choices, files) and derives the rest. web and worker say which parts the
// process read: a check on a part it did not read would refuse a setting
// it never looked at.
func resolve(s All, web, worker bool) (*Config, error) {
	c := &Config{
		SharedPart: SharedPart{Addr: s.Addr, InternalAddr: s.InternalAddr, DataDir: s.DataDir, DatabaseURL: s.DatabaseURL,
			DatabaseMaxConns: s.DatabaseMaxConns, AppID: s.AppID, AppSlug: s.AppSlug,
			GitHubURL: s.GitHubURL, GitHubGraphQLURL: s.GitHubGraphQLURL, ModelCatalog: s.ModelCatalog,
			ReviewAllowList: s.ReviewAllowList, LogLevel: strings.ToLower(s.LogLevel), LogFormat: strings.ToLower(s.LogFormat),
			DeadWorkerAfter: s.DeadWorkerAfter, GitHubWritesPerMinute: s.GitHubWritesPerMinute, GitHubWritesPerHour: s.GitHubWritesPerHour,
			DrainTimeout: s.DrainTimeout},
		WebPart: WebPart{RunnerDir: s.RunnerDir, OAuthClientID: s.OAuthClientID, OAuthClientSecret: s.OAuthClientSecret,
			OIDCIssuer: s.OIDCIssuer, ModelURL: s.ModelURL, ModelAPIKey: s.ModelAPIKey, ModelBetas: s.ModelBetas,
			ModelRetryHorizon: s.ModelRetryHorizon, Admins: s.Admins, APITokenRate: s.APITokenRate, APITokenBurst: s.APITokenBurst},
		WorkerPart: WorkerPart{HeartbeatInterval: s.DeadWorkerAfter * 2 / 9, RunReportTimeout: s.RunReportTimeout,
			ReplyLimitPerPR: s.ReplyLimitPerPR, ReplyLimitPerUser: s.ReplyLimitPerUser, MaxConcurrentRuns: s.MaxConcurrentRuns},
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return nil, fmt.Errorf("CHAKSHU_ADDR: want host:port, got %q", c.Addr)
	}
	if _, _, err := net.SplitHostPort(c.InternalAddr); err != nil {
		return nil, fmt.Errorf("CHAKSHU_INTERNAL_ADDR: want host:port, got %q", c.InternalAddr)
	}
	c.PublicURL = strings.TrimRight(s.PublicURL, "/")
	if c.PublicURLDefaulted = s.PublicURL == ""; c.PublicURLDefaulted {
		c.PublicURL = "http://" + c.Addr
	}
	if err := checkURL("CHAKSHU_PUBLIC_URL", c.PublicURL); err != nil {
		return nil, err
	}
	c.OIDCAudience = s.OIDCAudience
	if c.AudienceDefaulted = c.OIDCAudience == ""; c.AudienceDefaulted {
		c.OIDCAudience = c.PublicURL
	}
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		return nil, errors.New("CHAKSHU_DATABASE_URL: want a postgres:// URL")
	}
	key := s.PrivateKey
	if f := s.PrivateKeyFile; f != "" {
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
	switch v := strings.ToLower(s.Sandbox); v {
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
	c.WebhookSecrets = s.WebhookSecrets
	if len(c.WebhookSecrets) == 0 {
		if web && !c.Sandbox {
			return nil, errors.New("CHAKSHU_WEBHOOK_SECRET: required when a GitHub App is configured")
		}
		if c.Sandbox {
			c.WebhookSecrets = []string{SandboxSecret}
		}
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
	var err error
	if c.Providers, err = providers(s.WebOnly); err != nil {
		return nil, err
	}
	if web && !c.Sandbox && c.ModelAPIKey == "" && c.ModelURL == DefaultModelURL && c.Providers.Platform == "" {
		return nil, errors.New("CHAKSHU_MODEL_API_KEY: required to reach Anthropic")
	}
	if v := s.SecretKey; v != "" {
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil || len(b) != 32 {
			return nil, errors.New("CHAKSHU_SECRET_KEY: want 32 bytes, base64-encoded (openssl rand -base64 32)")
		}
		c.SecretKey = b
	} else if !c.Sandbox {
		return nil, errors.New("CHAKSHU_SECRET_KEY: required when a GitHub App is configured (openssl rand -base64 32)")
	}
	if err := c.loadPreviousKeys(s.SecretKeyPrevious); err != nil {
		return nil, err
	}
	switch c.ModelInferenceGeo = strings.ToLower(s.ModelInferenceGeo); c.ModelInferenceGeo {
	case "global", "us":
	default:
		return nil, fmt.Errorf("CHAKSHU_MODEL_INFERENCE_GEO: want global or us, got %q", c.ModelInferenceGeo)
	}
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
	switch v := strings.ToLower(s.InfraFailureConclusion); v {
	case InfraFailureFailure, InfraFailureNeutral:
		c.InfraFailureConclusion = v
	default:
		return nil, fmt.Errorf("CHAKSHU_INFRA_FAILURE_CONCLUSION: want failure or neutral, got %q", v)
	}
	c.Retention, c.PruneInterval, c.PruneWriteTarget = retentionOf(s.WorkerOnly), s.PruneInterval, s.PruneWriteTarget
	if worker {
		if err := c.checkRetention(); err != nil {
			return nil, err
		}
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

// ServedOn is c served on addr, the address actually listened on: the public
// URL, and the OIDC audience with it, follow addr where they were not set.
// c is left as it is.
func (c Config) ServedOn(addr string) *Config {
	if c.PublicURLDefaulted {
		c.PublicURL = "http://" + addr
		if c.AudienceDefaulted {
			c.OIDCAudience = c.PublicURL
		}
	}
	return &c
}

// IsAdmin reports whether login is a configured admin.
func (c *Config) IsAdmin(login string) bool { return HasLogin(c.Admins, login) }

// HasLogin reports whether logins names login (GitHub logins are
// case-insensitive).
func HasLogin(logins []string, login string) bool {
	for _, a := range logins {
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
