package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/ent/backtest"
	"github.com/chakshu-dev/chakshu/ent/predicate"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// Leases (DESIGN §3): a worker claims a row of a queue table under its id
// (lease_owner) and heartbeats it (heartbeat_at) while it works; it releases
// the row when done, and another worker takes over a row whose heartbeat went
// silent. This file is the one implementation of that for every queue: runs
// waiting for dispatch, runs waiting to be published, and stored webhook events.

// Queue is one kind of leased work: the rows of a table in a given status.
type Queue struct {
	name  string
	table string
	// free is the status of a row waiting to be claimed; held the status it
	// is in while a worker holds it (the same for runs, whose status the
	// holder moves on).
	free, held string
	// order is the claim order among due rows (columns of alias t).
	order string
	// attempts: a claim counts an attempt (the attempts column).
	attempts bool
	// fair: claims go round the installations (runs only).
	fair bool
	// where narrows the rows of the queue further (columns of alias t).
	where string
}

var (
	// QueuedRuns are runs waiting for a worker to dispatch them. A claim
	// counts a dispatch attempt and is fair across installations.
	QueuedRuns = Queue{name: "queued run", table: "runs", free: "queued", held: "queued",
		order: "t.created_at, t.id", attempts: true, fair: true}
	// PublishingRuns are runs whose result is waiting to be published, oldest report first.
	PublishingRuns = Queue{name: "publishing run", table: "runs", free: "publishing", held: "publishing",
		order: "t.reported_at, t.id"}
	// WebhookEvents are stored deliveries waiting to be handled, oldest first;
	// a claim counts an attempt and moves the event to processing.
	WebhookEvents = Queue{name: "webhook event", table: "webhook_events", free: "pending", held: "processing",
		order: "t.received_at, t.id", attempts: true}
	// QueuedBacktests are backtests waiting for a worker to load the change
	// and queue their shadow runs, oldest first.
	QueuedBacktests = Queue{name: "queued backtest", table: "backtests", free: "queued", held: "queued",
		order: "t.created_at, t.id"}
	// RunningBacktests are backtests whose shadow runs are under way: a
	// worker looks at one when it is due, queues what it may, and reports it
	// when every run finished.
	RunningBacktests = Queue{name: "running backtest", table: "backtests", free: "running", held: "running",
		order: "t.next_attempt_at, t.id"}
	// CancelledBacktests are cancelled backtests whose check run is still to
	// be completed on GitHub.
	CancelledBacktests = Queue{name: "cancelled backtest", table: "backtests", free: "cancelled", held: "cancelled",
		order: "t.updated_at, t.id", where: "t.check_completed = FALSE"}
)

// queues is every queue a worker may hold rows of.
var queues = []Queue{QueuedRuns, PublishingRuns, WebhookEvents, QueuedBacktests, RunningBacktests, CancelledBacktests}

// inFlight counts, per installation, the runs under way: dispatched to
// Actions, running, publishing, or held by a dispatcher right now. Two
// indexable halves rather than one OR, so neither scans the history.
// The held half reads run_held_by_repository (by name on SQLite, which
// without statistics would rather walk every queued run).
func (db conn) inFlight() string {
	held := "runs"
	if !db.Postgres() {
		held = "runs INDEXED BY run_held_by_repository"
	}
	return `SELECT p.installation_repositories AS inst, COUNT(*) AS n FROM (
	SELECT repository_runs AS repo FROM runs WHERE status IN ('dispatched','running','publishing')
	UNION ALL
	SELECT repository_runs FROM ` + held + ` WHERE status = 'queued' AND lease_owner <> ''
) f JOIN repositories p ON p.id = f.repo GROUP BY p.installation_repositories`
}

// claimable is the condition a row of q must meet to be claimed, with its
// arguments: waiting and due, or held under a lease silent since stale (when
// staleAfter > 0).
func (q Queue) claimable(now time.Time, staleAfter time.Duration) (string, []any) {
	cond := fmt.Sprintf(`(t.status = '%s' AND t.lease_owner = '' AND (t.next_attempt_at IS NULL OR t.next_attempt_at <= ?))`, q.free)
	args := []any{now}
	if staleAfter > 0 {
		cond = fmt.Sprintf(`(%s OR (t.status = '%s' AND t.lease_owner <> '' AND (t.heartbeat_at IS NULL OR t.heartbeat_at < ?)))`,
			cond, q.held)
		args = append(args, now.Add(-staleAfter))
	}
	if q.where != "" {
		cond = "(" + cond + " AND " + q.where + ")"
	}
	return cond, args
}

