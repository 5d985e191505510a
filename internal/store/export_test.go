package store

import (
	"testing"
	"time"
)

// WaitForWriters waits until n more writers than before (the write pool's
// WaitCount then) wait for db's write connection (SQLite).
func WaitForWriters(t testing.TB, db *DB, before int64, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); db.W.Stats().WaitCount-before != int64(n); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d writers wait for the write connection, want %d", db.W.Stats().WaitCount-before, n)
		}
	}
}
