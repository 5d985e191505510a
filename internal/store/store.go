// Package store opens Chakshu's database (SQLite by default, PostgreSQL when
// configured) as an ent client and brings it to the current schema, with the
// hand-written parts ent does not generate (the trigger-kept cost rollup, the
// ledger of pruned runs, the queue indexes); it runs transactions with retry
// on deadlocks and, on SQLite, gives every write of the process one write
// connection (WriteTx, WriteWaits). What is stored in which way lives beside
// it: package queue (leases), intake (webhook deliveries), retention
// (pruning) and runstats (cost and quality read models).
package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "modernc.org/sqlite"             // registers the "sqlite" driver

	"github.com/chakshu-dev/chakshu/ent"
)

// DB is an open database: the ent client plus the raw handles and the
// dialect, for the few queries ent cannot express (queue claims, aggregates).
//
// On SQLite, which has one write lock per database, reads and writes go
// through two pools: SQL, of several connections, for reads, and W, of one
// connection whose transactions are immediate (they take the write lock at
// BEGIN), for every write of the process. Writers then wait for that
// connection in database/sql's pool, never in SQLite's busy handler, which
// polls at growing intervals and can leave a writer to lose every poll until
// busy_timeout runs out. On PostgreSQL, with row locks, W and SQL are one pool.
type DB struct {
	*ent.Client
	// SQL is the pool for reads (on PostgreSQL, for writes too).
	SQL *sql.DB
	// W is the pool for writes: on SQLite one connection, on PostgreSQL SQL.
	W       *sql.DB
	Dialect string // dialect.SQLite or dialect.Postgres
	// URL is the PostgreSQL URL, empty on SQLite; used for LISTEN/NOTIFY.
	URL string
	// idle is the read pool's idle-connection limit, restored by ReleaseIdle.
	idle int
	// driver is the ent driver Client runs on (Driver).
	driver dialect.Driver
	// pruneCheckpointed is when pruning last checkpointed the WAL
	// (UnixNano; SQLite, pruneTx).
	pruneCheckpointed atomic.Int64
	// waits are how long the intake and pruning waited to write (SQLite).
	waits [writerKinds]waitHist
}

// Driver is the ent driver the store's Client runs on, for another client
// over the same database (the GraphQL handler's): on SQLite its writes go
// through the store's one write connection.
func (db *DB) Driver() dialect.Driver { return db.driver }

// ReleaseIdle closes the pools' idle connections once. Start-up work (the
// migration, the rollup rebuild, a seeded history) fills each SQLite
// connection's page cache, memory outside the Go heap that an idle process
// would otherwise keep; the pools reopen connections as work needs them.
func (db *DB) ReleaseIdle() {
	db.SQL.SetMaxIdleConns(0)
	db.SQL.SetMaxIdleConns(db.idle)
	if db.W != db.SQL {
		db.W.SetMaxIdleConns(0)
		db.W.SetMaxIdleConns(1)
	}
}

// Postgres reports whether the database is PostgreSQL.
func (db *DB) Postgres() bool { return db.Dialect == dialect.Postgres }

// Options says which database to open.
type Options struct {
	// DatabaseURL is a postgres:// URL; empty means SQLite in DataDir.
	DatabaseURL string
	// DataDir holds chakshu.db when DatabaseURL is empty.
	DataDir string
	// MaxOpenConns caps the pool (PostgreSQL); 0 means 20.
	MaxOpenConns int
}

// Open opens the database. It does not migrate; call Migrate.
func Open(ctx context.Context, o Options) (*DB, error) {
	if o.DatabaseURL != "" {
		return openPostgres(ctx, o)
	}
	return openSQLite(ctx, o.DataDir)
}

// BusyTimeoutMS is how long a SQLite connection waits for a lock held by
// another (busy_timeout, in milliseconds).
const BusyTimeoutMS = 10000

// SQLiteDSN is the DSN for a SQLite file with the pragmas Chakshu needs, for
// the write connection: its transactions are immediate (_txlock=immediate),
// taking the write lock at BEGIN, where a deferred one that read first could
// fail with SQLITE_BUSY when another write landed between its read and its
// write. The read pool's DSN leaves that out (sqliteReadDSN).
//
// Durability: WAL with synchronous=NORMAL. A transaction is in the WAL file
// when COMMIT returns, so it survives a crash or kill of the process (what the
// webhook intake's 202 promises); only an OS crash or power loss can lose the
// last transactions before the next checkpoint's fsync. FULL would fsync the
// WAL at every commit.
//
// The WAL's length: SQLite writes the WAL from its beginning again when a
// write begins with every frame copied into the database, which under a
// sustained stream of commits seldom happens (a commit nearly always lands
// while the checkpoint copies): the file then grows for as long as the stream
// lasts, 75 MB/s at 2,000 webhook deliveries/s. Holding the intake back so a
// checkpoint could finish bounded it, but took the intake's p99 from 3.4–4.1
// to 14–35 ms on the test machine (BenchmarkIntake), so the stream is left to
// grow it (others report the growth as "checkpoint starvation",
// better-sqlite3's docs/performance.md). When it starts over, it is written
// from its start again in place: journal_size_limit -1 (none), as a limit cuts it
// back inside that commit, under the write lock, hundreds of milliseconds
// for a file of gigabytes. The webhook intake's checkpointer gives the
// space back once the intake has been quiet for a while (checkpointer.trim).
//
// The page cache: 2 MB a connection, SQLite's default (cache_size -2000).
// A connection empties its whole cache when it begins a transaction after
// another connection has written (src/pager.c, pagerBeginReadTransaction:
// the WAL index changed, so pager_reset), and the embedded SQLite frees
// each page under one process-wide allocator lock, keeping the last 4 MB
// freed and handing the rest back to the kernel a madvise call at a time
// (modernc.org/memory, Allocator.retain). With 32 MB caches the intake's
// writer spent 100–290 ms inside BEGIN emptying its cache after each prune
// commit (goroutine dumps taken during the stalls): its p99 while pruning
// beside a million rows was 190–370 ms on one machine, with 2 MB 5.6–7.4 ms
// (BenchmarkIntakeWhilePruning). Others report slow frees of page-cache
// pages too (Expensify/Bedrock#1432). The database file is read through a
// 1 GB memory map instead, which covers a million runs: pages read through
// it take no room in the cache (the portal's runs page with totalCount
// beside a million runs: p95 21 ms, 33 ms with 32 MB caches and a 256 MB
// map; BenchmarkPortal).
func SQLiteDSN(path string) string {
	// SQLite reads the DSN as a URI: escape what would end the path early.
	path = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + path + "?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(" + strconv.Itoa(BusyTimeoutMS) + ")&_pragma=synchronous(NORMAL)&_pragma=cache_size(-2000)&_pragma=mmap_size(1073741824)&_pragma=temp_store(MEMORY)&_pragma=journal_size_limit(-1)&_txlock=immediate"
}

