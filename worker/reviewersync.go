package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// ReviewerSyncConfig builds a ReviewerSync.
type ReviewerSyncConfig struct {
	Syncer *reviewerconfig.Syncer
	DB     *store.DB
	Bus    wakeup.Bus
	Log    *slog.Logger
	// Poll is the safety-net poll for requests (default 10 s).
	Poll time.Duration
	// Resync is how often every installation is synced again (default 1 h).
	Resync time.Duration
	// RetryAfter is when a sync that failed on a GitHub error is tried again (default 5 min).
	RetryAfter time.Duration
}

// ReviewerSync is the loop that syncs reviewers (reviewerconfig.Syncer): every
// installation at start and every Resync, and each installation whose sync
// was requested (reviewerconfig.RequestSync).
type ReviewerSync struct{ cfg ReviewerSyncConfig }

// NewReviewerSync validates cfg.
func NewReviewerSync(cfg ReviewerSyncConfig) (*ReviewerSync, error) {
	if cfg.Syncer == nil || cfg.DB == nil || cfg.Bus == nil {
		return nil, errors.New("worker: the reviewers sync needs Syncer, DB and Bus")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 10 * time.Second
	}
	if cfg.Resync <= 0 {
		cfg.Resync = time.Hour
	}
	if cfg.RetryAfter <= 0 {
		cfg.RetryAfter = 5 * time.Minute
	}
	return &ReviewerSync{cfg: cfg}, nil
}

// Name implements Loop.
func (l *ReviewerSync) Name() string { return "reviewers-sync" }

// Run implements Loop: it returns when ctx ends.
func (l *ReviewerSync) Run(ctx context.Context) error {
	wake, cancel := l.cfg.Bus.Subscribe(wakeup.TopicSync)
	defer cancel()
	if err := reviewerconfig.RequestSyncAll(ctx, l.cfg.DB); err != nil && ctx.Err() == nil {
		l.cfg.Log.Warn("reviewers sync", "err", redact.Error(err))
	}
	poll := time.NewTicker(l.cfg.Poll)
	defer poll.Stop()
	resync := time.NewTicker(l.cfg.Resync)
	defer resync.Stop()
	for {
		l.RunPending(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-poll.C:
		case <-resync.C:
			if err := reviewerconfig.RequestSyncAll(ctx, l.cfg.DB); err != nil && ctx.Err() == nil {
				l.cfg.Log.Warn("reviewers sync", "err", redact.Error(err))
			}
		}
	}
}

// RunPending claims and performs every requested sync that is due. It
// returns the number of syncs performed.
func (l *ReviewerSync) RunPending(ctx context.Context) int {
	done := 0
	for ctx.Err() == nil {
		due, err := l.cfg.DB.Installation.Query().
			Where(installation.SyncRequestedAtLTE(time.Now().UTC())).
			Order(ent.Asc(installation.FieldSyncRequestedAt)).Limit(20).IDs(ctx)
		if err != nil {
			if ctx.Err() == nil {
				l.cfg.Log.Warn("reviewers sync: list requests", "err", redact.Error(err))
			}
			return done
		}
		if len(due) == 0 {
			return done
		}
		claimed := 0
		for _, id := range due {
			// Claim: of several workers, the one whose update clears the request syncs.
			n, err := l.cfg.DB.Installation.Update().
				Where(installation.ID(id), installation.SyncRequestedAtLTE(time.Now().UTC())).
				ClearSyncRequestedAt().Save(ctx)
			if err != nil || n == 0 {
				continue
			}
			claimed++
			done++
			rep, err := l.cfg.Syncer.Sync(ctx, id)
			if err == nil || ctx.Err() != nil {
				continue
			}
			// installation_id is GitHub's id, as in every other log line.
			var ghID int64
			if in, gerr := l.cfg.DB.Installation.Get(ctx, id); gerr == nil {
				ghID = in.GithubID
			}
			l.cfg.Log.Warn("reviewers sync failed", "installation_id", ghID, "repo", rep.Repo, "err", redact.Error(err))
			if errors.Is(err, reviewerconfig.ErrNoReviewersRepo) {
				continue // the next push, request or resync tries again
			}
			retry := time.Now().UTC().Add(l.cfg.RetryAfter)
			_, _ = l.cfg.DB.Installation.Update().
				Where(installation.ID(id), installation.SyncRequestedAtIsNil()).
				SetSyncRequestedAt(retry).Save(ctx)
		}
		if claimed == 0 {
			return done // others took them, or the database refuses: the poll comes back
		}
	}
	return done
}