// Claim leases the next row of q for owner and returns its id, 0 when none is
// due. A row is due when it waits and its next_attempt_at has come, or, with
// staleAfter > 0, when its holder has not heartbeated for staleAfter (a dead
// worker's row is taken over at once). On PostgreSQL the candidate is picked
// with FOR UPDATE SKIP LOCKED, so concurrent claimers pass over each other's
// rows; on SQLite the single writer makes the conditional UPDATE the claim.
//
// QueuedRuns are fair across installations (claimFair).
func Claim(ctx context.Context, sdb *store.DB, q Queue, owner string, now time.Time, staleAfter time.Duration) (int, error) {
	db := conn{sdb}
	if q.fair {
		return db.claimFair(ctx, q, owner, now, staleAfter)
	}
	return db.claimIn(ctx, db.W, q, owner, now, staleAfter, 0)
}

// rowQuerier is a database or a transaction.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// queuedRuns is the runs table as the fair claim reads it: on SQLite through
// run_queued_by_repository by name when only waiting rows count (without
// statistics SQLite would rather walk every queued run by lease_owner).
func (db conn) queuedRuns(staleAfter time.Duration) string {
	if db.Postgres() || staleAfter > 0 {
		return "runs t"
	}
	return "runs t INDEXED BY run_queued_by_repository"
}

// dueRunOf selects the due runs (cond) of installation inst (an SQL
// expression). Each planner gets the shape it walks by index: SQLite a
// lookup of the installation's repositories in run_queued_by_repository,
// PostgreSQL a join (it plans the IN form as a scan per installation).
func (db conn) dueRunOf(inst, cond string, staleAfter time.Duration) string {
	if db.Postgres() {
		return `SELECT 1 FROM runs t JOIN repositories p ON p.id = t.repository_runs
			WHERE p.installation_repositories = ` + inst + ` AND ` + cond
	}
	return `SELECT 1 FROM ` + db.queuedRuns(staleAfter) + `
		WHERE t.repository_runs IN (SELECT id FROM repositories WHERE installation_repositories = ` + inst + `) AND ` + cond
}

// claimIn claims the first due row of q in q's order; with inst > 0 only a
// run of that installation (its repositories').
func (db conn) claimIn(ctx context.Context, tx rowQuerier, q Queue, owner string, now time.Time, staleAfter time.Duration, inst int) (int, error) {
	cond, condArgs := q.claimable(now, staleAfter)
	from, pick := q.table+" t", cond
	pickArgs := condArgs
	if inst > 0 {
		from = db.queuedRuns(staleAfter)
		pick = cond + " AND t.repository_runs IN (SELECT id FROM repositories WHERE installation_repositories = ?)"
		pickArgs = append(slices.Clone(condArgs), inst)
	}
	lock := ""
	if db.Postgres() {
		lock = " FOR UPDATE OF t SKIP LOCKED"
	}
	set := "lease_owner = ?, heartbeat_at = ?"
	if q.held != q.free {
		set += fmt.Sprintf(", status = '%s'", q.held)
	}
	if q.attempts {
		set += ", attempts = attempts + 1"
	}
	// The outer UPDATE names the table t too, so the same condition applies.
	query := db.Rebind(`UPDATE ` + q.table + ` AS t SET ` + set + `
		WHERE t.id = (SELECT t.id FROM ` + from + ` WHERE ` + pick + ` ORDER BY ` + q.order + ` LIMIT 1` + lock + `)
		AND ` + cond + ` RETURNING id`)
	args := append([]any{owner, now}, pickArgs...)
	args = append(args, condArgs...)
	var id int
	err := tx.QueryRowContext(ctx, query, args...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("claim %s: %w", q.name, err)
	}
	return id, nil
}

