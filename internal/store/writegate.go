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

// lock waits for the turn, up to writeWaitLimit or ctx's end.
func (g *writeGate) lock(ctx context.Context) error {
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
	g.urgent.Add(1)
	if err := g.lock(ctx); err != nil {
		g.urgent.Add(-1)
		return err
	}
	return nil
}

func (g *writeGate) unlockUrgent() {
	g.urgent.Add(-1)
	g.unlock()
}

// lockBackground takes the turn once no urgent writer waits for it or holds it.
func (g *writeGate) lockBackground(ctx context.Context) error {
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
