package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	atlas "ariga.io/atlas/sql/schema"
	"entgo.io/ent/dialect/sql/schema"

	"github.com/chakshu-dev/chakshu/ent/migrate"
	"github.com/chakshu-dev/chakshu/internal/version"
)

// Upgrades without flip-flop. Chakshu migrates additively at start-up (ent's
// auto-migration with drops switched off) and records, in the table
// chakshu_schema, every schema version that started against the database.
// What a start does depends on how its release compares with what the
// database has seen:
//
//   - A release older than the database's newest schema changes nothing: no
//     DDL, no trigger, no rollup rebuild. Its ent schema is a subset of the
//     newer one (additive-only), so it reads and writes the newer tables as
//     they are; a newer column it does not know takes its database default.
//   - A release at or above the newest schema runs the additive migration
//     (tables, columns and indexes are created; nothing is dropped or
//     narrowed), so a newer binary of a rolling deploy brings the schema up
//     while older ones keep running.
//   - The cost rollup's triggers carry a version. Only a release with a newer
//     trigger version replaces them (and rebuilds the rollup, once); an equal
//     or older one leaves them, without locking runs.
//   - Each release declares the oldest schema it still runs beside
//     (MinCompatible). A binary whose schema is below the database's highest
//     MinCompatible refuses to start with one line naming both versions.
//
// Why not versioned migration files (Atlas): Chakshu runs on SQLite and
// PostgreSQL, is developed on many branches at once that each add ent fields,
// and must let N and N-1 run side by side. Versioned files would need a pair
// of files per change per dialect, regenerated against a dev database of each
// dialect and renumbered at every merge; the additive auto-migration takes any
// merged ent schema as it is (one `make generate`), and the version table
// gives the guarantees the files would: ordering, a record of what ran, and a
// refusal when a binary is too old. The cost is the rule it rests on: a schema
// change is additive (new tables, nullable or defaulted columns, new
// indexes); a column is never renamed, dropped or narrowed in one release.
// Removing one takes two: release N removes it from the ent schema (so no
// query of N names it), release N+1 (with MinCompatible ≥ N) may drop it.

// Release is what a binary's migration knows about its own schema.
type Release struct {
	// Schema numbers the release's schema. Bump it in a release whose ent
	// schema or hand-written DDL changes (a release without such a change
	// may keep it). 1 was the last release without chakshu_schema.
	Schema int
	// MinCompatible is the oldest Schema that may still run against a
	// database this release migrated; 0 means Schema-1 (the previous release,
	// for a rollback).
	MinCompatible int
	// Rollup is the version of the cost rollup's triggers (rollup.go).
	Rollup int
	// Build names the binary in the record; empty means version.Version.
	Build string
}

// Current is this binary's release.
//
// Schema 3 (this wave): findings' evidence and outcome, shadow runs and
// backtests, the active-review index that leaves shadow runs out, and the
// typed result (runs.result). Schema 2 still runs beside it: its runs are
// never shadow, so the new index keeps its one-active-review rule; and
// schema 3 keeps writing the result_json and checked columns schema 2 reads
// (runstate.Result reads them back for runs schema 2 reported).
//
// Schema 4: the facts a run's job used (runs.pr_files, runs.repo_config),
// which publishing and the job read instead of asking GitHub again (both
// nullable: a run an older binary queued or built has none, and is read
// from GitHub as before). The result is stored once: schema 4 neither
// writes nor reads result_json and checked, and its migration converts the
// runs that have only those (backfillResults). Schema 3 runs beside it (it
// writes the typed result too); schema 2, which reads only the legacy
// columns, does not.
//
// Schema 5: result_json and checked leave the ent schema (migrateLegacyResults
// converts the runs schema 2 reported). It runs beside schema 4, whose ent
// queries still name both columns (every runs SELECT, and result_json's
// default on insert), so the columns stay until the first release whose
// minimum compatible schema is 5 (legacyResultsDropFrom) drops them.
var Current = Release{Schema: 5, MinCompatible: 4, Rollup: RollupVersion}