// claimFair claims in two steps, each a short walk of an index rather than
// a sort of every queued run: first the installation, among those with a due
// run and not held back (HoldStarts, or GitHub's recorded wait): the one with
// the fewest runs in flight, ties going to the one claimed longest ago
// (round-robin; never claimed first, then the lowest id), and stamped as
// claimed now; then that installation's oldest due run. One installation
// flooding the queue therefore gets one claim in turn with the others, not
// every claim its older runs would win. On PostgreSQL the installation row is
// taken with SKIP LOCKED, so concurrent claimers pick different ones; one
// whose runs another claimer just took is passed over for the next.
func (db conn) claimFair(ctx context.Context, q Queue, owner string, now time.Time, staleAfter time.Duration) (int, error) {
	cond, condArgs := q.claimable(now, staleAfter)
	lock := ""
	if db.Postgres() {
		lock = " FOR UPDATE OF i SKIP LOCKED"
	}
	// One transaction: one commit for the stamp and the claim.
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("claim %s: %w", q.name, err)
	}
	defer tx.Rollback() //nolint:errcheck
	var tried []string
	for range 3 {
		skip := ""
		if len(tried) > 0 {
			skip = " AND i.id NOT IN (" + strings.Join(tried, ",") + ")"
		}
		// Held back only for new work: a held run gone stale is taken over.
		held := "(i.starts_held_until IS NULL OR i.starts_held_until <= ?) AND (i.github_wait_until IS NULL OR i.github_wait_until <= ?)"
		if staleAfter > 0 {
			held = "TRUE"
		}
		query := db.Rebind(`UPDATE installations SET last_claim_at = ? WHERE id = (
			SELECT i.id FROM installations i LEFT JOIN (` + db.inFlight() + `) busy ON busy.inst = i.id
			WHERE ` + held + skip + ` AND EXISTS (` + db.dueRunOf("i.id", cond, staleAfter) + `)
			ORDER BY COALESCE(busy.n, 0), i.last_claim_at IS NOT NULL, i.last_claim_at, i.id LIMIT 1` + lock + `) RETURNING id`)
		args := []any{now}
		if staleAfter <= 0 {
			args = append(args, now, now)
		}
		args = append(args, condArgs...)
		var inst int
		err := tx.QueryRowContext(ctx, query, args...).Scan(&inst)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("claim %s: pick the installation: %w", q.name, err)
		}
		id, err := db.claimIn(ctx, tx, q, owner, now, staleAfter, inst)
		if err != nil {
			return 0, err
		}
		if id != 0 {
			if err := tx.Commit(); err != nil {
				return 0, fmt.Errorf("claim %s: %w", q.name, err)
			}
			return id, nil
		}
		tried = append(tried, strconv.Itoa(inst))
	}
	return 0, nil
}

// HoldStarts keeps the queued runs of installation inst (its ent id) from
// being claimed for dispatch before until: what a dispatcher does when the
// installation's budget for starting reviews is spent, so the claims go to
// other installations meanwhile instead of handing back run after run.
func HoldStarts(ctx context.Context, sdb *store.DB, inst int, until time.Time) error {
	db := conn{sdb}
	_, err := db.ExecWrite(ctx, db.Rebind(`UPDATE installations SET starts_held_until = ?
		WHERE id = ? AND (starts_held_until IS NULL OR starts_held_until < ?)`), until, inst, until)
	if err != nil {
		return fmt.Errorf("hold starts of installation %d: %w", inst, err)
	}
	return nil
}

// Heartbeat refreshes the leases owner holds in the given queues (every
// queue when none is named): what a worker does every 20 s (DESIGN §3).
func Heartbeat(ctx context.Context, sdb *store.DB, owner string, now time.Time, qs ...Queue) error {
	db := conn{sdb}
	if len(qs) == 0 {
		qs = queues
	}
	byTable := map[string][]string{}
	var tables []string
	for _, q := range qs {
		if byTable[q.table] == nil {
			tables = append(tables, q.table)
		}
		byTable[q.table] = append(byTable[q.table], "'"+q.held+"'")
	}
	for _, table := range tables {
		_, err := db.ExecWrite(ctx, db.Rebind(`UPDATE `+table+` SET heartbeat_at = ?
			WHERE lease_owner = ? AND status IN (`+strings.Join(byTable[table], ",")+`)`), now, owner)
		if err != nil {
			return fmt.Errorf("heartbeat %s: %w", table, err)
		}
	}
	return nil
}

