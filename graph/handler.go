package graph

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/coder/websocket"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/graph/exec"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/reviewrequest"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/server"
	"github.com/chakshu-dev/chakshu/server/auth"
)

// GitHub hands out installation clients (*gh.Apps satisfies it).
type GitHub interface {
	Installation(id int64) (*gh.Installation, error)
	// InstallationFor is a client whose token carries only scope (enrolment
	// writes the workflow with Workflows: write).
	InstallationFor(id int64, scope gh.Scope) (*gh.Installation, error)
	// Granted is what the installation has granted now.
	Granted(ctx context.Context, id int64) (gh.Scope, error)
}

var _ GitHub = (*gh.Apps)(nil)

// Config builds the GraphQL handler.
type Config struct {
	DB  *store.DB
	Log *slog.Logger
	// Bus wakes workers (events, sync) and live updates (run_updated).
	Bus wakeup.Bus
	// Settings are the parts of Chakshu's settings the API uses (SettingsFrom).
	Settings Settings
	// Auth resolves viewers and applies CSRF protection.
	Auth *auth.Auth
	// Models is the model catalogue for reviewers' model status; nil means the built-in one.
	Models *models.Source
	// GitHub is used by requestReview and permission checks; nil makes them
	// answer that GitHub is not configured.
	GitHub GitHub
	// MaxComplexity caps a query's complexity (default 20000); MaxDepth its
	// nesting (default 12); MaxBodyBytes the request size (default 256 KiB).
	MaxComplexity int
	MaxDepth      int
	MaxBodyBytes  int64
	// PollInterval is the runUpdated safety poll (default 2 s); wake-ups on
	// wakeup.TopicRunUpdated deliver changes sooner.
	PollInterval time.Duration
	// LiveRecheck is how often a live subscription checks again that its
	// token or session is valid and what it may read: before a delivery, the
	// viewer was checked and their repository access read from GitHub at most
	// this long ago (default 1 min).
	LiveRecheck time.Duration
	// Now is the clock of LiveRecheck; nil means time.Now.
	Now func() time.Time
	// GitHubWebURL is GitHub's web base, for links and pull request URLs; empty
	// derives it from Settings.GitHubURL (the sandbox sets the simulator's pages).
	GitHubWebURL string

	// Driver, when set, replaces the store's (DB.Driver): tests count statements.
	Driver dialect.Driver
}

// Settings are the parts of Chakshu's settings the GraphQL API uses.
type Settings struct {
	// PublicURL is where browsers reach Chakshu: the origin subscriptions
	// accept.
	PublicURL string
	// GitHubURL is GitHub's REST base; GitHub's web base derives from it
	// unless Config.GitHubWebURL says otherwise.
	GitHubURL string
	// ReviewAllowList are logins who may ask for reviews without write access.
	ReviewAllowList []string
	// Platform is the model provider reviewers' models are checked against.
	Platform string
	// SecretKey and SecretKeyPrevious seal connector credentials.
	SecretKey         []byte
	SecretKeyPrevious [][]byte
	// DeadWorkerAfter is when the Status page calls a silent worker dead.
	DeadWorkerAfter time.Duration
	// GitHubWritesPerMinute and GitHubWritesPerHour are the content-write
	// pacing the Status page shows each installation's budget against.
	GitHubWritesPerMinute, GitHubWritesPerHour int
}

// SettingsFrom takes the API's part of the web side's configuration.
func SettingsFrom(c config.SharedPart, w config.WebPart) Settings {
	return Settings{PublicURL: c.PublicURL, GitHubURL: c.GitHubURL, ReviewAllowList: c.ReviewAllowList,
		Platform: w.Providers.Platform, SecretKey: c.SecretKey, SecretKeyPrevious: c.SecretKeyPrevious,
		DeadWorkerAfter: c.DeadWorkerAfter, GitHubWritesPerMinute: c.GitHubWritesPerMinute, GitHubWritesPerHour: c.GitHubWritesPerHour}
}

// api holds what resolvers need.
type api struct {
	cfg    Config
	log    *slog.Logger
	db     *store.DB   // unfiltered: auth lookups, enqueueing, raw aggregates
	client *ent.Client // filtered per viewer by interceptors (access.go)
	webURL string      // GitHub's web base, for links and PR URLs
	// requests is the "request a review" use case, shared with webhook handling.
	requests *reviewrequest.Requests
}

