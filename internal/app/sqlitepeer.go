package app

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/chakshu-dev/chakshu/internal/store"
)

// awaitSQLiteWorker keeps a `chakshu web` on SQLite from running on a
// database file no worker uses. On SQLite the database is a file in
// CHAKSHU_DATA_DIR, so a web and a worker started apart (the systemd
// template gives each instance its own data dir) may each open a file of
// their own: the web would then store webhooks that nothing ever handles.
// A worker registers in the database it runs on (the workers table), so the
// web, before it serves, waits up to within for a worker that has ever
// registered in its own file and otherwise refuses to start, naming the
// file. A worker that stopped or stopped beating still counts: the file is
// shared, and a web restarted while its worker is down must go on taking
// webhooks for it (they wait in the table until it is back). PostgreSQL
// needs no such check: every process names the database by its URL.
func awaitSQLiteWorker(ctx context.Context, db *store.DB, dataDir string, within, poll time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		n, err := db.Worker.Query().Count(ctx)
		if err != nil {
			return fmt.Errorf("look for a worker on this SQLite database: %w", err)
		}
		if n > 0 {
			return nil
		}
		if !time.Now().Before(deadline) {
			file, _ := filepath.Abs(filepath.Join(dataDir, "chakshu.db"))
			return fmt.Errorf("web on SQLite: no worker has registered in %s within %s; a web and a worker on SQLite must share one database file (the same CHAKSHU_DATA_DIR), or run both as `chakshu all`, or use PostgreSQL (CHAKSHU_DATABASE_URL)", file, within)
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
