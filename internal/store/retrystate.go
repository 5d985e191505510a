package store

import (
	"context"
	"fmt"
)

// Timeline sentences about retries. The worker writes them for people to
// read; versions before the retry-state columns also counted them back (a
// publish retry bound, a "cancelled once" flag), so the upgrade reads them
// once to fill the columns.
const (
	// NotePublishRetry: publishing was interrupted and put back for a retry.
	NotePublishRetry = "Publishing was interrupted; it will be tried again."
	// NoteActionsCancelled: the finisher cancelled the Actions run of an ended run.
	NoteActionsCancelled = "Cancelled the GitHub Actions run."
	// NoteActionsFinished: the Actions run of an ended run had finished by itself.
	NoteActionsFinished = "The GitHub Actions run had already finished."
)

// runsHasColumn reports whether the runs table has the column.
func (db *DB) runsHasColumn(ctx context.Context, column string) (bool, error) {
	q := `SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name = ?`
	if db.Postgres() {
		q = `SELECT COUNT(*) FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = 'runs' AND column_name = $1`
	}
	var n int
	if err := db.SQL.QueryRowContext(ctx, q, column).Scan(&n); err != nil {
		return false, fmt.Errorf("migrate: look for runs.%s: %w", column, err)
	}
	return n == 1, nil
}

// backfillRetryColumns fills the retry-state columns of runs still under way
// from what older versions kept in the timeline and in next_attempt_at, once,
// right after Migrate added the columns. Finished history needs nothing: only
// a run still publishing reads its failures, and only a run whose check run is
// still to be completed reads the Actions flag and the finisher's due time.
func (db *DB) backfillRetryColumns(ctx context.Context) error {
	for _, s := range []struct {
		what, q string
		args    []any
	}{
		{"publish failures", `UPDATE runs SET publish_failures =
			(SELECT COUNT(*) FROM run_events e WHERE e.run_events = runs.id AND e.message = ?)
			WHERE status = 'publishing'`, []any{NotePublishRetry}},
		{"Actions run cancelled", `UPDATE runs SET actions_cancelled_at =
			(SELECT MIN(e.at) FROM run_events e WHERE e.run_events = runs.id AND e.message IN (?, ?))
			WHERE status IN ('failed','cancelled') AND NOT check_completed AND actions_cancelled_at IS NULL`,
			[]any{NoteActionsCancelled, NoteActionsFinished}},
		// The finisher kept its backoff in next_attempt_at, free once a run ended.
		{"finish due time", `UPDATE runs SET finish_next_at = next_attempt_at
			WHERE status IN ('failed','cancelled') AND NOT check_completed AND next_attempt_at IS NOT NULL`, nil},
	} {
		if _, err := db.W.ExecContext(ctx, db.Rebind(s.q), s.args...); err != nil {
			return fmt.Errorf("migrate: backfill %s: %w", s.what, err)
		}
	}
	return nil
}