// NewHandler returns the /graphql handler: POST and graphql-ws transports,
// complexity/depth/page-size limits, mutation transactions, one error shape,
// all behind auth.Middleware.
func NewHandler(cfg Config) (http.Handler, error) {
	if cfg.DB == nil || cfg.Log == nil || cfg.Auth == nil || cfg.Bus == nil {
		return nil, errors.New("graph: DB, Log, Auth and Bus are required")
	}
	if a, ok := cfg.GitHub.(*gh.Apps); ok && a == nil {
		cfg.GitHub = nil // a nil *gh.Apps in the interface: GitHub is not configured
	}
	if cfg.MaxComplexity <= 0 {
		cfg.MaxComplexity = 20000
	}
	if cfg.MaxDepth <= 0 {
		cfg.MaxDepth = 12
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 256 << 10
	}
	if cfg.LiveRecheck <= 0 {
		cfg.LiveRecheck = time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 2 * time.Second
	}
	drv := cfg.Driver
	if drv == nil {
		drv = cfg.DB.Driver() // on SQLite its writes go through the store's one write connection
	}
	h := &api{cfg: cfg, log: cfg.Log, db: cfg.DB, client: ent.NewClient(ent.Driver(drv)), webURL: webBase(cfg),
		requests: &reviewrequest.Requests{DB: cfg.DB, Bus: cfg.Bus, Access: reviewrequest.NewAccess(cfg.Settings.ReviewAllowList)}}
	h.intercept(h.client)
	// The handler's own client writes runs too (cancelRun, in the request's
	// transaction): its status changes wake runUpdated like everyone's.
	runstate.NotifyLiveUpdates(h.client, cfg.Bus)

	ec := exec.Config{Resolvers: &Resolver{h: h}}
	setComplexity(&ec.Complexity)
	srv := handler.New(exec.NewExecutableSchema(ec))
	pub, _ := url.Parse(cfg.Settings.PublicURL)
	origins := []string{}
	if pub != nil && pub.Host != "" {
		origins = append(origins, pub.Host)
	}
	srv.AddTransport(transport.Websocket{
		KeepAlivePingInterval: 15 * time.Second,
		// Browsers may connect only from the request's own host or the public URL's.
		Implementation: liveSockets{transport.CoderWebsocketImplementation{AcceptOptions: websocket.AcceptOptions{OriginPatterns: origins}}},
		InitFunc: func(ctx context.Context, _ transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			if auth.FromContext(ctx) == nil {
				return ctx, nil, errUnauthenticated
			}
			if la := liveFrom(ctx); la != nil {
				ctx, la.cancel = context.WithCancel(ctx) // cancelling closes the socket
			}
			return ctx, nil, nil
		},
	})
	srv.AddTransport(transport.POST{})
	srv.Use(extension.Introspection{})
	srv.Use(limits{maxDepth: cfg.MaxDepth, maxCost: cfg.MaxComplexity})
	srv.Use(extension.FixedComplexityLimit(cfg.MaxComplexity))
	srv.Use(mutationTx{client: h.client})
	srv.AroundFields(h.fieldPolicy)
	srv.AroundFields(h.scopeWhere)
	srv.SetErrorPresenter(h.presentError)
	srv.SetRecoverFunc(h.recoverPanic)

	return cfg.Auth.Middleware(h.withLive(h.bodyLimit(h.withAccess(srv)))), nil
}

// webBase is GitHub's web base without a trailing slash: GitHubWebURL, or
// derived from the API base.
func webBase(cfg Config) string {
	if cfg.GitHubWebURL != "" {
		return strings.TrimRight(cfg.GitHubWebURL, "/")
	}
	return strings.TrimRight(auth.WebURL(cfg.Settings.GitHubURL), "/")
}

// bodyLimit refuses request bodies over MaxBodyBytes.
func (h *api) bodyLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > h.cfg.MaxBodyBytes {
			writeGraphQLError(w, http.StatusRequestEntityTooLarge, CodeInvalid, "request body too large")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, h.cfg.MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// writeGraphQLError answers outside gqlgen in the GraphQL error shape.
func writeGraphQLError(w http.ResponseWriter, status int, code Code, msg string) {
	server.WriteJSON(w, status, map[string]any{
		"errors": []map[string]any{{"message": msg, "extensions": map[string]string{"code": string(code)}}},
	})
}
