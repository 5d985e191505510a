package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/store"
)

func openSQLite(t *testing.T, dir string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), store.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// A web on SQLite starts only on a database file a live worker uses: the
// worker's own data dir passes, another data dir (the systemd template's
// default, one per instance) is refused with the file named, and so is a file
// whose only worker stopped or stopped beating.
func TestWebOnSQLiteNeedsAWorkerOnTheSameFile(t *testing.T) {
	ctx := context.Background()
	const within = 300 * time.Millisecond
	register := func(t *testing.T, db *store.DB, id string, beat time.Time, stopped bool) {
		t.Helper()
		db.Worker.Create().SetWorkerID(id).SetHostname("h").SetPid(1).SetVersion("v").
			SetStartedAt(beat).SetHeartbeatAt(beat).SetStopped(stopped).SaveX(ctx)
	}
	cases := []struct {
		name    string
		prepare func(t *testing.T, db *store.DB)
		ok      bool
	}{
		{"a live worker on the same file", func(t *testing.T, db *store.DB) { register(t, db, "w1", time.Now(), false) }, true},
		{"a worker that registers while the web waits", func(t *testing.T, db *store.DB) {
			go func() { time.Sleep(50 * time.Millisecond); register(t, db, "w1", time.Now(), false) }()
		}, true},
		{"no worker on this file", func(*testing.T, *store.DB) {}, false},
		// A web restarted while its worker is down keeps taking webhooks.
		{"only a stopped worker", func(t *testing.T, db *store.DB) { register(t, db, "w1", time.Now(), true) }, true},
		{"only a worker that stopped beating", func(t *testing.T, db *store.DB) { register(t, db, "w1", time.Now().Add(-time.Hour), false) }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db := openSQLite(t, dir)
			tc.prepare(t, db)
			err := awaitSQLiteWorker(ctx, db, dir, within, 20*time.Millisecond)
			if tc.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tc.ok && (err == nil || !strings.Contains(err.Error(), dir+"/chakshu.db")) {
				t.Fatalf("got %v, want a refusal naming %s/chakshu.db", err, dir)
			}
		})
	}
	t.Run("web and worker in two data dirs", func(t *testing.T) {
		workerDir, webDir := t.TempDir(), t.TempDir()
		register(t, openSQLite(t, workerDir), "w1", time.Now(), false)
		if err := awaitSQLiteWorker(ctx, openSQLite(t, webDir), webDir, within, 20*time.Millisecond); err == nil {
			t.Fatal("a web on another file than its worker's started")
		}
	})
}
