package store

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// writeGate orders, inside one process, the SQLite writers whose waits
// matter: the webhook intake (urgent: GitHub waits for its answer) and
// pruning (background). SQLite has one write lock per database, and a writer
// that finds it taken sleeps in SQLite's busy handler, polling after 1, 2, 5,
// 10, 15, 20, 25 … 100 ms: an intake commit that arrives during a prune
// transaction of 3 ms waited for the handler's next poll, often tens of
// milliseconds, not for the lock's release. Here both wait on a Go lock
// instead, which hands over at release, and a background writer lets every
// urgent writer that waits go first. SQLite is for one `chakshu all` process
// (docs/production.md), so an in-process lock sees every writer that matters;
// other writers (the portal, the workers' updates) still meet the busy handler.
//
// PostgreSQL has row locks and no single write lock: no gate.
type writeGate struct {
	mu sync.Mutex
	// urgent counts urgent writers waiting for mu or holding it.
	urgent atomic.Int32
	// checkpointed is when pruning last checkpointed (UnixNano; pruneTx).
	checkpointed atomic.Int64
}

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

// lockUrgent takes the lock before any background writer that waits.
func (g *writeGate) lockUrgent() {
	g.urgent.Add(1)
	g.mu.Lock()
}

func (g *writeGate) unlockUrgent() {
	g.urgent.Add(-1)
	g.mu.Unlock()
}

// lockBackground takes the lock once no urgent writer waits for it or holds it.
func (g *writeGate) lockBackground(ctx context.Context) error {
	for {
		if g.urgent.Load() == 0 {
			g.mu.Lock()
			if g.urgent.Load() == 0 {
				return nil
			}
			g.mu.Unlock() // one arrived meanwhile: it goes first
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backgroundPoll):
		}
	}
}

func (g *writeGate) unlockBackground() { g.mu.Unlock() }

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
