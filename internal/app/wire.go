package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/chakshu-dev/chakshu/graph"
	"github.com/chakshu-dev/chakshu/internal/backtest"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/gateway"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/metrics"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runnerbin"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/version"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/server"
	"github.com/chakshu-dev/chakshu/server/auth"
	"github.com/chakshu-dev/chakshu/server/portal"
	"github.com/chakshu-dev/chakshu/server/runnerapi"
	"github.com/chakshu-dev/chakshu/server/setuppage"
	"github.com/chakshu-dev/chakshu/server/webhook"
	"github.com/chakshu-dev/chakshu/worker"
	"github.com/chakshu-dev/chakshu/worker/events"
)

// pollInterval is the slowest a worker loop looks for work when no wake-up
// came: a safety net under the wake-ups, which carry the work at once.
const pollInterval = time.Second

// deps are what every part is built from. The configuration is not among
// them: webRoutes is handed the shared and web parts, workerParts the shared
// and worker parts, so neither side can read the other's settings.
type deps struct {
	db       *store.DB
	bus      wakeup.Bus
	log      *slog.Logger
	github   *gh.Apps
	registry *prometheus.Registry
	// sandboxDev is the portal's non-admin sandbox login (sandbox mode).
	sandboxDev auth.SandboxDev
	// githubWebURL is GitHub's web base for links; empty derives it from the
	// API base (the sandbox: the simulator's pages).
	githubWebURL string
	// simPages serves the simulated GitHub's pages under /sim/ (sandbox mode).
	simPages http.Handler
	// sandboxTour serves the portal's "things to try" (sandbox mode).
	sandboxTour http.Handler
	// models is the model catalogue in force (built in, plus CHAKSHU_MODEL_CATALOG).
	models *models.Source
	// setupGitHubURL is the REST base the setup page creates the App on:
	// CHAKSHU_GITHUB_URL as configured (the sandbox's simulator never).
	setupGitHubURL string
}

// newGitHub is the App's clients of c (AppID, PrivateKey, BaseURL,
// GraphQLURL), their calls counted in reg.
func newGitHub(c gh.Config, reg prometheus.Registerer) (*gh.Apps, error) {
	calls, err := metrics.NewGitHub(reg) // GitHub calls by endpoint and status, rate limit remaining
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	c.Transport = calls.Transport(nil)
	return gh.New(c)
}