// MigrateReport says what a migration did.
type MigrateReport struct {
	// DatabaseSchema is the newest schema that had started against the
	// database before this one (0: a new database).
	DatabaseSchema int
	// SchemaChanged is true when the additive migration ran (this release
	// is at or above DatabaseSchema).
	SchemaChanged bool
	// RollupInstalled is true when this start installed its rollup triggers
	// and rebuilt the rollup.
	RollupInstalled bool
	// RollupKept is the trigger version left in force when it was not
	// this release's (a newer release installed it).
	RollupKept int
}

// ErrSchemaTooOld means the database was migrated by a release that does not
// run beside this one.
var ErrSchemaTooOld = errors.New("database needs a newer Chakshu")

const schemaTable = `chakshu_schema`

func (db *DB) schemaDDL() string {
	return `CREATE TABLE IF NOT EXISTS ` + schemaTable + ` (
		schema_version BIGINT NOT NULL PRIMARY KEY,
		min_compatible BIGINT NOT NULL,
		rollup_version BIGINT NOT NULL,
		build TEXT NOT NULL,
		first_started_at BIGINT NOT NULL,
		last_started_at BIGINT NOT NULL
	)`
}

// SchemaRecord is one row of chakshu_schema: a schema version that started.
type SchemaRecord struct {
	Schema, MinCompatible, Rollup int
	Build                         string
	FirstStarted, LastStarted     time.Time
}

