package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Writers that wait for one another all write once the holder is done, none
// failing with SQLITE_BUSY: on SQLite they wait for the one write connection
// in database/sql's pool, which hands it over at each release, where
// SQLite's own busy handler would poll at growing intervals (1, 2, 5, 10 …
// 100 ms) and could leave a writer to lose every poll until busy_timeout ran
// out. The pool hands the connection to a waiter picked at random
// (database/sql's connRequestSet.TakeRandom), so the order among waiters is
// not promised. PostgreSQL promises none either: when the holder's
// transaction, which updated the row, commits, each waiter finds the row
// changed and goes after its newest version again (PostgreSQL docs, "Read
// Committed Isolation Level"), and either may get there first.
func TestWaitingWritersAllWrite(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
		tx, err := db.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tx.Installation.UpdateOneID(inst.ID).SetAccountLogin("A").ExecX(ctx)
		done := make(chan error, 2)
		waits := db.W.Stats().WaitCount
		for i, login := range []string{"B", "C"} {
			go func() { done <- db.Installation.UpdateOneID(inst.ID).SetAccountLogin(login).Exec(ctx) }()
			if db.Postgres() {
				waitForLockWaiters(t, db, i+1)
			} else {
				store.WaitForWriters(t, db, waits, i+1)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		if got := db.Installation.GetX(ctx, inst.ID).AccountLogin; got != "B" && got != "C" {
			t.Fatalf("after the holder's commit the row says %q, want B's or C's write", got)
		}
	})
}

// waitForLockWaiters waits until n of this test database's sessions wait
// for a lock on PostgreSQL.
func waitForLockWaiters(t *testing.T, db *store.DB, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		var got int
		if err := db.SQL.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions wait for a lock, want %d", got, n)
		}
	}
}

// On SQLite ent's writes hold the one write connection for as long as
// SQLite's write lock: a transaction from its start to its commit, its
// rollback or its context's end, a statement while it runs (an insert, sent
// as a query for its RETURNING, until its rows are closed); reads outside a
// transaction go to the read pool and do not wait for it; and a writer
// whose context ends while it waits stops waiting.
func TestEntWritesHoldTheWriteConnection(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	ctx := context.Background()
	held := func() bool { return db.W.Stats().InUse == 1 }
	inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
	if held() {
		t.Fatal("an insert kept the write connection after its rows were read")
	}
	db.Installation.UpdateOneID(inst.ID).SetAccountLogin("acme2").ExecX(ctx)
	if held() {
		t.Fatal("an update kept the write connection")
	}

	for _, end := range []string{"commit", "rollback", "context"} {
		tctx, cancel := context.WithCancel(ctx)
		tx, err := db.Tx(tctx)
		if err != nil {
			t.Fatal(err)
		}
		if !held() {
			t.Fatalf("%s: a transaction does not hold the write connection", end)
		}
		if got := db.Installation.GetX(ctx, inst.ID).AccountLogin; got != "acme2" { // a read does not wait
			t.Fatalf("%s: read %q", end, got)
		}
		switch end {
		case "commit":
			err = tx.Commit()
		case "rollback":
			err = tx.Rollback()
		case "context":
			cancel()
			for deadline := time.Now().Add(10 * time.Second); held() && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", end, err)
		}
		if held() {
			t.Fatalf("the write connection outlived the transaction's %s", end)
		}
	}

	tx, err := db.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := db.Installation.UpdateOneID(inst.ID).SetAccountLogin("late").Exec(wctx); err != context.DeadlineExceeded {
		t.Fatalf("a writer waiting past its deadline got %v, want context.DeadlineExceeded", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := db.Installation.GetX(ctx, inst.ID).AccountLogin; got != "acme2" {
		t.Fatalf("login %q after the late writer gave up", got)
	}
}