// sqliteReadDSN is SQLiteDSN for the read pool: deferred transactions, which
// take no write lock until they write.
func sqliteReadDSN(path string) string {
	return strings.TrimSuffix(SQLiteDSN(path), "&_txlock=immediate")
}

func openSQLite(ctx context.Context, dir string) (*DB, error) {
	if dir == "" {
		dir = "./data"
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	path := filepath.Join(dir, "chakshu.db")
	r, err := sql.Open("sqlite", sqliteReadDSN(path))
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	w, err := sql.Open("sqlite", SQLiteDSN(path))
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	// Readers share a small pool and read concurrently; every write takes
	// the one write connection in turn.
	const conns = 8
	r.SetMaxOpenConns(conns)
	r.SetMaxIdleConns(conns) // the default keeps 2: a busier moment would reopen connections and rerun the pragmas
	r.SetConnMaxIdleTime(5 * time.Minute)
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(5 * time.Minute)
	for _, p := range []*sql.DB{w, r} { // the write connection first: it creates the file in WAL mode
		if err := p.PingContext(ctx); err != nil {
			r.Close()
			w.Close()
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
	}
	drv := &splitDriver{Driver: entsql.OpenDB(dialect.SQLite, w), read: entsql.OpenDB(dialect.SQLite, r)}
	return &DB{Client: ent.NewClient(ent.Driver(drv)), SQL: r, W: w, Dialect: dialect.SQLite, idle: conns, driver: drv}, nil
}

func openPostgres(ctx context.Context, o Options) (*DB, error) {
	u, err := url.Parse(o.DatabaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, fmt.Errorf("CHAKSHU_DATABASE_URL must be a postgres:// URL")
	}
	db, err := sql.Open("pgx", o.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	n := o.MaxOpenConns
	if n <= 0 {
		n = 20
	}
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	db.SetConnMaxIdleTime(5 * time.Minute)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open postgres at %s: %w", redactURL(u), err)
	}
	drv := entsql.OpenDB(dialect.Postgres, db)
	return &DB{Client: ent.NewClient(ent.Driver(drv)), SQL: db, W: db, Dialect: dialect.Postgres, URL: o.DatabaseURL, idle: n, driver: drv}, nil
}

func redactURL(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User(c.User.Username())
	}
	return c.String()
}

// migrateLockKey is the PostgreSQL advisory lock that serialises migrations
// when several processes start at once.
const migrateLockKey = 0x6368616b736875 // "chakshu"

// Migrate brings the database to the current schema (migrate.go: additive,
// versioned, and never undone by an older release running beside this one).
func (db *DB) Migrate(ctx context.Context) error {
	_, err := db.MigrateAs(ctx, Current)
	return err
}

// Ping checks the database answers (readiness).
func (db *DB) Ping(ctx context.Context) error { return db.SQL.PingContext(ctx) }

// Close closes the client and the pools.
func (db *DB) Close() error { return db.Client.Close() }

// Rebind turns ?-placeholders into $n for PostgreSQL, for hand-written SQL.
func (db *DB) Rebind(q string) string {
	if !db.Postgres() {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// WithTx runs fn in a transaction, committing when it returns nil. When
// PostgreSQL aborts the transaction to break a deadlock (Retryable), fn runs
// again in a new one: it must write only through tx, and set afresh anything
// outside it that it fills in.
func (db *DB) WithTx(ctx context.Context, fn func(tx *ent.Tx) error) error {
	return Retry(ctx, func() error { return db.withTx(ctx, fn) })
}

func (db *DB) withTx(ctx context.Context, fn func(tx *ent.Tx) error) error {
	tx, err := db.Tx(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if v := recover(); v != nil {
			tx.Rollback() //nolint:errcheck
			panic(v)
		}
	}()
	if err := fn(tx); err != nil {
		if rerr := tx.Rollback(); rerr != nil {
			err = fmt.Errorf("%w: rolling back: %v", err, rerr)
		}
		return err
	}
	return tx.Commit()
}