// SchemaHistory lists the schema versions that started against the database,
// oldest first (doctor, tests).
func (db *DB) SchemaHistory(ctx context.Context) ([]SchemaRecord, error) {
	rows, err := db.SQL.QueryContext(ctx, `SELECT schema_version, min_compatible, rollup_version, build, first_started_at, last_started_at
		FROM `+schemaTable+` ORDER BY schema_version`)
	if err != nil {
		return nil, fmt.Errorf("schema history: %w", err)
	}
	defer rows.Close()
	var out []SchemaRecord
	for rows.Next() {
		var r SchemaRecord
		var first, last int64
		if err := rows.Scan(&r.Schema, &r.MinCompatible, &r.Rollup, &r.Build, &first, &last); err != nil {
			return nil, fmt.Errorf("schema history: %w", err)
		}
		r.FirstStarted, r.LastStarted = time.Unix(first, 0).UTC(), time.Unix(last, 0).UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}

// MigrateAs migrates the database as release rel would (Migrate uses
// Current; tests play an older or newer release against one database).
func (db *DB) MigrateAs(ctx context.Context, rel Release) (MigrateReport, error) {
	var rep MigrateReport
	if rel.MinCompatible == 0 {
		rel.MinCompatible = rel.Schema - 1
	}
	if rel.Build == "" {
		rel.Build = version.Version
	}
	if db.Postgres() {
		// One migration at a time across processes; the lock is per session.
		conn, err := db.SQL.Conn(ctx)
		if err != nil {
			return rep, fmt.Errorf("migrate: %w", err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", migrateLockKey); err != nil {
			return rep, fmt.Errorf("migrate: lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrateLockKey) //nolint:errcheck
	}
	if _, err := db.W.ExecContext(ctx, db.schemaDDL()); err != nil {
		return rep, fmt.Errorf("migrate: schema table: %w", err)
	}
	var newest, minCompat sql.NullInt64
	if err := db.SQL.QueryRowContext(ctx, `SELECT MAX(schema_version), MAX(min_compatible) FROM `+schemaTable).Scan(&newest, &minCompat); err != nil {
		return rep, fmt.Errorf("migrate: read schema version: %w", err)
	}
	rep.DatabaseSchema = int(newest.Int64)
	if !newest.Valid {
		// No record: a new database, or one of release 1 (before the table).
		var runs bool
		if err := db.SQL.QueryRowContext(ctx, db.tableExistsQuery(), "runs").Scan(&runs); err != nil {
			return rep, fmt.Errorf("migrate: %w", err)
		}
		if runs {
			rep.DatabaseSchema = 1
		}
	}
	if int(minCompat.Int64) > rel.Schema {
		return rep, fmt.Errorf("%w: the database was migrated by Chakshu schema %d, which runs beside schema %d or newer; this binary is schema %d: run a release at least as new as the database's (see docs/production.md, Upgrades and rollback)",
			ErrSchemaTooOld, rep.DatabaseSchema, minCompat.Int64, rel.Schema)
	}
	if rel.Schema >= rep.DatabaseSchema {
		// retrystate.go: retry state moved from timeline notes to columns.
		hasRetry, err := db.runsHasColumn(ctx, "publish_failures")
		if err != nil {
			return rep, err
		}
		if err := db.Schema.Create(ctx, migrate.WithDropColumn(false), migrate.WithDropIndex(false), schema.WithDiffHook(constantDefaults)); err != nil {
			return rep, fmt.Errorf("migrate: %w", err)
		}
		if !hasRetry {
			if err := db.backfillRetryColumns(ctx); err != nil {
				return rep, err
			}
		}
		if err := db.migrateIntake(ctx); err != nil {
			return rep, err
		}
		if err := db.migrateRetention(ctx); err != nil {
			return rep, err
		}
		if err := db.migrateQueueIndexes(ctx); err != nil {
			return rep, err
		}
		if err := db.dropReplacedIndexes(ctx); err != nil {
			return rep, err
		}
		if err := db.migrateLegacyResults(ctx, rel); err != nil {
			return rep, err
		}
		rep.SchemaChanged = true
	}
	installed, kept, err := db.migrateRollup(ctx, rel.Rollup)
	if err != nil {
		return rep, err
	}
	rep.RollupInstalled, rep.RollupKept = installed, kept
	if err := db.recordStart(ctx, rel); err != nil {
		return rep, err
	}
	return rep, nil
}

// recordStart notes that rel started: its first and last start.
func (db *DB) recordStart(ctx context.Context, rel Release) error {
	now := time.Now().Unix()
	_, err := db.W.ExecContext(ctx, db.Rebind(`INSERT INTO `+schemaTable+`
		(schema_version, min_compatible, rollup_version, build, first_started_at, last_started_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (schema_version) DO UPDATE SET min_compatible = excluded.min_compatible, rollup_version = excluded.rollup_version,
		build = excluded.build, last_started_at = excluded.last_started_at`),
		rel.Schema, rel.MinCompatible, rel.Rollup, rel.Build, now, now)
	if err != nil {
		return fmt.Errorf("migrate: record schema version: %w", err)
	}
	return nil
}

func (db *DB) tableExistsQuery() string {
	if db.Postgres() {
		return `SELECT EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1)`
	}
	return `SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?)`
}

func rollupTriggerPrefix(v int) string { return "runs_rollup_v" + strconv.Itoa(v) }

var rollupTriggerName = regexp.MustCompile(`^runs_rollup_v([0-9]+)_`)

// RollupTriggers lists the installed rollup triggers by version.
func (db *DB) RollupTriggers(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) (map[int][]string, error) {
	listQ := "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'runs_rollup_%'"
	if db.Postgres() {
		listQ = "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgname LIKE 'runs_rollup_%'"
	}
	rows, err := q.QueryContext(ctx, listQ)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int][]string{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		m := rollupTriggerName.FindStringSubmatch(n)
		if m == nil {
			continue
		}
		v, _ := strconv.Atoi(m[1])
		out[v] = append(out[v], n)
	}
	return out, rows.Err()
}

// migrateRollup installs the triggers of version v when none of v or newer
// are installed: it drops the older ones and rebuilds the rollup, in one
// transaction that holds writers of runs off (PostgreSQL: a table lock taken
// only then). When v or a newer version is in force it changes nothing and
// reports the version kept.
func (db *DB) migrateRollup(ctx context.Context, v int) (installed bool, kept int, err error) {
	newest := func(m map[int][]string) int {
		n := 0
		for k := range m {
			n = max(n, k)
		}
		return n
	}
	have, err := db.RollupTriggers(ctx, db.SQL)
	if err != nil {
		return false, 0, fmt.Errorf("cost rollup: %w", err)
	}
	if n := newest(have); n >= v {
		if n > v {
			kept = n
		}
		return false, kept, nil
	}
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		return false, 0, fmt.Errorf("cost rollup: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	if db.Postgres() {
		if _, err := tx.ExecContext(ctx, "LOCK TABLE runs IN SHARE ROW EXCLUSIVE MODE"); err != nil {
			return false, 0, fmt.Errorf("cost rollup: %w", err)
		}
	}
	// Again under the lock: another process may have installed them meanwhile.
	if have, err = db.RollupTriggers(ctx, tx); err != nil {
		return false, 0, fmt.Errorf("cost rollup: %w", err)
	}
	if n := newest(have); n >= v {
		if n > v {
			kept = n
		}
		return false, kept, nil
	}
	for old, names := range have {
		for _, n := range names {
			q := "DROP TRIGGER IF EXISTS " + n
			if db.Postgres() {
				q += " ON runs"
			}
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return false, 0, fmt.Errorf("cost rollup: drop %s: %w", n, err)
			}
		}
		if db.Postgres() {
			if _, err := tx.ExecContext(ctx, "DROP FUNCTION IF EXISTS "+rollupTriggerPrefix(old)+"()"); err != nil {
				return false, 0, fmt.Errorf("cost rollup: drop function v%d: %w", old, err)
			}
		}
	}
	for _, q := range db.rollupDDL(v) {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return false, 0, fmt.Errorf("cost rollup: install triggers: %w", err)
		}
	}
	if err := db.rebuildRollup(ctx, tx); err != nil {
		return false, 0, err
	}
	if err := tx.Commit(); err != nil {
		return false, 0, fmt.Errorf("cost rollup: %w", err)
	}
	return true, 0, nil
}

// constantDefault is a column default that is a constant: a number, a
// quoted string or a boolean keyword (SQLite takes TRUE and FALSE as constants).
var constantDefault = regexp.MustCompile(`^(?:-?[0-9]+(?:\.[0-9]+)?|'(?:[^']|'')*'|(?i:true|false))$`)

// constantDefaults gives each added column's constant default to the
// migration planner as a literal. ent writes every default as a raw
// expression, and on SQLite Atlas then copies the whole table into a new one
// to add the column (ALTER TABLE ADD COLUMN takes only a constant default)
// instead of altering it in place: on a large runs table that is a long
// write lock, and the copy drops the table's triggers (the cost rollup's),
// which forced a rollup rebuild on every upgrade. A constant stays a
// constant, so nothing else changes. Likewise a new column that a new index
// covers: Atlas copies the table for it too, although the index is created by
// its own CREATE INDEX change after the column is added.
func constantDefaults(next schema.Differ) schema.Differ {
	return schema.DiffFunc(func(current, desired *atlas.Schema) ([]atlas.Change, error) {
		changes, err := next.Diff(current, desired)
		if err != nil {
			return nil, err
		}
		for _, c := range changes {
			m, ok := c.(*atlas.ModifyTable)
			if !ok {
				continue
			}
			added := map[*atlas.Index]bool{}
			for _, mc := range m.Changes {
				if ai, ok := mc.(*atlas.AddIndex); ok {
					added[ai.I] = true
				}
			}
			for _, mc := range m.Changes {
				if add, ok := mc.(*atlas.AddColumn); ok {
					if x, ok := add.C.Default.(*atlas.RawExpr); ok && constantDefault.MatchString(x.X) {
						add.C.Default = &atlas.Literal{V: x.X}
					}
					if len(add.C.Indexes) > 0 && !slices.ContainsFunc(add.C.Indexes, func(i *atlas.Index) bool { return !added[i] }) {
						add.C.Indexes = nil
					}
				}
			}
		}
		return changes, nil
	})
}

// replacedIndexes are indexes an ent index under another name replaced. The
// additive migration never drops an index (an older binary beside this one
// may rely on it), so the one that must go is dropped here by name, after
// its replacement exists.
var replacedIndexes = []string{
	// Schema 3: run_active_review leaves shadow runs out; this one blocked a
	// backtest's old and new version of a head, and a real review beside them.
	"run_pr_number_head_sha_kind_repository_runs_reviewer_runs",
}

func (db *DB) dropReplacedIndexes(ctx context.Context) error {
	for _, name := range replacedIndexes {
		if _, err := db.W.ExecContext(ctx, "DROP INDEX IF EXISTS "+name); err != nil {
			return fmt.Errorf("migrate: drop replaced index %s: %w", name, err)
		}
	}
	return nil
}
