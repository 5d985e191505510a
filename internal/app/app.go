// Package app wires Chakshu's processes together from a Config: the one place
// where the database, GitHub, the server and the worker meet.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"

	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/server"
	"github.com/chakshu-dev/chakshu/worker"
)

// Version is set at build time.
var Version = "dev"

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
	// Stderr receives logs.
	Stderr io.Writer
	// Listener, when set, is used instead of listening on Config.Addr (tests bind :0).
	Listener net.Listener
	// Started, when set, is called once the process serves, with the address.
	Started func(addr string)
}

// Run runs a process until ctx ends.
func Run(ctx context.Context, o Options) error {
	cfg := o.Config
	log := logging.New(o.Stderr, cfg.LogLevel, cfg.LogFormat)
	slog.SetDefault(log)
	if cfg.Sandbox {
		if err := cfg.EnsureSecretKey(); err != nil {
			return fmt.Errorf("secret key: %w", err)
		}
	}
	db, err := store.Open(ctx, store.Options{DatabaseURL: cfg.DatabaseURL, DataDir: cfg.DataDir})
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	if o.Mode == ModeWeb || o.Mode == ModeAll {
		ln := o.Listener
		if ln == nil {
			if ln, err = net.Listen("tcp", cfg.Addr); err != nil {
				return fmt.Errorf("listen on CHAKSHU_ADDR %s: %w", cfg.Addr, err)
			}
		}
		h := server.Handler(server.Config{Log: log, Ready: db.Ping})
		log.Info("web listening", "addr", ln.Addr().String(), "public_url", cfg.PublicURL, "sandbox", cfg.Sandbox)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := server.Serve(ctx, ln, h, log); err != nil {
				errs <- fmt.Errorf("web: %w", err)
			}
		}()
		if o.Started != nil {
			o.Started(ln.Addr().String())
		}
	}
	if o.Mode == ModeWorker || o.Mode == ModeAll {
		w, err := worker.New(worker.Config{DB: db, Log: log, Version: Version, HeartbeatInterval: cfg.HeartbeatInterval})
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
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errs:
		cancel()
	}
	wg.Wait()
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr
	}
	log.Info("stopped")
	return nil
}
