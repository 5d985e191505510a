package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// On SQLite the webhook intake and pruning take turns at one write lock
// (writegate.go). A prune transaction, short as it is (10 rows, 0.3–0.5 ms on
// an idle machine), held it 1.5–4 ms and at times 13–21 ms beside an intake
// at 2,000 deliveries/s on two cores, and the intake's commits that came
// meanwhile waited for it (docs/production.md §6a). So while the intake is
// busy, pruning's webhook writes ride in the intake's own commits instead, a
// row or a few at a time, after the batch's inserts and before its COMMIT.
// No delivery then waits for a transaction of pruning's, and each commit
// that carries some prune work is longer by that work only (rows).
// Measured there (BenchmarkIntakeWhilePruning at 2,000 deliveries/s, five
// 2 s windows each side): commits that waited over 1 ms while pruning went
// from 27–71 a run to none, pruning went 3.5 times as fast (about 1,000
// rows/s), the p99 stayed within the noise of runs taking turns (5.5 and
// 7.4 ms against 7.6–14.6), and the median rose by about 0.1 ms.
//
// Pruning still finds the rows itself, by reading, and checks them again in
// the write as before; a write the intake did not take (it slowed down or
// went quiet) is done in pruning's own transaction. A prune write that fails in the
// intake's transaction is undone to its savepoint and never fails the
// delivery's commit.

// The intake counts as busy while its commits come, on average
// (pruneHandoff.interval), at most busyInterval apart, the last one within
// intakeBusyFor: at 500 commits a second and more a transaction of
// pruning's, a millisecond or more under load, would often hold up a commit.
// Beside a quieter intake few commits come during one, and it is better
// that the few wait than that every commit carry pruning's rows: pruning
// writes itself.
const (
	busyInterval  = 2 * time.Millisecond
	intakeBusyFor = 10 * time.Millisecond
)

// A commit carries one row of pruning for each rowInterval of the average
// interval between commits, at least one and at most maxHandoffRows: at 2,000
// commits a second, one (four there pruned 3.5 times as fast but raised the
// intake's p99 by 2–4 ms); at 500, four. Pruning then keeps its pace over
// the busy range instead of slowing with the commit rate.
const (
	rowInterval    = 500 * time.Microsecond
	maxHandoffRows = 4
)

// handoffPatience is how long pruning waits for the intake to take more of a
// handed-over write before it does the rest itself; and a job has that and
// busyInterval for each of its rows in all: an intake that slows down leaves
// the rest to pruning.
const handoffPatience = 20 * time.Millisecond

// errIntakeCommit is a handed-over write's error when the intake's commit
// that carried it failed: the rows are handed back.
var errIntakeCommit = errors.New("the intake's commit failed")

// pruneHandoff is where pruning leaves writes for the intake's commits.
type pruneHandoff struct {
	// committed is when the intake last committed (UnixNano), and interval
	// the moving average of the time between its commits (ns; each new
	// interval weighs an eighth). Only the intake's one flusher writes them.
	committed, interval atomic.Int64
	// busyFor, when positive, counts the intake busy whenever it committed
	// within busyFor, whatever its rate (IntakeConfig.CarryPruneWithin).
	busyFor atomic.Int64
	// carried counts the rows the intake's committed writes changed.
	carried atomic.Int64
	mu      sync.Mutex
	job     *handoffJob // nil when none waits
}

// handoffJob is one write of pruning, by id, handed to the intake.
type handoffJob struct {
	// query is the statement for n ids; args its arguments for ids.
	query func(n int) string
	args  func(ids []any) []any
	// The rest under pruneHandoff.mu.
	ids     []any // not taken yet
	taken   int   // taken by a commit not yet settled
	changed int64 // rows the intake's committed writes changed
	err     error // the first failed write's
	// settled wakes pruning when a commit settles a part.
	settled chan struct{}
}

// handoffPart is the ids of one job an intake commit carries.
type handoffPart struct {
	job *handoffJob
	ids []any
}

// PruneRowsCarried is how many rows pruning's writes have changed in the
// webhook intake's commits (SQLite); 0 on PostgreSQL, where pruning always
// writes in its own transactions.
func (db *DB) PruneRowsCarried() int64 {
	if db.gate == nil {
		return 0
	}
	return db.gate.handoff.carried.Load()
}

// intakeCommitted records an intake commit at now.
func (h *pruneHandoff) intakeCommitted(now time.Time) {
	t := now.UnixNano()
	last := h.committed.Swap(t)
	iv := min(t-last, int64(time.Second)) // the first, or after a lull
	avg := h.interval.Load()
	if avg == 0 {
		avg = int64(time.Second)
	}
	h.interval.Store(avg + (iv-avg)/8)
}

