package retention

import "github.com/chakshu-dev/chakshu/internal/store"

// Placeholders is n comma-separated ?s.
func Placeholders(n int) string { return placeholders(n) }

// PruneWrite is one statement pruning writes with: Table is the table whose
// rows its ids name, SQL the statement for three ids (rebound), Args its
// arguments.
type PruneWrite struct {
	Table, SQL string
	Args       []any
}

// PruneWrites are every statement pruning writes with, for ids 1, 2, 3.
func PruneWrites(sdb *store.DB, cut any) []PruneWrite {
	db := conn{sdb}
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
func PayloadsToClear(sdb *store.DB) string {
	db := conn{sdb}
	return db.Rebind(db.payloadsToClear(500))
}
