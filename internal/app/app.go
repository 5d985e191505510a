// Package app wires Chakshu's processes together from a Config: the one place
// where the database, GitHub, the server and the worker meet.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/version"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/server"
	"github.com/chakshu-dev/chakshu/server/auth"
	"github.com/chakshu-dev/chakshu/worker"
)

// Mode says which process to run.
type Mode string

// Modes.
const (
	ModeWeb    Mode = "web"
	ModeWorker Mode = "worker"
	ModeAll    Mode = "all"
)

// Options start a process.
type Options struct {
	Mode   Mode
	Config *config.Config
	// Stderr receives logs; Stdout the one-line sandbox banner.
	Stderr, Stdout io.Writer
	// Listener, when set, is used instead of listening on Config.Addr (tests bind :0).
	Listener net.Listener
	// InternalListener, when set, is used instead of listening on
	// Config.InternalAddr; when only Listener is set (tests), the internal
	// listener binds 127.0.0.1:0, so tests never contend for one port.
	InternalListener net.Listener
	// Started, when set, is called once the process serves, with the address.
	Started func(addr string)
	// InternalStarted, when set, is called with the internal listener's address.
	InternalStarted func(addr string)
	// Sandbox tunes sandbox mode (seeded history size, model hooks in tests).
	Sandbox SandboxOptions
	// SandboxReady, when set, receives the running sandbox (tests drive it).
	SandboxReady func(*sandbox.Sandbox)
}

// SandboxOptions tune sandbox mode.
type SandboxOptions struct {
	// HistoryRuns is how many past runs to seed; -1 seeds none; 0 means 600.
	HistoryRuns int
	// Validator checks Chakshu's GitHub traffic against GitHub's
	// descriptions (tests: ghsimtest.Spec).
	Validator         ghsim.Validator
	OnValidationError func(error)
	// Model tunes the scripted model.
	Model scriptedmodel.Config
	// Provider is the model provider simulated in front of the scripted
	// model (`chakshu sandbox --provider`; "" is anthropic).
	Provider string
}

