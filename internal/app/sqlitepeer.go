package app

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/chakshu-dev/chakshu/ent/worker"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// awaitSQLiteWorker keeps a `chakshu web` on SQLite from running on a
// database file no worker uses. On SQLite the database is a file in
// CHAKSHU_DATA_DIR, so a web and a worker started apart (the systemd
// template gives each instance its own data dir) may each open a file of
// their own: the web would then store webhooks that nothing ever handles.
// A worker registers in the database it runs on (the workers table) and
// beats every CHAKSHU_HEARTBEAT_INTERVAL, so the web, before it serves,
// waits up to within for a live (not stopped, recently beating) worker in
// its own file and otherwise refuses to start, naming the file. PostgreSQL
// needs no such check: every process names the database by its URL.
func awaitSQLiteWorker(ctx context.Context, db *store.DB, dataDir string, within, poll time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		n, err := db.Worker.Query().
			Where(worker.Stopped(false), worker.HeartbeatAtGT(time.Now().Add(-within))).
			Count(ctx)
		if err != nil {
			return fmt.Errorf("look for a worker on this SQLite database: %w", err)
		}
		if n > 0 {
			return nil
		}
		if !time.Now().Before(deadline) {
			file, _ := filepath.Abs(filepath.Join(dataDir, "chakshu.db"))
			return fmt.Errorf("web on SQLite: no worker has run on %s in the last %s; a web and a worker on SQLite must share one database file (the same CHAKSHU_DATA_DIR), or run both as `chakshu all`, or use PostgreSQL (CHAKSHU_DATABASE_URL)", file, within)
		}
		t := time.NewTimer(min(poll, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
