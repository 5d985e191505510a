package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
)

// Legacy result columns of runs: schema 2 stored a run's result only in
// result_json and checked, schema 3 beside the typed result, schema 4 in the
// typed result alone (but its ent queries still list both columns, and its
// inserts write result_json's default). Schema 5's ent has neither.
var legacyResultColumns = []string{"result_json", "checked"}

// legacyResultsDropFrom is the oldest compatible schema from which a release
// drops the legacy columns: the first schema whose queries do not name them.
const legacyResultsDropFrom = 5

// migrateLegacyResults gives each run reported by schema 2 its typed result,
// converted from the legacy columns, then drops them when rel runs beside
// no schema that names them (docs/production.md, Upgrades and rollback). In
// one migration, so a database straight from schema 2 or 3 loses no result.
// Idempotent: a database without the columns is left as it is.
func (db *DB) migrateLegacyResults(ctx context.Context, rel Release) error {
	for _, c := range legacyResultColumns {
		has, err := db.runsHasColumn(ctx, c)
		if err != nil || !has {
			return err
		}
	}
	if err := db.backfillResults(ctx); err != nil {
		return err
	}
	if rel.MinCompatible < legacyResultsDropFrom {
		return nil
	}
	// Both or neither: one transaction.
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: drop legacy results: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	for _, c := range legacyResultColumns {
		if _, err := tx.ExecContext(ctx, "ALTER TABLE runs DROP COLUMN "+c); err != nil {
			return fmt.Errorf("migrate: drop runs.%s: %w", c, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: drop legacy results: %w", err)
	}
	return nil
}

// backfillResults converts, in batches, the runs that have a legacy result
// and no typed one. A run whose legacy result does not parse keeps none:
// publishing fails it as unreadable, as it did.
func (db *DB) backfillResults(ctx context.Context) error {
	last := 0
	for {
		rows, err := db.SQL.QueryContext(ctx, db.Rebind(`SELECT id, kind, result_json, checked FROM runs
			WHERE result IS NULL AND result_json <> '' AND id > ? ORDER BY id LIMIT 200`), last)
		if err != nil {
			return fmt.Errorf("migrate: legacy results: %w", err)
		}
		type legacy struct {
			id           int
			kind, result string
			checked      []byte
		}
		var batch []legacy
		for rows.Next() {
			var l legacy
			if err := rows.Scan(&l.id, &l.kind, &l.result, &l.checked); err != nil {
				rows.Close()
				return fmt.Errorf("migrate: legacy results: %w", err)
			}
			batch = append(batch, l)
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("migrate: legacy results: %w", err)
		}
		if len(batch) == 0 {
			return nil
		}
		for _, l := range batch {
			last = l.id
			st, err := legacyResult(run.Kind(l.kind), l.result, l.checked)
			if err != nil {
				continue
			}
			b, err := json.Marshal(st)
			if err != nil {
				return fmt.Errorf("migrate: legacy result of run %d: %w", l.id, err)
			}
			// updated_at kept: the run did not change, its column did.
			if _, err := db.W.ExecContext(ctx, db.Rebind(`UPDATE runs SET result = ? WHERE id = ?`), b, l.id); err != nil {
				return fmt.Errorf("migrate: legacy result of run %d: %w", l.id, err)
			}
		}
	}
}

// legacyResult reads a run's result from its legacy columns, as schema 2
// stored it (the JSON was validated and redacted then; parsing it again
// fills the defaults schema 2 left to the reader).
func legacyResult(kind run.Kind, resultJSON string, checked []byte) (*findings.Stored, error) {
	if kind == run.KindReply {
		rr, err := findings.ParseReply([]byte(resultJSON))
		if err != nil {
			return nil, err
		}
		return &findings.Stored{Reply: rr}, nil
	}
	res, err := findings.ParseResult([]byte(resultJSON))
	if err != nil {
		return nil, err
	}
	st := &findings.Stored{Review: res}
	if checked != nil && string(checked) != "null" {
		if err := json.Unmarshal(checked, &st.Checked); err != nil {
			return nil, err
		}
	}
	return st, nil
}
