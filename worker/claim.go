package worker

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/chakshu-dev/chakshu/internal/store"
)

// NewID returns a worker id unique to this process.
func NewID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d-%x", host, os.Getpid(), time.Now().UnixNano()&0xffffff)
}

// ClaimRun leases the oldest run in status that nobody holds and whose
// next attempt is due, for owner. It returns 0 when there is none. On
// PostgreSQL the inner SELECT skips rows other workers are claiming right now
// (FOR UPDATE SKIP LOCKED); on SQLite the single writer makes the conditional
// UPDATE the claim.
func ClaimRun(ctx context.Context, db *store.DB, owner, status string, now time.Time) (int, error) {
	lock := ""
	if db.Postgres() {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	q := db.Rebind(`UPDATE runs SET lease_owner = ?, heartbeat_at = ?, attempts = attempts + 1
		WHERE id = (SELECT id FROM runs WHERE status = ? AND lease_owner = ''
			AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
			ORDER BY created_at, id LIMIT 1` + lock + `)
		AND lease_owner = '' AND status = ?
		RETURNING id`)
	var id int
	err := db.SQL.QueryRowContext(ctx, q, owner, now, status, now, status).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("claim %s run: %w", status, err)
	}
	return id, nil
}

// HeartbeatRuns refreshes the leases owner holds; use it as a Config.Heartbeaters entry.
func HeartbeatRuns(db *store.DB) func(ctx context.Context, owner string, now time.Time) error {
	return func(ctx context.Context, owner string, now time.Time) error {
		_, err := db.SQL.ExecContext(ctx, db.Rebind(`UPDATE runs SET heartbeat_at = ? WHERE lease_owner = ?`), now, owner)
		return err
	}
}

// Release gives a held run back to the queue, to be tried again after delay.
func Release(ctx context.Context, db *store.DB, id int, owner string, delay time.Duration) error {
	_, err := db.SQL.ExecContext(ctx, db.Rebind(`UPDATE runs SET lease_owner = '', next_attempt_at = ? WHERE id = ? AND lease_owner = ?`),
		time.Now().Add(delay), id, owner)
	return err
}

// Wait blocks until a wake-up, the poll interval, or the end of ctx; false on the end.
func Wait(ctx context.Context, wake <-chan struct{}, poll time.Duration) bool {
	t := time.NewTimer(poll)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-wake:
		return true
	case <-t.C:
		return true
	}
}
