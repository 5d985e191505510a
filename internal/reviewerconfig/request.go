package reviewerconfig

import (
	"context"
	"fmt"
	"time"

	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// RequestSync records that an installation's reviewers should be synced (a
// push to the reviewers repository's default branch, the portal's "sync now")
// and wakes a worker. Any worker performs it; a request survives restarts.
func RequestSync(ctx context.Context, db *store.DB, bus wakeup.Bus, installationID int) error {
	err := db.Installation.UpdateOneID(installationID).SetSyncRequestedAt(time.Now().UTC()).Exec(ctx)
	if err != nil {
		return fmt.Errorf("request reviewers sync: %w", err)
	}
	if bus != nil {
		_ = bus.Notify(ctx, wakeup.TopicSync) // a hint; the loop (worker.ReviewerSync) also polls
	}
	return nil
}

// RequestSyncAll asks for a sync of every installation not suspended and
// not already waiting (the sync loop's start and hourly resync).
func RequestSyncAll(ctx context.Context, db *store.DB) error {
	_, err := db.Installation.Update().
		Where(installation.Suspended(false), installation.SyncRequestedAtIsNil()).
		SetSyncRequestedAt(time.Now().UTC()).Save(ctx)
	if err != nil {
		return fmt.Errorf("request reviewers sync of every installation: %w", err)
	}
	return nil
}
