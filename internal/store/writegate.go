package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"
)

// writeGate orders, inside one process, the writers of a SQLite database.
// SQLite has one write lock per database, and a writer that finds it taken
// sleeps in SQLite's busy handler, polling after 1, 2, 5, 10, 15, 20, 25 …
// 100 ms: it waits for the handler's next poll, not for the lock's release
// (an intake commit that arrived during a prune transaction of 3 ms often
// waited tens of milliseconds), and a writer that releases and writes again
// at once takes the lock back ahead of those asleep. Under load one writer
// could lose every poll until busy_timeout (10 s) ran out: a cost update
// beside three transactions queueing runs failed so with SQLITE_BUSY on a
// busy CI machine (TestRollupWritersDoNotDeadlock). Here writers wait for
// their turn on a Go channel instead, which hands the turn over at release
// to the writer that waited longest.
//
// There are three kinds of writer. The webhook intake is urgent (GitHub
// waits for its answer); pruning is background, and lets every urgent
// writer that waits go first; every other writer (ent's statements and
// transactions through gatedDriver, and the store's own, through Write)
// takes its turn in order. SQLite is for one `chakshu all` process
// (docs/production.md), so an in-process gate sees every writer that matters.
//
// PostgreSQL has row locks and no single write lock: no gate.
type writeGate struct {
	// turn holds a value while a writer holds the lock. Senders blocked on a
	// channel wait in order and a receive hands the freed place to the
	// first of them (the runtime's send queue); a sync.Mutex lets a writer
	// that just unlocked lock again ahead of waiters until one has waited
	// 1 ms, and cannot stop waiting.
	turn chan struct{}
	// urgent counts urgent writers waiting for the turn or holding it.
	urgent atomic.Int32
	// checkpointed is when pruning last checkpointed (UnixNano; pruneTx).
	checkpointed atomic.Int64
	// waits are how long each kind of writer waited for its turn.
	waits [writerKinds]waitHist
	// handoff passes pruning's webhook writes to the intake's commits
	// while the intake is busy (prunehandoff.go).
	handoff pruneHandoff
}

// The kinds of writer the gate tells apart in its wait figures.
const (
	writerIntake = iota
	writerOrdinary
	writerBackground
	writerKinds
)

// writerNames name the kinds in WriteWaits.
var writerNames = [writerKinds]string{writerIntake: "intake", writerOrdinary: "ordinary", writerBackground: "background"}

// WriteWaitBounds are the upper bounds of WriteWait's buckets: the first
// holds the turns taken at once or nearly (an idle gate answers in well under
// a microsecond), the last ends at writeWaitLimit, after which a writer fails.
var WriteWaitBounds = [...]time.Duration{100 * time.Microsecond, time.Millisecond, 5 * time.Millisecond,
	25 * time.Millisecond, 100 * time.Millisecond, time.Second, writeWaitLimit}

// WriteWait is how long one kind of writer waited for its turn at the write
// gate, over the life of the process: Count turns (taken or given up), Sum of
// their waits, and Buckets[i] of them waited at most WriteWaitBounds[i] (and
// more than the bound before it); the rest waited longer than the last bound.
type WriteWait struct {
	Count   uint64
	Sum     time.Duration
	Buckets [len(WriteWaitBounds)]uint64
}

// Sub is what w counted since earlier, a figure of the same writer.
func (w WriteWait) Sub(earlier WriteWait) WriteWait {
	d := WriteWait{Count: w.Count - earlier.Count, Sum: w.Sum - earlier.Sum}
	for i := range d.Buckets {
		d.Buckets[i] = w.Buckets[i] - earlier.Buckets[i]
	}
	return d
}

// Add is w and v counted together.
func (w WriteWait) Add(v WriteWait) WriteWait {
	d := WriteWait{Count: w.Count + v.Count, Sum: w.Sum + v.Sum}
	for i := range d.Buckets {
		d.Buckets[i] = w.Buckets[i] + v.Buckets[i]
	}
	return d
}

// Over is how many turns waited longer than WriteWaitBounds[i].
func (w WriteWait) Over(i int) uint64 {
	n := w.Count
	for _, b := range w.Buckets[:i+1] {
		n -= b
	}
	return n
}

// waitHist counts one kind of writer's waits without a lock: the gate is on
// every write's path.
type waitHist struct {
	count, sum atomic.Uint64
	buckets    [len(WriteWaitBounds)]atomic.Uint64
}

func (h *waitHist) add(d time.Duration) {
	h.count.Add(1)
	h.sum.Add(uint64(d))
	for i, b := range WriteWaitBounds {
		if d <= b {
			h.buckets[i].Add(1)
			return
		}
	}
}

func (h *waitHist) read() WriteWait {
	w := WriteWait{Count: h.count.Load(), Sum: time.Duration(h.sum.Load())}
	for i := range w.Buckets {
		w.Buckets[i] = h.buckets[i].Load()
	}
	return w
}

