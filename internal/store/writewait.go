package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"sync/atomic"
	"time"
)

// The kinds of writer whose waits for the write connection (SQLite) the
// store counts: the webhook intake, which GitHub waits on, and pruning with
// the intake's cutting back of a long WAL, in the background.
const (
	WriterIntake = iota
	WriterBackground
	writerKinds
)

// writerNames name the kinds in WriteWaits.
var writerNames = [writerKinds]string{WriterIntake: "intake", WriterBackground: "background"}

// WriteWaitBounds are the upper bounds of WriteWait's buckets: the first
// holds the waits that found the connection free or nearly, the last ends at
// busy_timeout.
var WriteWaitBounds = [...]time.Duration{100 * time.Microsecond, time.Millisecond, 5 * time.Millisecond,
	25 * time.Millisecond, 100 * time.Millisecond, time.Second, writeWaitLimit}

// WriteWait is how long one kind of writer waited to write, over the life of
// the process: Count waits (ended or given up), Sum of them, and Buckets[i]
// of them waited at most WriteWaitBounds[i] (and more than the bound before
// it); the rest waited longer than the last bound.
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

// Over is how many waits lasted longer than WriteWaitBounds[i].
func (w WriteWait) Over(i int) uint64 {
	n := w.Count
	for _, b := range w.Buckets[:i+1] {
		n -= b
	}
	return n
}

// waitHist counts one kind of writer's waits without a lock: the intake
// counts one at each commit.
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

// WriteWaits is how long the webhook intake ("intake") and pruning with the
// WAL's cutting back ("background") have waited for SQLite's one write
// connection and its write lock, over the life of the process. A wait given
// up (its context ended) counts with the wait it gave up after. Nil on
// PostgreSQL, which has no single writer.
func (db *DB) WriteWaits() map[string]WriteWait {
	if db.Postgres() {
		return nil
	}
	m := make(map[string]WriteWait, writerKinds)
	for k, name := range writerNames {
		m[name] = db.waits[k].read()
	}
	return m
}

// writeWaitLimit is busy_timeout (store.SQLiteDSN), the last bucket's bound.
const writeWaitLimit = BusyTimeoutMS * time.Millisecond

// WriteTx takes the write connection for a writer of kind k, counting the
// wait in k's figures, turns SQLite's automatic checkpoint in COMMIT off on
// it (the intake's checkpointer and pruning checkpoint outside the write
// lock instead: sqliteWriter), and begins an immediate transaction. The
// caller commits tx, then calls end with its work's error: end rolls the
// transaction back on one, turns the checkpoint on again and gives the
// connection back.
func (db *DB) WriteTx(ctx context.Context, k int) (tx *sql.Tx, end func(error), err error) {
	t0 := time.Now()
	defer func() { db.waits[k].add(time.Since(t0)) }()
	conn, err := db.W.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA wal_autocheckpoint = 0"); err != nil {
		conn.Close()
		return nil, nil, err
	}
	release := func(broken bool) {
		if broken { // a transaction may still be open on it: let database/sql close it
			conn.Raw(func(any) error { return driver.ErrBadConn }) //nolint:errcheck
		} else {
			conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA wal_autocheckpoint = 1000") //nolint:errcheck // as SQLiteDSN leaves it
		}
		conn.Close()
	}
	tx, err = conn.BeginTx(ctx, nil)
	if err != nil {
		release(true)
		return nil, nil, err
	}
	return tx, func(err error) {
		if err != nil {
			if rerr := tx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) {
				release(true)
				return
			}
		}
		release(false)
	}, nil
}

// ExecWrite runs one writing statement on the write pool.
func (db *DB) ExecWrite(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return db.W.ExecContext(ctx, query, args...)
}

// pruneCheckpointEvery is how often at most pruning checkpoints the WAL.
const pruneCheckpointEvery = time.Second

// PruneCheckpointDue says whether pruning should checkpoint at now, and if so
// records that it does.
func (db *DB) PruneCheckpointDue(now time.Time) bool {
	last := db.pruneCheckpointed.Load()
	return now.UnixNano()-last >= int64(pruneCheckpointEvery) && db.pruneCheckpointed.CompareAndSwap(last, now.UnixNano())
}

// NoteWait counts a wait of d by a writer of kind k that took the write lock
// outside WriteTx (the intake's WAL trim).
func (db *DB) NoteWait(k int, d time.Duration) { db.waits[k].add(d) }
