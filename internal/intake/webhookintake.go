package intake

import (
	"github.com/chakshu-dev/chakshu/internal/store"

	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// The webhook intake's storage (DESIGN §3, §11): a delivery is stored under
// its unique delivery ID, a redelivery stores nothing, and Store returns only
// once the row is committed, so the HTTP edge (server/webhook) can answer 202.
// Concurrent deliveries share commits (group commit).

// Delivery is one webhook delivery as stored in webhook_events.
type Delivery struct {
	DeliveryID     string
	Event          string
	Action         string
	InstallationID int64
	Repository     string
	Payload        []byte
	// Failed is set for a payload the worker can never handle (not JSON);
	// it is stored as failed with Reason.
	Failed bool
	Reason string
}

// intakeColumns are the columns a stored delivery sets, in the order of
// Delivery.values; the others take their defaults (NULL). Status pending (or
// failed, handled now), no attempts, no lease, received now.
var intakeColumns = []string{"delivery_id", "event", "action", "installation_id", "repository", "payload",
	"status", "attempts", "last_error", "lease_owner", "received_at", "handled_at"}

// values are the delivery's values of intakeColumns, stored at now.
func (d *Delivery) values(now time.Time) []any {
	status, handled := "pending", any(nil)
	if d.Failed {
		status, handled = "failed", now
	}
	return []any{d.DeliveryID, d.Event, d.Action, d.InstallationID, d.Repository, d.Payload,
		status, 0, d.Reason, "", now, handled}
}

// intakeInsert is the statement that stores one delivery (? placeholders, or
// $n when pg); a redelivery changes no row.
func intakeInsert(pg bool) string {
	ph := make([]string, len(intakeColumns))
	for i := range ph {
		ph[i] = "?"
		if pg {
			ph[i] = "$" + strconv.Itoa(i+1)
		}
	}
	return "INSERT INTO webhook_events (" + strings.Join(intakeColumns, ", ") + ") VALUES (" + strings.Join(ph, ", ") +
		") ON CONFLICT (delivery_id) DO NOTHING"
}

// StoreDelivery stores d in its own statement; stored is false for a redelivery.
func StoreDelivery(ctx context.Context, sdb *store.DB, d *Delivery) (bool, error) {
	db := conn{sdb}
	res, err := db.W.ExecContext(ctx, intakeInsert(db.Postgres()), d.values(time.Now())...)
	if err != nil {
		return false, fmt.Errorf("store webhook event: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store webhook event: %w", err)
	}
	return n == 1, nil
}

// IntakeConfig shapes group commit: concurrent deliveries are stored in one
// statement or transaction, and each request is answered only after its batch
// has committed, so a 202 still means the event is in the database.
//
// The flush policy never waits on a timer: a flusher that is idle stores the
// first delivery that arrives at once, and takes into its batch only what is
// already queued; what arrives while a batch commits goes into the next one.
// A lone delivery therefore costs one commit, and under load the commits
// (an fsync each on PostgreSQL) are shared by all the deliveries that arrived
// during the previous one.
type IntakeConfig struct {
	// Mode is "auto" (or empty) or "on": group commit; "off": each delivery
	// is stored by its own request in its own statement.
	Mode string
	// MaxSize caps a batch; 0 means 128.
	MaxSize int
	// Flushers is how many batches may commit at once; 0 means 1 on SQLite
	// (it has one writer at a time) and 4 on PostgreSQL (a delivery that
	// arrives while one batch waits for its commit's fsync starts another at
	// once, and PostgreSQL flushes the concurrent commits' WAL together).
	Flushers int
	// WALQuiet is how long the intake must have committed nothing before a
	// SQLite WAL past walKeep is cut back (checkpointer.trim); 0 means 5 s.
	WALQuiet time.Duration
}

// enabled resolves Mode.
func (b IntakeConfig) enabled() bool { return b.Mode != "off" }

type storeReq struct {
	e    *Delivery
	done chan storeRes
}

type storeRes struct {
	stored bool
	err    error
}

// batcher stores deliveries in batches, from one or more flusher goroutines.
type batcher struct {
	db     *store.DB
	max    int
	reqs   chan *storeReq
	quit   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
	writer batchWriter
	pool   sync.Pool // *storeReq with its done channel, reused
}

// batchWriter stores one batch atomically: res[i] for batch[i].
type batchWriter interface {
	write(ctx context.Context, batch []*storeReq, res []storeRes) error
	close()
}

var errClosed = errors.New("webhook intake is shutting down")

func newBatcher(db *store.DB, cfg IntakeConfig) *batcher {
	max := cfg.MaxSize
	if max <= 0 {
		max = 128
	}
	flushers := cfg.Flushers
	b := &batcher{db: db, max: max, quit: make(chan struct{})}
	if db.Postgres() {
		if flushers <= 0 {
			flushers = 4
		}
		b.writer = &pgWriter{db: db}
	} else {
		flushers = 1 // SQLite: one writer at a time
		b.writer = newSQLiteWriter(db, cfg.WALQuiet)
	}
	b.reqs = make(chan *storeReq, max*4)
	for range flushers {
		b.wg.Add(1)
		go b.loop()
	}
	return b
}

func (b *batcher) close() {
	b.once.Do(func() { close(b.quit) })
	b.wg.Wait()
	b.drain()
	b.writer.close()
}

// store queues e for the next batch and waits for its commit.
func (b *batcher) store(ctx context.Context, e *Delivery) (bool, error) {
	r, _ := b.pool.Get().(*storeReq)
	if r == nil {
		r = &storeReq{done: make(chan storeRes, 1)}
	}
	r.e = e
	select {
	case b.reqs <- r:
	case <-b.quit:
		return false, errClosed
	case <-ctx.Done():
		return false, ctx.Err()
	}
	select {
	case res := <-r.done:
		r.e = nil
		b.pool.Put(r) // answered: no one refers to r any more
		return res.stored, res.err
	case <-ctx.Done():
		return false, ctx.Err() // it may still commit; a redelivery is then a duplicate
	}
}

func (b *batcher) loop() {
	defer b.wg.Done()
	batch := make([]*storeReq, 0, b.max)
	res := make([]storeRes, b.max)
	for {
		var first *storeReq
		select {
		case first = <-b.reqs:
		case <-b.quit:
			return
		}
		batch = append(batch[:0], first)
	fill:
		for len(batch) < b.max {
			select {
			case r := <-b.reqs:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		b.commit(batch, res[:len(batch)])
	}
}

// drain answers what is still queued at shutdown.
func (b *batcher) drain() {
	res := make([]storeRes, 1)
	for {
		select {
		case r := <-b.reqs:
			b.commit([]*storeReq{r}, res)
		default:
			return
		}
	}
}

// commitTimeout bounds a batch: a database that stops answering fails the
// batch's deliveries (503) instead of holding them past GitHub's 10 s, after
// which GitHub counts the delivery failed and never retries it by itself;
// the worker's webhook recovery asks for those again.
const commitTimeout = 5 * time.Second

func (b *batcher) commit(batch []*storeReq, res []storeRes) {
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	clear(res)
	if err := b.writer.write(ctx, batch, res); err != nil {
		// One bad row must not fail its neighbours: store each on its own.
		for i, r := range batch {
			stored, err := StoreDelivery(ctx, b.db, r.e)
			res[i] = storeRes{stored: stored, err: err}
		}
	}
	for i, r := range batch {
		r.done <- res[i]
	}
}

// sqliteWriter writes each batch on the write connection (store.DB), in one
// immediate transaction with a prepared statement.
//
// Durability: the database runs in WAL mode with synchronous=NORMAL
// (store.SQLiteDSN). A commit is then in the WAL file — the operating
// system's page cache — when COMMIT returns, so a 202 survives a crash or kill
// of the process; only an OS crash or power loss can lose the last commits
// (synchronous=FULL would fsync every commit, about a millisecond each).
//
// Checkpoints: a connection normally copies the WAL back into the database
// (and fsyncs it) inside the COMMIT that crosses wal_autocheckpoint's 1,000
// pages, which at 2,000 deliveries/s is several times a second and stalls
// every delivery queued behind it. The intake's transactions turn that off
// and a checkpointer goroutine runs PASSIVE checkpoints on a read
// connection, which proceed while the writer keeps committing.
type sqliteWriter struct {
	db   *store.DB
	mu   sync.Mutex // guards stmt (one flusher, but close may race a write)
	stmt *sql.Stmt  // the insert, prepared on the write pool
	ckpt *checkpointer
}

func newSQLiteWriter(db *store.DB, walQuiet time.Duration) *sqliteWriter {
	return &sqliteWriter{db: db, ckpt: newCheckpointer(db, walQuiet)}
}

func (w *sqliteWriter) write(ctx context.Context, batch []*storeReq, res []storeRes) (err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stmt == nil {
		if w.stmt, err = w.db.W.PrepareContext(ctx, intakeInsert(false)); err != nil {
			return err
		}
	}
	tx, end, err := w.db.WriteTx(ctx, store.WriterIntake)
	if err != nil {
		return err
	}
	defer func() { end(err) }()
	stmt := tx.StmtContext(ctx, w.stmt)
	now := time.Now()
	for i, r := range batch {
		out, err := stmt.ExecContext(ctx, r.e.values(now)...)
		if err != nil {
			return err
		}
		n, err := out.RowsAffected()
		if err != nil {
			return err
		}
		res[i].stored = n == 1
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	w.ckpt.kick()
	return nil
}

func (w *sqliteWriter) close() {
	w.ckpt.close()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stmt != nil {
		w.stmt.Close()
		w.stmt = nil
	}
}

// checkpointer copies the WAL into the database after commits, off the
// intake's connection, at most every checkpointEvery; and once the intake
// has been quiet for a while it gives back the disk space a burst grew the
// WAL to (trim).
type checkpointer struct {
	db    *store.DB
	quiet time.Duration
	kick  func()
	stop  func()
	// kicked says a commit has come since the checkpointer last looked.
	kicked func() bool
}

const (
	checkpointEvery = 50 * time.Millisecond
	// walKeep is the size of WAL file the checkpointer leaves alone: at
	// ordinary rates the WAL starts over long before it (SQLite's automatic
	// checkpoint is at 1,000 pages, 4 MB).
	walKeep = 64 << 20
	// walQuietDefault is how long the intake must have been quiet before the
	// checkpointer cuts a WAL past walKeep back.
	walQuietDefault = 5 * time.Second
)

func newCheckpointer(db *store.DB, quiet time.Duration) *checkpointer {
	if quiet <= 0 {
		quiet = walQuietDefault
	}
	kick := make(chan struct{}, 1)
	quit := make(chan struct{})
	done := make(chan struct{})
	c := &checkpointer{db: db, quiet: quiet}
	c.kick = func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	c.kicked = func() bool { return len(kick) > 0 }
	var once sync.Once
	c.stop = func() {
		once.Do(func() { close(quit) })
		<-done
	}
	go func() {
		defer close(done)
		written := false // a commit since the last trim
		for {
			var quietC <-chan time.Time
			if written {
				quietC = time.After(c.quiet)
			}
			select {
			case <-quit:
				c.checkpoint() // leave the WAL short for the next start
				return
			case <-quietC:
				written = c.trim() // when it could not, the next quiet spell tries again
				continue
			case <-kick:
			}
			c.checkpoint()
			written = true
			select {
			case <-quit:
				c.checkpoint()
				return
			case <-time.After(checkpointEvery):
			}
		}
	}()
	return c
}

// checkpoint copies what it can of the WAL into the database, and reports
// whether it copied all of it.
func (c *checkpointer) checkpoint() (all bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var busy, frames, copied int
	if err := c.db.SQL.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil {
		return false // the next kick tries again
	}
	return busy == 0 && frames == copied
}

// trim cuts a WAL file past walKeep back to nothing, on the write
// connection, once the intake has been quiet for c.quiet; again says the
// WAL is still long and trim should try after the next quiet spell.
//
// A commit never cuts it: the DSN sets journal_size_limit to -1, none
// (store.SQLiteDSN), because SQLite applies that limit in the first commit after the WAL starts
// over (src/wal.c, sqlite3WalFrames: truncateOnCommit), holding the write
// lock, and truncating a file of gigabytes takes hundreds of milliseconds
// (590 ms for 2 GB on an ext4 test machine, most of it the kernel dropping
// the file's cached pages). Under a sustained stream the WAL starts over
// whenever a checkpoint happens to catch up, and every delivery behind that
// commit waited: a 2 s window of BenchmarkIntakeWhilePruning had a p99 of
// 190–750 ms so. A WAL left long is instead written from its start again in
// place. Here the cut still holds the lock as long (PRAGMA
// wal_checkpoint(TRUNCATE) truncates under it), but only after a quiet
// spell, when a delivery seldom arrives to wait behind it.
func (c *checkpointer) trim() (again bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var file string
	if err := c.db.SQL.QueryRowContext(ctx, "SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil || file == "" {
		return false
	}
	fi, err := os.Stat(file + "-wal")
	if err != nil || fi.Size() <= walKeep {
		return false
	}
	// Copy first, off the write connection, so its hold covers only the truncation.
	if !c.checkpoint() {
		return true // a reader still uses the WAL
	}
	t0 := time.Now()
	conn, err := c.db.W.Conn(ctx) // the write connection: no other write runs meanwhile
	c.db.NoteWait(store.WriterBackground, time.Since(t0))
	if err != nil {
		return true
	}
	defer conn.Close()
	// TRUNCATE waits in SQLite's busy handler for every reader still reading
	// the WAL (a backup, a long report), and the writer would wait while it
	// does (sqlite3_wal_checkpoint_v2's documentation, on FULL, RESTART and
	// TRUNCATE): it must give up at once instead, not keep every writer
	// waiting up to busy_timeout.
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		return true
	}
	defer conn.ExecContext(context.Background(), "PRAGMA busy_timeout = "+strconv.Itoa(store.BusyTimeoutMS)) //nolint:errcheck // as SQLiteDSN sets it
	if c.kicked() {
		return true // the intake is no longer quiet
	}
	var busy, frames, copied int
	if err := conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &copied); err != nil || busy != 0 {
		return true
	}
	return false
}

func (c *checkpointer) close() { c.stop() }

const pgInsertName = "chakshu_webhook_insert_2"

// pgFormats: every parameter in text format but the payload, sent as it is.
var pgFormats = []int16{0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}

// pgWriter writes a batch on a pooled connection as one pipeline: the insert,
// prepared once per connection, executed for each delivery, and a single Sync,
// so the batch is one round trip and one implicit transaction whose commit
// (with synchronous_commit on) is durable in the server before the 202s.
//
// It goes below database/sql and pgx's argument encoding on purpose: that
// encoding copies each payload into buffers that start small and are dropped
// after every query, several times the payload in garbage per delivery. Here
// the payload is referenced as it is, and copied once, into the batch.
type pgWriter struct {
	db *store.DB
}

func (w *pgWriter) write(ctx context.Context, batch []*storeReq, res []storeRes) error {
	conn, err := w.db.W.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("webhook intake: not a pgx connection: %T", dc)
		}
		pc := sc.Conn()
		if _, err := pc.Prepare(ctx, pgInsertName, intakeInsert(true)); err != nil { // once per connection: pgx keeps it
			return err
		}
		now := time.Now().UTC().Truncate(time.Microsecond).AppendFormat(nil, "2006-01-02 15:04:05.999999-07:00")
		b := &pgconn.Batch{}
		for _, r := range batch {
			e := r.e
			status, handled := "pending", []byte(nil)
			if e.Failed {
				status, handled = "failed", now
			}
			// In the order of intakeColumns (Delivery.values), as text.
			b.ExecPrepared(pgInsertName, [][]byte{
				[]byte(e.DeliveryID), []byte(e.Event), []byte(e.Action), strconv.AppendInt(nil, e.InstallationID, 10),
				[]byte(e.Repository), e.Payload, []byte(status), []byte("0"), []byte(e.Reason), []byte(""), now, handled,
			}, pgFormats, nil)
		}
		results, err := pc.PgConn().ExecBatch(ctx, b).ReadAll()
		if err != nil {
			return err
		}
		if len(results) != len(batch) {
			return fmt.Errorf("webhook intake: %d results for %d deliveries", len(results), len(batch))
		}
		for i, r := range results {
			if r.Err != nil {
				return r.Err
			}
			res[i].stored = r.CommandTag.RowsAffected() == 1
		}
		return nil
	})
}

func (w *pgWriter) close() {}

// Intake stores webhook deliveries, in group commits unless IntakeConfig.Mode
// is "off". Close it to stop its flushers.
type Intake struct {
	db      *store.DB
	batcher *batcher
}

// NewIntake starts the intake's writers on db.
func NewIntake(db *store.DB, cfg IntakeConfig) *Intake {
	in := &Intake{db: db}
	if cfg.enabled() {
		in.batcher = newBatcher(db, cfg)
	}
	return in
}

// Store stores d and returns once it is committed; stored is false for a
// redelivery. When ctx ends first, d may still be committed (a redelivery is
// then a duplicate); the caller must not reuse d's payload.
func (in *Intake) Store(ctx context.Context, d *Delivery) (bool, error) {
	if in.batcher == nil {
		return StoreDelivery(ctx, in.db, d)
	}
	return in.batcher.store(ctx, d)
}

// Close stores what is queued and stops the writers.
func (in *Intake) Close() {
	if in.batcher != nil {
		in.batcher.close()
	}
}
