package retention

import (
	"github.com/chakshu-dev/chakshu/internal/store"

	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Retention bounds what the database keeps (docs/production.md, Retention).
// Each age is measured from when the row was received or created; 0 keeps
// that kind of row for ever.
type Retention struct {
	// WebhookPayloads: a handled (done) event's payload is emptied after this;
	// the row stays for deduplication.
	WebhookPayloads time.Duration
	// WebhookEvents: a handled event's row is deleted after this. It must
	// outlast the window in which GitHub may redeliver it, or a redelivery
	// would be handled twice.
	WebhookEvents time.Duration
	// FailedEvents: a failed event (row and payload) is deleted after this.
	FailedEvents time.Duration
	// RunEvents: a finished run's timeline entries are deleted after this.
	RunEvents time.Duration
	// Runs: a finished run (with its findings and timeline) is deleted after
	// this; the cost rollup keeps its figures.
	Runs time.Duration
	// Workers: a worker row whose last heartbeat is older is deleted.
	Workers time.Duration
	// Batch is how many rows of each kind one PruneBatch removes, each kind
	// in one transaction; 0 means 500. The Pruner lowers it while those
	// transactions are slow (PruneConfig.Target).
	Batch int
}

// Pruned counts what one pass removed.
type Pruned struct {
	Payloads, WebhookEvents, FailedEvents, RunEvents, Runs, Workers int
	// Slowest is the longest any one write transaction held the database's
	// write lock (on PostgreSQL: lasted); the Pruner sizes batches by it.
	Slowest time.Duration
}

// Total is the number of rows changed.
func (p Pruned) Total() int {
	return p.Payloads + p.WebhookEvents + p.FailedEvents + p.RunEvents + p.Runs + p.Workers
}

// Add adds q to p.
func (p *Pruned) Add(q Pruned) {
	p.Payloads += q.Payloads
	p.WebhookEvents += q.WebhookEvents
	p.FailedEvents += q.FailedEvents
	p.RunEvents += q.RunEvents
	p.Runs += q.Runs
	p.Workers += q.Workers
	p.Slowest = max(p.Slowest, q.Slowest)
}

// finishedRunStatuses are the states a run never leaves.
const finishedRunStatuses = "('succeeded', 'failed', 'cancelled')"

// PruneBatch removes at most r.Batch rows of each kind that r says are past
// keeping, each kind in its own short transaction, and returns what it
// removed and how long its slowest transaction held the write lock. Callers repeat it until it removes nothing (Pruner).
// payloadsAfter bounds the payload scan from below (the previous pass's
// progress; the zero time scans from the row retention's cut-off).
func PruneBatch(ctx context.Context, sdb *store.DB, r Retention, now time.Time, payloadsAfter time.Time) (Pruned, time.Time, error) {
	db := conn{sdb}
	var p Pruned
	n := r.Batch
	if n <= 0 {
		n = 500
	}
	now = now.UTC().Round(0)
	var err error
	if r.WebhookPayloads > 0 {
		from := payloadsAfter
		if r.WebhookEvents > 0 && from.Before(now.Add(-r.WebhookEvents)) {
			from = now.Add(-r.WebhookEvents)
		}
		if p.Payloads, payloadsAfter, err = db.clearPayloads(ctx, &p, from, now.Add(-r.WebhookPayloads), n); err != nil {
			return p, payloadsAfter, err
		}
	}
	// Each kind: find the rows by reading (no lock on SQLite's WAL), then,
	// only when there are some, delete them by id in one short write
	// transaction that checks the condition again.
	del := func(k pruneKind, dst *int, age time.Duration) error {
		args := []any{now.Add(-age)}
		ids, err := db.ids(ctx, db.pruneFind(k, n), args...)
		if err != nil || len(ids) == 0 {
			return err
		}
		got, err := db.execWrite(ctx, &p.Slowest, db.Rebind(db.pruneDelete(k, len(ids))), append(ids, args...)...)
		if err != nil {
			return fmt.Errorf("prune %s: %w", k.table, err)
		}
		*dst = int(got)
		return nil
	}
	for _, kind := range []struct {
		k   pruneKind
		age time.Duration
		dst *int
	}{
		{pruneHandled, r.WebhookEvents, &p.WebhookEvents},
		{pruneFailed, r.FailedEvents, &p.FailedEvents},
		{pruneRunEvents, r.RunEvents, &p.RunEvents},
		{pruneWorkers, r.Workers, &p.Workers},
	} {
		if kind.age <= 0 {
			continue
		}
		if err := del(kind.k, kind.dst, kind.age); err != nil {
			return p, payloadsAfter, err
		}
	}
	if r.Runs > 0 {
		if p.Runs, err = db.pruneRuns(ctx, &p.Slowest, now.Add(-r.Runs), n); err != nil {
			return p, payloadsAfter, err
		}
	}
	return p, payloadsAfter, nil
}

// pruneKind is one kind of row pruning deletes: its table, and the
// condition that makes a row past keeping, with one ? for the cut-off time.
// where names each column through col, so the same condition serves to find
// rows through their indexes (asIs) and to check them again, by id, in the
// delete (noIndex).
type pruneKind struct {
	table string
	where func(col func(string) string) string
}

var (
	pruneHandled = pruneKind{"webhook_events", func(c func(string) string) string {
		return c("status") + " = 'done' AND " + c("received_at") + " < ?"
	}}
	pruneFailed = pruneKind{"webhook_events", func(c func(string) string) string {
		return c("status") + " = 'failed' AND " + c("received_at") + " < ?"
	}}
	pruneRunEvents = pruneKind{"run_events", func(c func(string) string) string {
		return c("at") + " < ? AND EXISTS (SELECT 1 FROM runs WHERE runs.id = run_events.run_events AND runs.status IN " + finishedRunStatuses + ")"
	}}
	pruneWorkers = pruneKind{"workers", func(c func(string) string) string { return c("heartbeat_at") + " < ?" }}
)

// pruneFind selects the ids of up to n rows of kind k past keeping (? placeholders).
func (db conn) pruneFind(k pruneKind, n int) string {
	return "SELECT id FROM " + k.table + " WHERE " + k.where(asIs) + " LIMIT " + fmt.Sprint(n)
}

// pruneDelete deletes the rows of kind k among ids ids still past keeping:
// the ids' placeholders first, then the cut-off's.
func (db conn) pruneDelete(k pruneKind, ids int) string {
	return "DELETE FROM " + k.table + " WHERE id IN (" + placeholders(ids) + ") AND " + k.where(db.noIndex)
}

// clearPayloadsSQL empties the payloads of handled events among ids ids
// (the payload's placeholder first).
func (db conn) clearPayloadsSQL(ids int) string {
	return "UPDATE webhook_events SET payload = ? WHERE id IN (" + placeholders(ids) + ") AND " + db.noIndex("status") + " = 'done'"
}

// prunedRuns is the condition on runs that pruneRuns deletes: those among
// ids ids still finished.
func (db conn) prunedRuns(ids int) string {
	return "id IN (" + placeholders(ids) + ") AND " + db.noIndex("status") + " IN " + finishedRunStatuses
}

// payloadScanLeast is the shortest span of receipt times clearPayloads
// scans. Once a pass has caught up, each later batch would otherwise scan the
// few milliseconds received since the previous one, and the scan costs the
// same whether it finds anything or not: on SQLite beside a million rows,
// 0.6 ms at the median, more than the read that finds the rows to delete
// (docs/production.md §6a). Payloads received in the last second before the
// cut-off are cleared up to a second later.
const payloadScanLeast = time.Second

// clearPayloads empties the payloads of handled events received in
// [from, before), oldest first, at most n; it returns how many and the
// receipt time reached (the next call's from).
func (db conn) clearPayloads(ctx context.Context, p *Pruned, from, before time.Time, n int) (int, time.Time, error) {
	if before.Sub(from) < payloadScanLeast {
		return 0, from, nil
	}
	// status is kept out of index choice: through the status index the
	// planner read and sorted every handled event for each batch (3 s a
	// batch at a million rows); through received_at the range is read in
	// order and the LIMIT stops it.
	rows, err := db.SQL.QueryContext(ctx, db.Rebind(db.payloadsToClear(n)), from, before)
	if err != nil {
		return 0, from, fmt.Errorf("prune payloads: %w", err)
	}
	var ids []any
	last := from
	for rows.Next() {
		var id int64
		var at time.Time
		if err := rows.Scan(&id, &at); err != nil {
			rows.Close()
			return 0, from, fmt.Errorf("prune payloads: %w", err)
		}
		ids = append(ids, id)
		last = at
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, from, fmt.Errorf("prune payloads: %w", err)
	}
	if len(ids) == 0 {
		// Nothing left below before: the next pass starts there.
		return 0, before, nil
	}
	k, err := db.execWrite(ctx, &p.Slowest, db.Rebind(db.clearPayloadsSQL(len(ids))), append([]any{[]byte{}}, ids...)...)
	if err != nil {
		return 0, from, fmt.Errorf("prune payloads: %w", err)
	}
	if len(ids) < n {
		last = before
	}
	return int(k), last, nil
}

// payloadsToClear selects up to n handled events with a payload received in
// [?, ?), oldest first.
func (db conn) payloadsToClear(n int) string {
	return `SELECT id, received_at FROM webhook_events
		WHERE received_at >= ? AND received_at < ? AND ` + db.noIndex("status") + ` = 'done' AND ` + db.octetLength("payload") + ` > 0
		ORDER BY received_at LIMIT ` + fmt.Sprint(n)
}

// octetLength is the byte length of a blob column, read from its header on
// PostgreSQL (no decompression of a TOASTed payload).
func (db conn) octetLength(col string) string {
	if db.Postgres() {
		return "octet_length(" + col + ")"
	}
	return "length(" + col + ")"
}

// noIndex is col in a condition that only checks rows found by id again, in
// a form no index answers. The planners would otherwise answer
// "id IN (…) AND status = 'done'" from the status index and read every
// handled event to delete a hundred of them: on SQLite (no statistics
// without ANALYZE) 11 ms for 100 rows among 50,000, growing with the table,
// all under the one write lock the intake waits for; PostgreSQL chose the
// same while its statistics were young. SQLite's idiom is a unary +
// (sqlite.org/optoverview.html, "Disqualifying WHERE clause terms using
// unary-+"); PostgreSQL has no unary + on text, and an expression
// (COALESCE of the column with itself) is not an indexed column either.
func (db conn) noIndex(col string) string {
	if db.Postgres() {
		return "COALESCE(" + col + ", " + col + ")"
	}
	return "+" + col
}

func asIs(col string) string { return col }

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// pruneRuns deletes up to n finished runs created before cut, with their
// findings and timeline, in one transaction that first moves their rollup
// figures into the ledger and adds them back to the rollup, so the delete
// trigger's subtraction leaves the rollup as it was. It runs only while this
// release's triggers are in force (a newer release's triggers may treat a
// delete otherwise; that release prunes).
func (db conn) pruneRuns(ctx context.Context, slowest *time.Duration, cut time.Time, n int) (int, error) {
	have, err := db.RollupTriggers(ctx, db.SQL)
	if err != nil {
		return 0, fmt.Errorf("prune runs: %w", err)
	}
	for v := range have {
		if v != store.RollupVersion {
			return 0, nil
		}
	}
	if len(have) == 0 {
		return 0, nil
	}
	ids, err := db.ids(ctx, "SELECT id FROM runs WHERE status IN "+finishedRunStatuses+" AND created_at < ? LIMIT "+fmt.Sprint(n), cut)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	k, err := db.pruneRunsByID(ctx, slowest, ids)
	if err != nil {
		return 0, fmt.Errorf("prune runs: %w", err)
	}
	return k, nil
}

// pruneRunsByID deletes the runs among ids still finished, in one transaction.
func (db conn) pruneRunsByID(ctx context.Context, slowest *time.Duration, ids []any) (int, error) {
	var k int64
	err := db.pruneTx(ctx, slowest, func(tx *sql.Tx) error {
		in := db.prunedRuns(len(ids))
		if db.Postgres() {
			// Hold the rows: a concurrent update between the copy and the delete
			// would make the trigger subtract other figures than those added.
			if _, err := tx.ExecContext(ctx, db.Rebind("SELECT id FROM runs WHERE "+in+" FOR UPDATE"), ids...); err != nil {
				return err
			}
		}
		// The runs' figures as they are now, inside the transaction that deletes them.
		for _, table := range []string{store.PrunedTable, "cost_rollups"} {
			if err := db.AddRunsTo(ctx, tx, table, in, ids...); err != nil {
				return err
			}
		}
		for _, q := range db.pruneRunsDeletes(len(ids)) {
			res, err := tx.ExecContext(ctx, db.Rebind(q), ids...)
			if err != nil {
				return err
			}
			k, _ = res.RowsAffected() // the last one deletes the runs
		}
		return nil
	})
	return int(k), err
}

// pruneRunsDeletes are pruneRunsByID's deletes, in order, for ids ids: the
// runs' findings, their timelines, the runs.
func (db conn) pruneRunsDeletes(ids int) []string {
	in := db.prunedRuns(ids)
	return []string{
		"DELETE FROM findings WHERE run_findings IN (SELECT id FROM runs WHERE " + in + ")",
		"DELETE FROM run_events WHERE run_events IN (SELECT id FROM runs WHERE " + in + ")",
		"DELETE FROM runs WHERE " + in,
	}
}

// pruneTx runs fn in one write transaction of pruning and raises *slowest to
// how long it held the database's write lock (the wait for it excluded),
// when longer.
//
// On SQLite it runs on the write connection (store.DB), in an immediate
// transaction (store.SQLiteDSN): it takes the write lock first, where an
// autocommit statement that read first could fail with SQLITE_BUSY when a
// write lands between its read and its write. It does not checkpoint inside
// the COMMIT (WriteTx): SQLite runs the automatic checkpoint (copy the WAL's
// pages back and fsync the database, tens of milliseconds once a thousand
// pages have piled up, and pruning's deletes fill them fast) in the COMMIT
// statement, holding the write connection, and with it the webhook intake:
// 100-row deletes at 300,000 rows took 1.5 ms at the median and 36–48 ms at
// most. It checkpoints on a read connection after the write connection is
// free instead (PASSIVE: it never blocks a writer), at most once a second
// (pruneCheckpointEvery): after every transaction, the next ones took three
// times as long (5 ms at the median), writing the WAL again over pages the
// checkpoint had just flushed.
//
// On PostgreSQL its commit does not wait for the WAL's flush
// (synchronous_commit off, for this transaction only): a crash may lose the
// last few hundred milliseconds of pruning, which the next pass simply does
// again (every prune write is idempotent: it checks its condition again), and
// the webhook intake's commits, which do wait for their flush, no longer
// queue behind a prune commit's.
func (db conn) pruneTx(ctx context.Context, slowest *time.Duration, fn func(tx *sql.Tx) error) (err error) {
	if db.Postgres() {
		return db.pgPruneTx(ctx, slowest, fn)
	}
	tx, end, err := db.WriteTx(ctx, store.WriterBackground)
	if err != nil {
		return err
	}
	t0 := time.Now()
	defer func() {
		*slowest = max(*slowest, time.Since(t0))
		end(err)
		if now := time.Now(); db.PruneCheckpointDue(now) {
			db.W.ExecContext(context.WithoutCancel(ctx), "PRAGMA wal_checkpoint(PASSIVE)") //nolint:errcheck // the next one copies what this leaves
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

func (db conn) pgPruneTx(ctx context.Context, slowest *time.Duration, fn func(tx *sql.Tx) error) error {
	t0 := time.Now()
	defer func() { *slowest = max(*slowest, time.Since(t0)) }()
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck
	if _, err := tx.ExecContext(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// execWrite runs one writing statement of pruning in a transaction of its
// own (pruneTx) and returns how many rows it changed.
func (db conn) execWrite(ctx context.Context, slowest *time.Duration, q string, args ...any) (int64, error) {
	var k int64
	err := db.pruneTx(ctx, slowest, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		k, _ = res.RowsAffected()
		return nil
	})
	return k, err
}

// ids reads the ids a query (with ?-placeholders) selects.
func (db conn) ids(ctx context.Context, q string, args ...any) ([]any, error) {
	rows, err := db.SQL.QueryContext(ctx, db.Rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("prune: %w", err)
	}
	defer rows.Close()
	var out []any
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("prune: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