// intakeBusy says whether the intake is busy at now.
func (h *pruneHandoff) intakeBusy(now time.Time) bool {
	since := now.Sub(time.Unix(0, h.committed.Load()))
	if d := time.Duration(h.busyFor.Load()); d > 0 {
		return since < d
	}
	return since < intakeBusyFor && time.Duration(h.interval.Load()) <= busyInterval
}

// rows is how many rows of pruning the next commit carries.
func (h *pruneHandoff) rows() int {
	return min(maxHandoffRows, max(1, int(time.Duration(h.interval.Load())/rowInterval)))
}

// take gives the intake's commit the next part of the waiting job, or nil.
func (h *pruneHandoff) take() *handoffPart {
	h.mu.Lock()
	defer h.mu.Unlock()
	j := h.job
	if j == nil || len(j.ids) == 0 {
		return nil
	}
	n := min(h.rows(), len(j.ids))
	p := &handoffPart{job: j, ids: j.ids[:n:n]}
	j.ids = j.ids[n:]
	j.taken += n
	return p
}

// settle reports how the commit that carried p went: changed rows when it
// committed, or err, in which case p's ids go back to the job (a failed
// commit changed nothing).
func (h *pruneHandoff) settle(p *handoffPart, changed int64, err error) {
	h.mu.Lock()
	j := p.job
	j.taken -= len(p.ids)
	switch {
	case errors.Is(err, errIntakeCommit):
		j.ids = append(j.ids, p.ids...)
	case err != nil:
		if j.err == nil {
			j.err = err
		}
	default:
		j.changed += changed
		h.carried.Add(changed)
	}
	h.mu.Unlock()
	select {
	case j.settled <- struct{}{}:
	default:
	}
}

// run hands ids to the intake's commits and waits until they have all been
// written, or the intake took none for its patience, or the job's time is
// up, or ctx ends. It returns the rows changed and the ids the intake did not
// take, which the caller writes itself.
func (h *pruneHandoff) run(ctx context.Context, query func(n int) string, args func(ids []any) []any, ids []any) (changed int64, rest []any, err error) {
	j := &handoffJob{query: query, args: args, ids: ids, settled: make(chan struct{}, 1)}
	h.mu.Lock()
	if h.job != nil { // another pruner's: take no turn
		h.mu.Unlock()
		return 0, ids, nil
	}
	h.job = j
	h.mu.Unlock()
	patience := handoffPatience + time.Duration(h.busyFor.Load())
	t := time.NewTimer(patience)
	defer t.Stop()
	deadline := time.NewTimer(patience + time.Duration(len(ids))*max(busyInterval, time.Duration(h.busyFor.Load())))
	defer deadline.Stop()
	withdrawn := false
	for {
		h.mu.Lock()
		if len(j.ids) == 0 && j.taken == 0 || withdrawn && j.taken == 0 {
			if h.job == j {
				h.job = nil
			}
			rest, changed, err = j.ids, j.changed, j.err
			h.mu.Unlock()
			return changed, rest, err
		}
		h.mu.Unlock()
		if withdrawn { // a commit has a part: it settles it when it ends
			<-j.settled
			continue
		}
		select {
		case <-j.settled:
			t.Reset(patience)
			continue
		case <-ctx.Done():
		case <-t.C:
		case <-deadline.C:
		}
		// The intake went quiet, or pruning stops: take back what it has
		// not taken and wait for what it has to settle (one commit).
		h.mu.Lock()
		withdrawn = true
		if h.job == j {
			h.job = nil
		}
		h.mu.Unlock()
	}
}

// commit commits the intake's open transaction on conn, carrying in it the
// next part of pruning's waiting job, if one waits, and settles that part:
// every part taken is settled here, whatever the commit does.
func (h *pruneHandoff) commit(ctx context.Context, conn *sql.Conn) error {
	p := h.take()
	var carried int64
	var carryErr error
	if p != nil {
		carried, carryErr = carry(ctx, conn, p)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		if p != nil {
			h.settle(p, 0, errIntakeCommit)
		}
		return err
	}
	if p != nil {
		h.settle(p, carried, carryErr)
	}
	h.intakeCommitted(time.Now())
	return nil
}

// carry runs a part of pruning's work in the intake's open transaction, in
// a savepoint, so that a failure undoes only the part.
func carry(ctx context.Context, conn *sql.Conn, p *handoffPart) (int64, error) {
	if _, err := conn.ExecContext(ctx, "SAVEPOINT prune"); err != nil {
		return 0, err
	}
	res, err := conn.ExecContext(ctx, p.job.query(len(p.ids)), p.job.args(p.ids)...)
	var n int64
	if err == nil {
		n, err = res.RowsAffected()
	}
	if err != nil {
		if _, rerr := conn.ExecContext(ctx, "ROLLBACK TO prune"); rerr != nil {
			return 0, errors.Join(err, rerr)
		}
	}
	if _, rerr := conn.ExecContext(ctx, "RELEASE prune"); rerr != nil {
		return 0, errors.Join(err, rerr)
	}
	return n, err
}