// Release gives a run of q that owner holds back to the queue, due at due.
// It reports whether owner still held it.
func Release(ctx context.Context, sdb *store.DB, q Queue, id int, owner string, due time.Time) (bool, error) {
	db := conn{sdb}
	res, err := db.ExecWrite(ctx, db.Rebind(`UPDATE `+q.table+` SET lease_owner = '', status = ?, next_attempt_at = ?
		WHERE id = ? AND lease_owner = ? AND status = ?`), q.free, due, id, owner, q.held)
	if err != nil {
		return false, fmt.Errorf("release %s %d: %w", q.name, id, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// HeldRun selects run id while owner holds it in q: the condition of an
// update that records the outcome of the work and lets go of the run
// (set lease_owner to "") in one statement.
func HeldRun(q Queue, id int, owner string) predicate.Run {
	return run.And(run.ID(id), run.StatusEQ(run.Status(q.held)), run.LeaseOwner(owner))
}

// HeldEvent selects webhook event id while owner holds it, as HeldRun.
func HeldEvent(id int, owner string) predicate.WebhookEvent {
	return webhookevent.And(webhookevent.ID(id), webhookevent.StatusEQ(webhookevent.Status(WebhookEvents.held)),
		webhookevent.LeaseOwner(owner))
}

// HeldBacktest selects backtest id while owner holds it, whatever its status
// now (a webhook may cancel a held backtest): the condition of an update that
// records the outcome of the work and lets go (lease_owner "").
func HeldBacktest(id int, owner string) predicate.Backtest {
	return backtest.And(backtest.ID(id), backtest.LeaseOwner(owner))
}

// Requeued counts what RequeueDead took back.
type Requeued struct{ Runs, Events, Backtests int }

// RequeueDead takes back every lease whose holder has not heartbeated since
// cutoff (a dead worker's): its rows wait again, due at once.
func RequeueDead(ctx context.Context, sdb *store.DB, cutoff time.Time) (Requeued, error) {
	db := conn{sdb}
	return db.takeBack(ctx, "lease_owner <> '' AND (heartbeat_at IS NULL OR heartbeat_at < ?)", cutoff)
}

// takeBack frees every held run and webhook event matching cond (one ?
// argument, arg): runs keep their status, events go back to pending, and
// both are due at once. RequeueDead and ReleaseHeld differ only in cond.
func (db conn) takeBack(ctx context.Context, cond string, arg any) (Requeued, error) {
	var out Requeued
	for _, t := range []struct {
		table, free string
		held        []string
		n           *int
	}{
		{"runs", "", []string{QueuedRuns.held, PublishingRuns.held}, &out.Runs},
		{"webhook_events", WebhookEvents.free, []string{WebhookEvents.free, WebhookEvents.held}, &out.Events},
		{"backtests", "", []string{QueuedBacktests.held, RunningBacktests.held, CancelledBacktests.held}, &out.Backtests},
	} {
		set := "lease_owner = '', next_attempt_at = NULL"
		if t.free != "" {
			set += fmt.Sprintf(", status = '%s'", t.free)
		}
		res, err := db.ExecWrite(ctx, db.Rebind(`UPDATE `+t.table+` SET `+set+`
			WHERE `+cond+` AND status IN ('`+strings.Join(t.held, "','")+`')`), arg)
		if err != nil {
			return out, fmt.Errorf("take back %s: %w", t.table, err)
		}
		n, _ := res.RowsAffected()
		*t.n = int(n)
	}
	return out, nil
}

// ReleaseHeld gives back every lease owner holds, as the sweep does for a
// dead worker: runs waiting for dispatch or publishing go back to the queue,
// webhook events back to pending.
func ReleaseHeld(ctx context.Context, sdb *store.DB, owner string) (runs, events int64, err error) {
	db := conn{sdb}
	got, err := db.takeBack(ctx, "lease_owner = ?", owner)
	return int64(got.Runs), int64(got.Events), err
}