// webRoutes builds everything `chakshu web` serves, and what to close at shutdown.
func webRoutes(d deps, sh config.SharedPart, web config.WebPart) ([]server.Route, func(), error) {
	wh, err := webhook.New(webhook.Config{DB: d.db, Secrets: web.WebhookSecrets, Log: d.log, Bus: d.bus, Metrics: d.registry})
	if err != nil {
		return nil, nil, err
	}
	ups, err := gateway.Upstreams(context.Background(), web.Providers, nil)
	if err != nil {
		return nil, nil, err
	}
	api, err := runnerapi.New(runnerapi.Config{
		ModelUpstreams: ups, ModelPlatform: web.Providers.Platform,
		DB: d.db, Log: d.log, Bus: d.bus, GitHub: d.github,
		Issuer: web.OIDCIssuer, Audience: web.OIDCAudience, PublicURL: sh.PublicURL, AppSlug: sh.AppSlug,
		SecretKey: sh.SecretKey, SecretKeyPrevious: sh.SecretKeyPrevious, ModelURL: web.ModelURL, ModelAPIKey: web.ModelAPIKey,
		Models: d.models, ModelBetas: web.ModelBetas, ModelInferenceGeo: web.ModelInferenceGeo, ModelRetryHorizon: web.ModelRetryHorizon,
		AllowPlainHTTPConnectors: sh.Sandbox,
		Version:                  version.Version, Runners: runnerbin.New(web.RunnerDir, version.Version),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("runner API: %w", err)
	}
	au, err := auth.New(auth.Config{DB: d.db, Log: d.log, Settings: auth.SettingsFrom(sh, web), SandboxDev: d.sandboxDev})
	if err != nil {
		return nil, nil, fmt.Errorf("auth: %w", err)
	}
	gql, err := graph.NewHandler(graph.Config{DB: d.db, Log: d.log, Bus: d.bus, Settings: graph.SettingsFrom(sh, web), Auth: au, GitHub: d.github, Models: d.models,
		GitHubWebURL: d.githubWebURL})
	if err != nil {
		return nil, nil, fmt.Errorf("graphql: %w", err)
	}
	ph, err := portal.New(portal.Config{})
	if err != nil {
		return nil, nil, fmt.Errorf("portal: %w", err)
	}
	routes := []server.Route{{Pattern: "POST /webhooks/github", Handler: wh}}
	routes = append(routes, api.Routes()...)
	routes = append(routes, au.Routes()...)
	routes = append(routes, server.Route{Pattern: "GET /graphql", Handler: ph.Explorer(gql)}, server.Route{Pattern: "POST /graphql", Handler: gql})
	routes = append(routes, server.Route{Pattern: "GET /", Handler: ph})
	if d.simPages != nil { // sandbox: the simulated GitHub on the portal's address
		routes = append(routes, server.Route{Pattern: "GET /sim/", Handler: d.simPages}, server.Route{Pattern: "POST /sim/", Handler: d.simPages},
			server.Route{Pattern: "GET /api/sandbox/tour", Handler: d.sandboxTour})
	}
	// Issue 15: metrics read from the database on scrape; the App manifest flow.
	col, err := metrics.New(metrics.Config{DB: d.db, Log: d.log})
	if err != nil {
		return nil, nil, err
	}
	if err := d.registry.Register(col); err != nil {
		return nil, nil, fmt.Errorf("metrics: %w", err)
	}
	setupGitHub := d.setupGitHubURL
	if setupGitHub == "" {
		setupGitHub = config.DefaultGitHubURL
	}
	// Admins only, sandbox mode included: the page writes an App's
	// credentials into the data dir, so whoever completes it chooses the App
	// this install trusts. (With no App at all, `chakshu web` runs setup
	// mode instead, gated by a one-time token: setupmode.go.)
	sp, err := setuppage.New(setuppage.Config{PublicURL: sh.PublicURL, GitHubURL: setupGitHub, WebURL: auth.WebURL(setupGitHub),
		DataDir: sh.DataDir, Log: d.log, Allow: func(r *http.Request) bool {
			v := auth.FromContext(r.Context())
			return v != nil && v.Admin
		}})
	if err != nil {
		return nil, nil, err
	}
	for _, rt := range sp.Routes() {
		routes = append(routes, server.Route{Pattern: rt.Pattern, Handler: au.Middleware(rt.Handler)})
	}
	return routes, wh.Close, nil
}

// workerParts builds every loop `chakshu worker` runs and the heartbeaters of
// what those loops hold.
func workerParts(ctx context.Context, d deps, sh config.SharedPart, wk config.WorkerPart, workerID string) ([]worker.Loop, []func(context.Context, string, time.Time) error, error) {
	syncer, err := reviewerconfig.NewSyncer(reviewerconfig.SyncerConfig{DB: d.db, Clients: d.github, Log: d.log, Models: d.models})
	if err != nil {
		return nil, nil, err
	}
	sync, err := worker.NewReviewerSync(worker.ReviewerSyncConfig{Syncer: syncer, DB: d.db, Bus: d.bus, Log: d.log})
	if err != nil {
		return nil, nil, err
	}
	// The one GitHub write port, shared by every loop that writes (DESIGN §8);
	// the web process gets none (webwrites_test.go).
	// It paces content-creating writes per installation by a budget every
	// worker process shares through the database.
	write := ghwrite.New(d.github, sh.AppSlug, ghwrite.WithBudget(ghwrite.NewDBBudget(d.db,
		ghwrite.Windows(sh.GitHubWritesPerMinute, sh.GitHubWritesPerHour))))
	outcomes, err := metrics.NewWebhookOutcomes(d.registry) // chakshu_webhook_events_processed_total
	if err != nil {
		return nil, nil, fmt.Errorf("metrics: %w", err)
	}
	ev, err := events.New(events.Config{DB: d.db, Bus: d.bus, Log: d.log, GitHub: d.github, Write: write, AppSlug: sh.AppSlug,
		WorkerID: workerID, PollInterval: pollInterval, StaleAfter: sh.DeadWorkerAfter, AllowList: sh.ReviewAllowList,
		ReplyLimitPerPR: wk.ReplyLimitPerPR, ReplyLimitPerUser: wk.ReplyLimitPerUser, Outcomes: outcomes})
	if err != nil {
		return nil, nil, err
	}
	disp, err := worker.NewDispatcher(worker.DispatchConfig{DB: d.db, Log: d.log, Bus: d.bus, GitHub: d.github, Write: write,
		WorkerID: workerID, PublicURL: sh.PublicURL, AppSlug: sh.AppSlug, PollInterval: pollInterval, Models: d.models,
		MaxConcurrentRuns: wk.MaxConcurrentRuns})
	if err != nil {
		return nil, nil, err
	}
	sweep, err := worker.NewSweeper(worker.SweepConfig{DB: d.db, Log: d.log, Bus: d.bus,
		DeadAfter: sh.DeadWorkerAfter, ReportTimeout: wk.RunReportTimeout})
	if err != nil {
		return nil, nil, err
	}
	fin, err := worker.NewFinisher(worker.FinishConfig{DB: d.db, Log: d.log, Bus: d.bus, GitHub: d.github, Write: write, PollInterval: pollInterval,
		InfraFailureConclusion: wk.InfraFailureConclusion})
	if err != nil {
		return nil, nil, err
	}
	pub, err := publish.New(publish.Config{DB: d.db, GitHub: d.github, Write: write, AppSlug: sh.AppSlug, PublicURL: sh.PublicURL, Log: d.log})
	if err != nil {
		return nil, nil, err
	}
	pl, err := worker.NewPublishLoop(worker.PublisherConfig{DB: d.db, Bus: d.bus, Publisher: pub, Log: d.log, Check: write,
		WorkerID: workerID, Poll: pollInterval, StaleAfter: sh.DeadWorkerAfter})
	if err != nil {
		return nil, nil, err
	}
	rec, err := worker.NewRecoverer(worker.RecoverConfig{DB: d.db, Log: d.log, GitHub: ghwrite.Hooks(d.github), AppID: sh.AppID})
	if err != nil {
		return nil, nil, err
	}
	prune, err := worker.NewPruner(worker.PruneConfig{DB: d.db, Log: d.log, Retention: wk.Retention,
		Interval: wk.PruneInterval, Target: wk.PruneWriteTarget})
	if err != nil {
		return nil, nil, err
	}
	bt, err := backtest.New(backtest.Config{DB: d.db, Bus: d.bus, Log: d.log, GitHub: d.github, Write: write, WorkerID: workerID,
		Models: d.models, PublicURL: sh.PublicURL, Poll: pollInterval, StaleAfter: sh.DeadWorkerAfter})
	if err != nil {
		return nil, nil, err
	}
	accts := &worker.AccountBackfill{DB: d.db, Log: d.log, GitHub: d.github}
	loops := []worker.Loop{ev, disp, pl, sweep, fin, sync, rec, prune, bt, accts}
	beats := []func(context.Context, string, time.Time) error{worker.HeartbeatLeases(d.db)}
	return loops, beats, nil
}