// Run runs a process until ctx ends.
func Run(ctx context.Context, o Options) error {
	cfg := o.Config
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	log := logging.New(o.Stderr, cfg.LogLevel, cfg.LogFormat)
	if cfg.Sandbox && !cfg.SandboxExplicit && o.Mode == ModeWeb {
		return runSetupMode(ctx, o, log) // setupmode.go: no App yet, so web serves only /setup
	}
	if o.Mode != ModeWorker {
		if err := cfg.CheckWeb(); err != nil {
			return err
		}
	}
	if cfg.Sandbox {
		addr := cfg.Addr
		if o.Listener != nil {
			addr = o.Listener.Addr().String()
		}
		if err := cfg.SandboxAllowed(addr); err != nil {
			return err
		}
		if err := cfg.EnsureSecretKey(); err != nil {
			return fmt.Errorf("secret key: %w", err)
		}
	}
	db, err := store.Open(ctx, store.Options{DatabaseURL: cfg.DatabaseURL, DataDir: cfg.DataDir, MaxOpenConns: cfg.DatabaseMaxConns})
	if err != nil {
		return err
	}
	defer db.Close()

	// The internal listener comes up first, so /healthz answers during the
	// migration and /readyz says "starting" until the process serves. It
	// stops last, so /readyz says "draining" through the whole drain.
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	health := server.NewHealth(db.Ping)
	iln := o.InternalListener
	if iln == nil {
		iaddr := cfg.InternalAddr
		if o.Listener != nil {
			iaddr = "127.0.0.1:0"
		}
		if iln, err = net.Listen("tcp", iaddr); err != nil {
			return fmt.Errorf("listen on CHAKSHU_INTERNAL_ADDR %s: %w", iaddr, err)
		}
	}
	ictx, stopInternal := context.WithCancel(context.Background())
	internalDone := make(chan struct{})
	go func() {
		defer close(internalDone)
		if err := server.ServeDrain(ictx, iln, server.Internal(server.InternalConfig{Log: log, Health: health, Registry: reg}), log, 2*time.Second); err != nil {
			log.Error("internal listener", "err", err)
		}
	}()
	defer func() { stopInternal(); <-internalDone }()
	log.Info("internal listening", "addr", iln.Addr().String(), "serves", "/metrics /healthz /readyz")
	if o.InternalStarted != nil {
		o.InternalStarted(iln.Addr().String())
	}

	if err := db.Migrate(ctx); err != nil {
		return err
	}
	if o.Mode == ModeWeb && !db.Postgres() {
		log.Info("web on SQLite: waiting for a worker on the same database file", "within", cfg.DeadWorkerAfter.String())
		if err := awaitSQLiteWorker(ctx, db, cfg.DataDir, cfg.DeadWorkerAfter, time.Second); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var ln net.Listener
	if o.Mode != ModeWorker {
		if ln = o.Listener; ln == nil {
			if ln, err = net.Listen("tcp", cfg.Addr); err != nil {
				return fmt.Errorf("listen on CHAKSHU_ADDR %s: %w", cfg.Addr, err)
			}
		}
	}

	if ln != nil {
		cfg = cfg.ServedOn(ln.Addr().String())
	}

	// The GitHub the setup page creates an App on: the configured one (an
	// Enterprise Server host too), even in sandbox mode, which points
	// GitHubURL at the simulator below.
	setupGitHub := cfg.GitHubURL
	var sb *sandbox.Sandbox
	if cfg.Sandbox {
		if o.Mode != ModeAll {
			return errors.New("sandbox mode runs as `chakshu all`: configure a GitHub App (CHAKSHU_APP_ID, CHAKSHU_PRIVATE_KEY) to run web and worker apart")
		}
		sb, err = sandbox.Start(sandbox.Options{
			AppSlug: cfg.AppSlug, WebhookSecret: cfg.WebhookSecrets[0], Log: log.With("component", "sandbox"),
			RunnerLogDir: filepath.Join(cfg.DataDir, "actions-logs"),
			PagesURL:     cfg.PublicURL, // the simulated GitHub's pages on Chakshu's own address, so links survive a restart
			Validator:    o.Sandbox.Validator, OnValidationError: o.Sandbox.OnValidationError, Model: o.Sandbox.Model,
			Provider: o.Sandbox.Provider,
		})
		if err != nil {
			return err
		}
		defer sb.Close()
		cfg = sb.Config(*cfg) // the simulated App, GitHub and model in place of the real ones
	}

	apps, err := newGitHub(gh.Config{AppID: cfg.AppID, PrivateKey: cfg.PrivateKey, BaseURL: cfg.GitHubURL, GraphQLURL: cfg.GitHubGraphQLURL}, reg)
	if err != nil {
		return err
	}
	base := models.Builtin()
	if sb != nil {
		if base, err = sb.Catalog(base); err != nil {
			return err
		}
	}
	cat, err := models.NewSourceOver(base, cfg.ModelCatalog)
	if err != nil {
		return err
	}
	d := deps{db: db, bus: wakeup.New(ctx, db, log), log: log, github: apps, registry: reg, models: cat, setupGitHubURL: setupGitHub}
	runstate.NotifyLiveUpdates(db.Client, d.bus) // every run status change wakes the portal's live updates
	if sb != nil {
		d.sandboxDev = auth.SandboxDev{Login: sandbox.Dev, Token: sb.Sim.UserToken}
		d.githubWebURL = sb.Sim.PagesURL() // the simulator's pull request, check and Actions pages
		d.simPages, d.sandboxTour = sb.Sim.PagesHandler(), sb.TourHandler()
	}

	var wg sync.WaitGroup
	errs := make(chan error, 2)
	if o.Mode == ModeWeb || o.Mode == ModeAll {
		routes, closeWeb, err := webRoutes(d, cfg.SharedPart, cfg.WebPart)
		if err != nil {
			return err
		}
		defer closeWeb()
		h := server.Handler(server.Config{Log: log, Health: health, Routes: routes})
		log.Info("web listening", "addr", ln.Addr().String(), "public_url", cfg.PublicURL, "sandbox", cfg.Sandbox)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := server.ServeDrain(ctx, ln, h, log, cfg.DrainTimeout); err != nil {
				errs <- fmt.Errorf("web: %w", err)
			}
		}()
	}
	if o.Mode == ModeWorker || o.Mode == ModeAll {
		id := worker.NewID()
		loops, beats, err := workerParts(ctx, d, cfg.SharedPart, cfg.WorkerPart, id)
		if err != nil {
			return err
		}
		w, err := worker.New(worker.Config{DB: db, Log: log, ID: id, Version: version.Version,
			HeartbeatInterval: cfg.HeartbeatInterval, Loops: loops, Heartbeaters: beats})
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(ctx); err != nil {
				errs <- fmt.Errorf("worker: %w", err)
			}
		}()
	}
	if sb != nil {
		sb.Connect(cfg.PublicURL, cfg.OIDCAudience)
		n := o.Sandbox.HistoryRuns
		if n == 0 {
			n = 600
		}
		if err := sb.SeedHistory(ctx, db, n); err != nil {
			log.Warn("sandbox: seed history", "err", err)
		}
		if n > 0 { // the tests that seed no history see no backtest either
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := sb.SeedBacktest(ctx, db); err != nil {
					log.Warn("sandbox: seed a backtest", "err", err)
				}
			}()
		}
		fmt.Fprint(o.Stdout, sandboxBanner(cfg.PublicURL, sb))
		if o.SandboxReady != nil {
			o.SandboxReady(sb)
		}
	}
	// Start-up leaves garbage behind (the migration, parsing, the sandbox's
	// seeded history) that an idle process would otherwise keep resident
	// until its heap next doubles: collect it and return the free pages to the
	// OS once, so the idle footprint is what the process holds (DESIGN §11).
	db.ReleaseIdle()
	debug.FreeOSMemory()
	health.Start()
	if o.Started != nil && ln != nil {
		o.Started(ln.Addr().String())
	}
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errs:
		cancel()
	}
	// Readiness turns 503 at once; web stops accepting and lets what is in
	// flight (relayed model streams too) finish within CHAKSHU_DRAIN_TIMEOUT;
	// the worker's loops stop and it hands back what it holds.
	health.Drain()
	log.Info("draining", "drain_timeout", cfg.DrainTimeout.String())
	wg.Wait()
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr
	}
	log.Info("stopped")
	return nil
}
