package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Writers that wait for one another on SQLite write in the order they came:
// they wait at the write gate, which hands the turn to the longest waiting
// at each release; SQLite's own busy handler would wake whichever writer
// polled next, and the younger one polls more often (1, 2, 5, 10 … ms
// against 25, 50, 100 ms), so C went before B. PostgreSQL promises no order
// here: when the holder's transaction, which updated the row, commits, each
// waiter finds the row changed and goes after its newest version again
// (PostgreSQL docs, "Read Committed Isolation Level": "the second updater …
// will attempt to apply its operation to the updated version of the row"),
// and with two waiters either may get there first (C did, in CI). There
// both writes must land once the holder commits.
func TestWritersWaitInOrder(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
		tx, err := db.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tx.Installation.UpdateOneID(inst.ID).SetAccountLogin("A").ExecX(ctx)
		done := make(chan error, 2)
		for i, login := range []string{"B", "C"} {
			go func() { done <- db.Installation.UpdateOneID(inst.ID).SetAccountLogin(login).Exec(ctx) }()
			if db.Postgres() {
				waitForLockWaiters(t, db, i+1)
			} else {
				store.WaitForWriters(t, i+1)
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
		got := db.Installation.GetX(ctx, inst.ID).AccountLogin
		if db.Postgres() {
			if got != "B" && got != "C" {
				t.Fatalf("after the holder's commit the row says %q, want B's or C's write", got)
			}
			return
		}
		if got != "C" {
			t.Fatalf("the last write was %s's, want C's: C, which came last, went first", got)
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

// On SQLite ent's writes hold the turn for as long as SQLite's write lock:
// a transaction from its start to its commit, its rollback or its context's
// end, a statement while it runs (an insert, sent as a query for its
// RETURNING, until its rows are closed), and reads outside a transaction do
// not wait for it.
func TestEntWritesHoldTheTurn(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	ctx := context.Background()
	inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
	if store.WriteTurnHeld(db) {
		t.Fatal("an insert kept the turn after its rows were read")
	}
	db.Installation.UpdateOneID(inst.ID).SetAccountLogin("acme2").ExecX(ctx)
	if store.WriteTurnHeld(db) {
		t.Fatal("an update kept the turn")
	}

	for _, end := range []string{"commit", "rollback", "context"} {
		tctx, cancel := context.WithCancel(ctx)
		tx, err := db.Tx(tctx)
		if err != nil {
			t.Fatal(err)
		}
		if !store.WriteTurnHeld(db) {
			t.Fatalf("%s: a transaction does not hold the turn", end)
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
			for deadline := time.Now().Add(10 * time.Second); store.WriteTurnHeld(db) && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", end, err)
		}
		if store.WriteTurnHeld(db) {
			t.Fatalf("the turn outlived the transaction's %s", end)
		}
	}

	// A writer whose context ends while another holds the turn stops waiting.
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
