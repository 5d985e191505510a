package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/csrf"
	"github.com/gorilla/sessions"
	"golang.org/x/oauth2"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/connectors"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/server"
)

// Cookie names.
const (
	SessionCookie = "chakshu_session"
	stateCookie   = "chakshu_oauth"
	CSRFCookie    = "chakshu_csrf"
	// CSRFHeader carries the token from GET /api/me on cookie-authenticated POSTs.
	CSRFHeader = "X-CSRF-Token"
)

// Config builds an Auth.
type Config struct {
	DB  *store.DB
	Log *slog.Logger
	// Settings are the parts of Chakshu's settings auth uses (SettingsFrom);
	// SecretKey is required.
	Settings Settings
	// GitHubWebURL is where /login/oauth/* lives; empty derives it from
	// Settings.GitHubURL (https://api.github.com/ → https://github.com/;
	// https://ghe.example/api/v3/ → https://ghe.example/; otherwise the API base itself,
	// as with the simulator).
	GitHubWebURL string
	// HTTPClient reaches GitHub (tests: the simulator); nil means a client with a 30 s timeout.
	HTTPClient *http.Client
	// SessionMaxAge is how long a login lasts (default 12 h).
	SessionMaxAge time.Duration
	// AccessTTL is how long the cached list of readable repositories is trusted
	// before a session refreshes it from GitHub (default 10 min).
	AccessTTL time.Duration
	// TokenAccessTTL is how long an API token trusts its owner's cached access
	// before refreshing it from GitHub with the owner's stored GitHub token
	// (default 1 h); when that fails the token reads nothing until its owner
	// signs in again.
	TokenAccessTTL time.Duration
	// Scopes are OAuth scopes to request; empty suits a GitHub App's user tokens.
	Scopes []string
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
	// SandboxDev offers a second, non-admin sandbox login (sandbox mode only).
	SandboxDev SandboxDev
}

// Settings are the parts of Chakshu's settings that login, sessions and API
// tokens use.
type Settings struct {
	// PublicURL is where browsers reach Chakshu; cookies are Secure when it
	// is https.
	PublicURL string
	// GitHubURL is GitHub's REST base: users' own calls, and the OAuth pages'
	// host derives from it.
	GitHubURL string
	// OAuthClientID and OAuthClientSecret are the portal's GitHub login;
	// empty: no GitHub login.
	OAuthClientID, OAuthClientSecret string
	// SecretKey (32 bytes) seals sessions, CSRF tokens and users' stored
	// GitHub tokens; SecretKeyPrevious are keys it replaced, still opened
	// during a rotation (rotation.go).
	SecretKey         []byte
	SecretKeyPrevious [][]byte
	// APITokenRate (a minute) and APITokenBurst limit each API token;
	// 0: unlimited (ratelimit.go).
	APITokenRate, APITokenBurst int
	// Admins are GitHub logins with admin rights besides organisation owners.
	Admins []string
	// Sandbox offers the sandbox's sign-in when no OAuth client is set.
	Sandbox bool
}

// SettingsFrom takes auth's part of the web side's configuration.
func SettingsFrom(c config.SharedPart, w config.WebPart) Settings {
	return Settings{PublicURL: c.PublicURL, GitHubURL: c.GitHubURL, OAuthClientID: w.OAuthClientID,
		OAuthClientSecret: w.OAuthClientSecret, SecretKey: c.SecretKey, SecretKeyPrevious: c.SecretKeyPrevious,
		APITokenRate: w.APITokenRate, APITokenBurst: w.APITokenBurst, Admins: w.Admins, Sandbox: c.Sandbox}
}

// Auth is the login, session, CSRF and API token machinery.
type Auth struct {
	cfg      Config
	log      *slog.Logger
	db       *store.DB
	sessions *sessions.CookieStore
	states   *sessions.CookieStore
	csrf     func(http.Handler) http.Handler
	oauth    *oauth2.Config // nil when no OAuth client is configured
	apiURL   string
	secure   bool
	http     *http.Client
	limits   *tokenLimits       // per API token (ratelimit.go)
	sealer   *connectors.Sealer // seals users' GitHub tokens at rest
	rekey    *cookieRekey       // CSRF cookies of a previous secret key (rotation.go); nil without one
}