// WriteWaits is how long each kind of writer has waited for its turn to
// write, by kind: "intake" (the webhook intake's commits), "background"
// (pruning's transactions, and the intake's cutting back of a long WAL after
// a quiet spell) and "ordinary" (every other write). A turn given up (its
// context ended, or writeWaitLimit passed) counts with the wait it gave up
// after. Nil on PostgreSQL, which has no write gate.
func (db *DB) WriteWaits() map[string]WriteWait {
	if db.gate == nil {
		return nil
	}
	m := make(map[string]WriteWait, writerKinds)
	for k, name := range writerNames {
		m[name] = db.gate.waits[k].read()
	}
	return m
}

func newWriteGate() *writeGate { return &writeGate{turn: make(chan struct{}, 1)} }

// writeWaitLimit bounds the wait of an urgent or ordinary writer for its
// turn, as busy_timeout bounds SQLite's own wait (store.SQLiteDSN): a
// transaction left open, or a write made while the same goroutine holds a
// transaction, fails after it as it did before the gate, instead of hanging.
const writeWaitLimit = busyTimeoutMS * time.Millisecond

// errWriteWait is what a writer gets whose turn did not come in writeWaitLimit.
var errWriteWait = fmt.Errorf("database is locked: no turn to write within %s", writeWaitLimit)

// pruneCheckpointEvery is how often at most pruning checkpoints the WAL.
const pruneCheckpointEvery = time.Second

// checkpointDue says whether pruning should checkpoint now, and if so
// records that it does.
func (g *writeGate) checkpointDue(now time.Time) bool {
	last := g.checkpointed.Load()
	return now.UnixNano()-last >= int64(pruneCheckpointEvery) && g.checkpointed.CompareAndSwap(last, now.UnixNano())
}

// backgroundPoll is how often a background writer looks again while an
// urgent writer waits or writes.
const backgroundPoll = 200 * time.Microsecond

// lock waits for the turn of an ordinary writer, up to writeWaitLimit or
// ctx's end.
func (g *writeGate) lock(ctx context.Context) error {
	t0 := time.Now()
	err := g.take(ctx)
	g.waits[writerOrdinary].add(time.Since(t0))
	return err
}

// take waits for the turn, up to writeWaitLimit or ctx's end.
func (g *writeGate) take(ctx context.Context) error {
	select {
	case g.turn <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(writeWaitLimit)
	defer t.Stop()
	select {
	case g.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return errWriteWait
	}
}

func (g *writeGate) unlock() { <-g.turn }

// lockUrgent takes the turn before any background writer that waits.
func (g *writeGate) lockUrgent(ctx context.Context) error {
	t0 := time.Now()
	g.urgent.Add(1)
	err := g.take(ctx)
	g.waits[writerIntake].add(time.Since(t0))
	if err != nil {
		g.urgent.Add(-1)
	}
	return err
}

func (g *writeGate) unlockUrgent() {
	g.urgent.Add(-1)
	g.unlock()
}

// lockBackground takes the turn once no urgent writer waits for it or holds it.
func (g *writeGate) lockBackground(ctx context.Context) error {
	t0 := time.Now()
	defer func() { g.waits[writerBackground].add(time.Since(t0)) }()
	for {
		if g.urgent.Load() == 0 {
			select {
			case g.turn <- struct{}{}:
				if g.urgent.Load() == 0 {
					return nil
				}
				g.unlock() // one arrived meanwhile: it goes first
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backgroundPoll):
		}
	}
}

func (g *writeGate) unlockBackground() { g.unlock() }

// Write waits for the turn of an ordinary writer on SQLite and returns its
// release, for a write the store makes outside ent (whose own writes wait in
// gatedDriver); on PostgreSQL it returns at once. The caller releases once
// its statement or transaction is done.
func (db *DB) Write(ctx context.Context) (release func(), err error) {
	if db.gate == nil {
		return func() {}, nil
	}
	if err := db.gate.lock(ctx); err != nil {
		return nil, err
	}
	return db.gate.unlock, nil
}

// ExecWrite runs one writing statement on the raw handle in an ordinary
// writer's turn (Write).
func (db *DB) ExecWrite(ctx context.Context, query string, args ...any) (sql.Result, error) {
	release, err := db.Write(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return db.SQL.ExecContext(ctx, query, args...)
}

// backgroundWrite waits for the turn of a background writer (pruning) on
// SQLite, and returns the release; on PostgreSQL it returns at once.
func (db *DB) backgroundWrite(ctx context.Context) (release func(), err error) {
	if db.gate == nil {
		return func() {}, nil
	}
	if err := db.gate.lockBackground(ctx); err != nil {
		return nil, err
	}
	return db.gate.unlockBackground, nil
}
