package store

import (
	"context"
	"fmt"
)

// queueIndexes serve the fair claim and the in-flight count with a short
// walk each: per repository, its waiting runs oldest first, and its runs a
// dispatcher holds. ent cannot put an edge's column first in an index, and
// both are partial (SQLite and PostgreSQL alike), so they stay small however
// long the history grows.
var queueIndexes = []string{
	`CREATE INDEX IF NOT EXISTS run_queued_by_repository ON runs (repository_runs, created_at, id) WHERE status = 'queued' AND lease_owner = ''`,
	`CREATE INDEX IF NOT EXISTS run_held_by_repository ON runs (repository_runs) WHERE status = 'queued' AND lease_owner <> ''`,
}

func (db *DB) migrateQueueIndexes(ctx context.Context) error {
	for _, q := range queueIndexes {
		if _, err := db.W.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("migrate: queue index: %w", err)
		}
	}
	return nil
}