// New validates cfg and returns an Auth.
func New(cfg Config) (*Auth, error) {
	if cfg.DB == nil || cfg.Log == nil {
		return nil, errors.New("auth: DB and Log are required")
	}
	c := cfg.Settings
	if len(c.SecretKey) != 32 {
		return nil, errors.New("auth: CHAKSHU_SECRET_KEY must be 32 bytes")
	}
	if cfg.SessionMaxAge <= 0 {
		cfg.SessionMaxAge = 12 * time.Hour
	}
	if cfg.AccessTTL <= 0 {
		cfg.AccessTTL = 10 * time.Minute
	}
	if cfg.TokenAccessTTL <= 0 {
		cfg.TokenAccessTTL = time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	pub, err := url.Parse(c.PublicURL)
	if err != nil || pub.Host == "" {
		return nil, fmt.Errorf("auth: public URL %q: not a URL", c.PublicURL)
	}
	a := &Auth{cfg: cfg, log: cfg.Log, db: cfg.DB, secure: pub.Scheme == "https", apiURL: c.GitHubURL, http: cfg.HTTPClient}
	a.limits = newTokenLimits(cfg.DB, c.APITokenRate, c.APITokenBurst)

	if a.sealer, err = TokenSealer(c.SecretKey, c.SecretKeyPrevious); err != nil {
		return nil, err
	}
	a.rekey = newCSRFRekey(c.SecretKey, c.SecretKeyPrevious)
	a.sessions = sessions.NewCookieStore(keyPairs(c.SecretKey, c.SecretKeyPrevious, "session-hash", "session-block")...)
	a.sessions.Options = &sessions.Options{
		Path: "/", MaxAge: int(cfg.SessionMaxAge / time.Second), HttpOnly: true,
		Secure: a.secure, SameSite: http.SameSiteLaxMode,
	}
	a.sessions.MaxAge(int(cfg.SessionMaxAge / time.Second))
	a.states = sessions.NewCookieStore(keyPairs(c.SecretKey, c.SecretKeyPrevious, "state-hash", "state-block")...)
	a.states.Options = &sessions.Options{
		Path: "/auth/", MaxAge: 600, HttpOnly: true, Secure: a.secure, SameSite: http.SameSiteLaxMode,
	}
	a.states.MaxAge(600)

	a.csrf = csrf.Protect(derive(c.SecretKey, "csrf"),
		csrf.CookieName(CSRFCookie), csrf.RequestHeader(CSRFHeader), csrf.Path("/"),
		csrf.Secure(a.secure), csrf.HttpOnly(true), csrf.SameSite(csrf.SameSiteLaxMode),
		csrf.TrustedOrigins([]string{pub.Host}),
		csrf.ErrorHandler(http.HandlerFunc(csrfFailed)),
	)

	if c.OAuthClientID != "" {
		web := cfg.GitHubWebURL
		if web == "" {
			web = WebURL(c.GitHubURL)
		}
		web = strings.TrimRight(web, "/")
		a.oauth = &oauth2.Config{
			ClientID:     c.OAuthClientID,
			ClientSecret: c.OAuthClientSecret,
			Endpoint: oauth2.Endpoint{
				AuthURL:   web + "/login/oauth/authorize",
				TokenURL:  web + "/login/oauth/access_token",
				AuthStyle: oauth2.AuthStyleInParams,
			},
			RedirectURL: c.PublicURL + "/auth/callback",
			Scopes:      cfg.Scopes,
		}
	}
	return a, nil
}

// WebURL derives GitHub's web base from its REST API base: github.com's;
// on GitHub Enterprise Cloud with data residency the API is
// https://api.SUBDOMAIN.ghe.com and the web (login, App pages)
// https://SUBDOMAIN.ghe.com (docs "Feature overview for GitHub Enterprise
// Cloud with data residency"); Enterprise Server's API is HOST/api/v3.
func WebURL(apiURL string) string {
	u := strings.TrimRight(apiURL, "/")
	switch {
	case u == "https://api.github.com":
		return "https://github.com"
	case strings.HasSuffix(u, "/api/v3"):
		return strings.TrimSuffix(u, "/api/v3")
	}
	if p, err := url.Parse(u); err == nil && p.Path == "" {
		host := strings.ToLower(p.Host)
		if sub, ok := strings.CutPrefix(host, "api."); ok && strings.HasSuffix(sub, ".ghe.com") {
			return p.Scheme + "://" + sub
		}
	}
	return u
}

// derive makes a purpose-specific key from the secret key.
func derive(key []byte, purpose string) []byte {
	h := sha256.New()
	h.Write([]byte("chakshu/" + purpose + "/"))
	h.Write(key)
	return h.Sum(nil)
}

// SandboxLogin reports whether the one-click sandbox login is on: sandbox mode
// and no OAuth client configured.
func (a *Auth) SandboxLogin() bool { return a.cfg.Settings.Sandbox && a.oauth == nil }

// Middleware resolves the request's viewer (API token or session cookie) into
// the context and applies CSRF protection to cookie-authenticated requests.
// A bad bearer token is refused with 401; an anonymous request passes on
// without a viewer (handlers decide).
func (a *Auth) Middleware(next http.Handler) http.Handler {
	protected := a.csrf(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.secure {
			r = csrf.PlaintextHTTPRequest(r)
		}
		r = a.rekey.csrf(w, r, a.secure)
		if h := r.Header.Get("Authorization"); h != "" {
			v, tok, err := a.tokenViewer(r.Context(), h, a.cfg.TokenAccessTTL)
			if err != nil {
				if !errors.Is(err, errBadToken) {
					a.log.Error("api token lookup", "err", err)
				}
				w.Header().Set("WWW-Authenticate", `Bearer realm="chakshu"`)
				server.WriteError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "invalid or expired API token")
				return
			}
			wait, err := a.limits.spend(r.Context(), tok, a.cfg.Now())
			if err != nil {
				a.log.Warn("api token rate limit", "err", err)
			}
			if wait > 0 {
				rateLimited(w, wait)
				return
			}
			// API tokens are not sent by browsers on their own: no CSRF check.
			r = csrf.UnsafeSkipCheck(r.WithContext(WithViewer(r.Context(), v)))
			next.ServeHTTP(w, r)
			return
		}
		v, err := a.sessionViewer(w, r, a.cfg.AccessTTL)
		if err != nil {
			a.log.Error("session lookup", "err", err)
		}
		if v != nil {
			r = r.WithContext(WithViewer(r.Context(), v))
		}
		protected.ServeHTTP(w, r)
	})
}

