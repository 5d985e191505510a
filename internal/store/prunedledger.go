package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// PrunedTable keeps the cost rollup's figures of pruned runs, in the rollup's
// own cells: a rebuild of the rollup from the runs adds it back, so pruning
// never changes the costs, counts or durations the portal shows.
const PrunedTable = "cost_rollup_pruned"

// migrateRetention creates the ledger of pruned runs. Hand-written (not an
// ent schema): only this file reads or writes it.
func (db *DB) migrateRetention(ctx context.Context) error {
	float := "REAL"
	if db.Postgres() {
		float = "DOUBLE PRECISION"
	}
	cols := []string{"grain TEXT NOT NULL", "day TEXT NOT NULL", "repository_id BIGINT NOT NULL", "reviewer_id BIGINT NOT NULL"}
	for _, c := range RollupSums {
		t := "BIGINT"
		if c == "cost_usd" {
			t = float
		}
		cols = append(cols, c+" "+t+" NOT NULL DEFAULT 0")
	}
	q := "CREATE TABLE IF NOT EXISTS " + PrunedTable + " (" + strings.Join(cols, ", ") +
		", PRIMARY KEY (grain, day, repository_id, reviewer_id))"
	if _, err := db.W.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("migrate: %s: %w", PrunedTable, err)
	}
	return nil
}

// AddRunsTo adds the rollup contribution of the runs matching where (SQL over
// runs, with args) to every cell of table (cost_rollups or the ledger).
func (db *DB) AddRunsTo(ctx context.Context, tx *sql.Tx, table, where string, args ...any) error {
	sums := RunContribution("")
	for i := range sums {
		sums[i] = "SUM(" + sums[i] + ")"
	}
	set := make([]string, len(RollupSums))
	for i, c := range RollupSums {
		set[i] = c + " = " + table + "." + c + " + excluded." + c
	}
	for _, g := range RollupGrains {
		for _, l := range rollupLevels {
			repo, rev := l.cols("")
			group := []string{db.RollupDay(g, "created_at")}
			for _, c := range []string{repo, rev} {
				if c != "0" {
					group = append(group, c)
				}
			}
			q := "INSERT INTO " + table + " (grain, day, repository_id, reviewer_id, " + strings.Join(RollupSums, ", ") + ")\n" +
				"SELECT '" + g + l.suffix + "', " + db.RollupDay(g, "created_at") + ", " + repo + ", " + rev + ", " + strings.Join(sums, ", ") +
				"\nFROM runs WHERE " + where + " GROUP BY " + strings.Join(group, ", ") +
				"\nON CONFLICT (grain, day, repository_id, reviewer_id) DO UPDATE SET " + strings.Join(set, ", ")
			if _, err := tx.ExecContext(ctx, db.Rebind(q), args...); err != nil {
				return fmt.Errorf("cost rollup: add to %s: %w", table, err)
			}
		}
	}
	return nil
}

// addPrunedToRollup adds the ledger of pruned runs to a rollup just rebuilt
// from the runs.
func (db *DB) addPrunedToRollup(ctx context.Context, tx *sql.Tx) error {
	set := make([]string, len(RollupSums))
	for i, c := range RollupSums {
		set[i] = c + " = cost_rollups." + c + " + excluded." + c
	}
	cols := "grain, day, repository_id, reviewer_id, " + strings.Join(RollupSums, ", ")
	q := "INSERT INTO cost_rollups (" + cols + ") SELECT " + cols + " FROM " + PrunedTable +
		" WHERE true ON CONFLICT (grain, day, repository_id, reviewer_id) DO UPDATE SET " + strings.Join(set, ", ")
	if _, err := tx.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("cost rollup: add pruned runs: %w", err)
	}
	return nil
}
