// Package worker runs Chakshu's background work: it registers the process in
// the workers table, heartbeats, and runs each loop until the context ends:
// dispatch, publishing, sweeps and check finishing, pruning, webhook recovery
// and reviewer sync (stored webhook events are handled by worker/events).
package worker

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/chakshu-dev/chakshu/ent/worker"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// Loop is one kind of background work. Run returns when ctx ends.
type Loop interface {
	Name() string
	Run(ctx context.Context) error
}

// Config builds a Worker.
type Config struct {
	DB  *store.DB
	Log *slog.Logger
	// ID names this worker process; it is the lease owner of what it holds.
	ID string
	// Version is recorded in the workers table.
	Version string
	// HeartbeatInterval is how often the worker row is refreshed (20 s in production).
	HeartbeatInterval time.Duration
	// Loops run side by side.
	Loops []Loop
	// Heartbeaters refresh the leases of what this worker holds, at each beat.
	Heartbeaters []func(ctx context.Context, workerID string, now time.Time) error
}

// Worker is one worker process.
type Worker struct{ cfg Config }

// New validates cfg.
func New(cfg Config) (*Worker, error) {
	if cfg.DB == nil || cfg.Log == nil {
		return nil, fmt.Errorf("worker: DB and Log are required")
	}
	if cfg.ID == "" {
		cfg.ID = NewID()
	}
	if cfg.HeartbeatInterval <= 0 {
		cfg.HeartbeatInterval = 20 * time.Second
	}
	return &Worker{cfg: cfg}, nil
}

// Run registers the worker and runs every loop until ctx ends.
func (w *Worker) Run(ctx context.Context) error {
	host, _ := os.Hostname()
	now := time.Now()
	err := w.cfg.DB.Worker.Create().SetWorkerID(w.cfg.ID).SetHostname(host).SetPid(os.Getpid()).
		SetVersion(w.cfg.Version).SetHeartbeatAt(now).SetStartedAt(now).
		OnConflictColumns(worker.FieldWorkerID).UpdateNewValues().Exec(ctx)
	if err != nil {
		return fmt.Errorf("register worker: %w", err)
	}
	w.cfg.Log.Info("worker started", "worker_id", w.cfg.ID, "loops", len(w.cfg.Loops))
	var wg sync.WaitGroup
	errc := make(chan error, len(w.cfg.Loops))
	for _, l := range w.cfg.Loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Run(ctx); err != nil && ctx.Err() == nil {
				errc <- fmt.Errorf("%s: %w", l.Name(), err)
			}
		}()
	}
	wg.Add(1)
	go func() { defer wg.Done(); w.heartbeat(ctx) }()
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errc:
	}
	wg.Wait()
	// Every loop has returned: hand back what this worker holds, so another
	// worker takes it at once rather than after the dead-worker timeout, and
	// mark the worker stopped.
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if runs, events, err := queue.ReleaseHeld(sctx, w.cfg.DB, w.cfg.ID); err != nil {
		w.cfg.Log.Warn("release leases at stop", "err", err)
	} else if runs+events > 0 {
		w.cfg.Log.Info("released leases at stop", "runs", runs, "webhook_events", events)
	}
	w.cfg.DB.Worker.Update().Where(worker.WorkerID(w.cfg.ID)).SetStopped(true).Exec(sctx) //nolint:errcheck
	return runErr
}

func (w *Worker) heartbeat(ctx context.Context) {
	t := time.NewTicker(w.cfg.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		if err := w.cfg.DB.Worker.Update().Where(worker.WorkerID(w.cfg.ID)).SetHeartbeatAt(now).Exec(ctx); err != nil && ctx.Err() == nil {
			w.cfg.Log.Warn("worker heartbeat", "err", err)
		}
		for _, hb := range w.cfg.Heartbeaters {
			if err := hb(ctx, w.cfg.ID, now); err != nil && ctx.Err() == nil {
				w.cfg.Log.Warn("lease heartbeat", "err", err)
			}
		}
	}
}