// Revalidate authenticates r again for a connection that outlives it (a
// WebSocket's upgrade request, headers only): the viewer it is now, with
// repository access no older than fresh (refreshed from GitHub with the
// user's token when older, as at sign-in), or nil when its API token is
// revoked or expired, its session expired or signed out, its GitHub token
// revoked, or its user gone. The freshness is the user's row, shared by all
// their connections and requests: a user's many sockets refresh once per
// fresh, not once each. It spends no rate-limit budget and checks no CSRF
// (nothing is written on the caller's behalf).
func (a *Auth) Revalidate(ctx context.Context, r *http.Request, fresh time.Duration) (*Viewer, error) {
	r = r.WithContext(ctx)
	if h := r.Header.Get("Authorization"); h != "" {
		v, _, err := a.tokenViewer(ctx, h, fresh)
		if errors.Is(err, errBadToken) {
			return nil, nil
		}
		return v, err
	}
	return a.sessionViewer(nowhere{h: http.Header{}}, r, fresh)
}

// nowhere is a ResponseWriter whose answer nobody reads (a re-issued cookie
// during Revalidate has no browser to go to).
type nowhere struct{ h http.Header }

func (n nowhere) Header() http.Header         { return n.h }
func (n nowhere) Write(b []byte) (int, error) { return len(b), nil }
func (n nowhere) WriteHeader(int)             {}

// csrfFailed answers a POST without a valid CSRF token, in both the HTTP and
// the GraphQL error shape.
func csrfFailed(w http.ResponseWriter, r *http.Request) {
	msg := "missing or invalid CSRF token (send the token from GET /api/me in the X-CSRF-Token header)"
	server.WriteJSON(w, http.StatusForbidden, map[string]any{
		"error":  server.ErrorDetail{Code: "FORBIDDEN", Message: msg},
		"errors": []map[string]any{{"message": msg, "extensions": map[string]string{"code": "FORBIDDEN"}}},
	})
}

// isAdmin applies the configured list on top of what login found.
func (a *Auth) isAdmin(u *ent.User) bool {
	return u.IsAdmin || config.HasLogin(a.cfg.Settings.Admins, u.Login)
}

// Routes are the login, logout and /api/me endpoints, each behind Middleware.
func (a *Auth) Routes() []server.Route {
	wrap := func(f http.HandlerFunc) http.Handler { return a.Middleware(f) }
	return []server.Route{
		{Pattern: "GET /auth/login", Handler: wrap(a.login)},
		{Pattern: "GET /auth/callback", Handler: wrap(a.callback)},
		{Pattern: "POST /auth/logout", Handler: wrap(a.logout)},
		{Pattern: "POST /auth/sandbox", Handler: wrap(a.sandbox)},
		{Pattern: "GET /api/me", Handler: wrap(a.me)},
	}
}

// ctxWithHTTP makes oauth2 use the configured client.
func (a *Auth) ctxWithHTTP(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, a.http)
}
