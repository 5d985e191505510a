package store

import (
	"testing"
	"time"
)

// Placeholders is n comma-separated ?s.
func Placeholders(n int) string { return placeholders(n) }

// WALKeep is the WAL size the intake's checkpointer leaves alone.
const WALKeep = walKeep

// BatchResult is what one delivery of a group commit got.
type BatchResult struct {
	Stored bool
	Err    error
}

// CommitBatch commits ds as one batch of in's group commit, as its flusher
// does, and returns what each delivery got.
func CommitBatch(in *Intake, ds []*Delivery) []BatchResult {
	batch := make([]*storeReq, len(ds))
	for i, d := range ds {
		batch[i] = &storeReq{e: d, done: make(chan storeRes, 1)}
	}
	in.batcher.commit(batch, make([]storeRes, len(batch)))
	out := make([]BatchResult, len(batch))
	for i, r := range batch {
		res := <-r.done
		out[i] = BatchResult{Stored: res.stored, Err: res.err}
	}
	return out
}

// PruneWrite is one statement pruning writes with: Table is the table whose
// rows its ids name, SQL the statement for three ids (rebound), Args its
// arguments.
type PruneWrite struct {
	Table, SQL string
	Args       []any
}

// PruneWrites are every statement pruning writes with, for ids 1, 2, 3.
func PruneWrites(db *DB, cut any) []PruneWrite {
	ids := []any{int64(1), int64(2), int64(3)}
	var out []PruneWrite
	for _, k := range []pruneKind{pruneHandled, pruneFailed, pruneRunEvents, pruneWorkers} {
		out = append(out, PruneWrite{k.table, db.Rebind(db.pruneDelete(k, len(ids))), append(append([]any{}, ids...), cut)})
	}
	out = append(out, PruneWrite{"webhook_events", db.Rebind(db.clearPayloadsSQL(len(ids))), append([]any{[]byte{}}, ids...)})
	out = append(out, PruneWrite{"runs", db.Rebind("SELECT id FROM runs WHERE " + db.prunedRuns(len(ids))), ids})
	for _, q := range db.pruneRunsDeletes(len(ids)) {
		out = append(out, PruneWrite{"runs", db.Rebind(q), ids})
	}
	return out
}

// PayloadsToClear is the query that picks the next payloads to empty.
func PayloadsToClear(db *DB) string { return db.Rebind(db.payloadsToClear(500)) }

// CountRunsSQL is CountRuns's statement for s (rebound) and its arguments.
func CountRunsSQL(db *DB, s RunSet) (string, []any) { return db.countRuns(s) }

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
