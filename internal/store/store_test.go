package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// The partial unique index refuses a second active review run for the same PR,
// reviewer and head SHA, and allows one again once the first is finished.
func TestActiveRunUniqueness(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		repo, rv := storetest.SeedRepoReviewer(t, ctx, db)
		mk := func() (*ent.Run, error) {
			return db.Run.Create().SetRepository(repo).SetReviewer(rv).SetPrNumber(7).
				SetHeadSha("abc").SetTrigger(run.TriggerComment).Save(ctx)
		}
		first, err := mk()
		if err != nil {
			t.Fatalf("first run: %v", err)
		}
		if _, err := mk(); !ent.IsConstraintError(err) {
			t.Fatalf("second active run: got %v, want a constraint error", err)
		}
		db.Run.UpdateOne(first).SetStatus(run.StatusSucceeded).ExecX(ctx)
		if _, err := mk(); err != nil {
			t.Fatalf("run after the first finished: %v", err)
		}
	})
}

// Migrate twice is a no-op and keeps data (the additive upgrade path).
func TestMigrateKeepsData(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		repo, _ := storetest.SeedRepoReviewer(t, ctx, db)
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		got := db.Repository.GetX(ctx, repo.ID)
		if got.FullName != "acme/api" {
			t.Fatalf("repository after migrate: %q", got.FullName)
		}
	})
}

// A database created by an older schema (here: before runs.check_completed and
// installations.sync_requested_at existed, and without a later index) is
// brought to the current schema by Migrate, and its data survives.
func TestMigrateUpgradesOlderSchema(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		repo, rv := storetest.SeedRepoReviewer(t, ctx, db)
		r := db.Run.Create().SetRepository(repo).SetReviewer(rv).SetPrNumber(9).SetHeadSha("h").
			SetTrigger(run.TriggerPortal).SetCostUsd(1.25).SaveX(ctx)
		for _, q := range []string{
			`DROP INDEX IF EXISTS run_actions_run_id`,
			`ALTER TABLE runs DROP COLUMN check_completed`,
			`ALTER TABLE installations DROP COLUMN sync_requested_at`,
		} {
			if _, err := db.SQL.ExecContext(ctx, q); err != nil {
				t.Fatalf("make the old schema: %s: %v", q, err)
			}
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("upgrade: %v", err)
		}
		got := db.Run.GetX(ctx, r.ID)
		if got.CostUsd != 1.25 || got.CheckCompleted {
			t.Fatalf("run after upgrade: cost %v check_completed %v", got.CostUsd, got.CheckCompleted)
		}
		db.Run.UpdateOne(got).SetCheckCompleted(true).ExecX(ctx)
		if !db.Run.GetX(ctx, r.ID).CheckCompleted {
			t.Fatal("the re-added column does not store")
		}
	})
}

// A data dir whose name holds URI characters still opens the file it names.
func TestSQLitePathWithURICharacters(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "odd#dir?x=1%20")
	db, err := store.Open(ctx, store.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "chakshu.db")); err != nil {
		t.Fatalf("the database is not where the data dir says: %v", err)
	}
}

// A database from before the retry-state columns: Migrate adds them and fills
// them from what older versions kept in the timeline and in next_attempt_at,
// for the runs still under way, and leaves everything else at its default.
func TestMigrateBackfillsRetryColumns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		repo, rv := storetest.SeedRepoReviewer(t, ctx, db)
		mk := func(pr int, status run.Status) *ent.RunCreate {
			return db.Run.Create().SetRepository(repo).SetReviewer(rv).SetPrNumber(pr).SetHeadSha("h").
				SetTrigger(run.TriggerPortal).SetStatus(status)
		}
		note := func(id int, msg string, at time.Time) {
			db.RunEvent.Create().SetRunID(id).SetMessage(msg).SetAt(at).ExecX(ctx)
		}
		at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
		due := at.Add(30 * time.Second)
		// Publishing, interrupted twice.
		pub := mk(1, run.StatusPublishing).SaveX(ctx).ID
		note(pub, store.NotePublishRetry, at)
		note(pub, store.NotePublishRetry, at.Add(time.Minute))
		note(pub, "something else", at)
		// Publishing, never interrupted.
		fresh := mk(2, run.StatusPublishing).SaveX(ctx).ID
		// Failed with its check still to complete: Actions cancelled, finisher waiting.
		failed := mk(3, run.StatusFailed).SetCheckRunID(7).SetActionsRunID(8).SetNextAttemptAt(due).SaveX(ctx).ID
		note(failed, store.NoteActionsFinished, at)
		// Cancelled and finished on GitHub long ago: history, left alone.
		old := mk(4, run.StatusCancelled).SetCheckRunID(9).SetCheckCompleted(true).SetNextAttemptAt(due).SaveX(ctx).ID
		note(old, store.NoteActionsCancelled, at)
		for _, col := range []string{"publish_failures", "finish_attempts", "finish_next_at", "actions_cancelled_at"} {
			if _, err := db.SQL.ExecContext(ctx, `ALTER TABLE runs DROP COLUMN `+col); err != nil {
				t.Fatalf("make the old schema: %s: %v", col, err)
			}
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("upgrade: %v", err)
		}
		if got := db.Run.GetX(ctx, pub); got.PublishFailures != 2 {
			t.Errorf("publishing run: %d failures, want 2 from its timeline", got.PublishFailures)
		}
		if got := db.Run.GetX(ctx, fresh); got.PublishFailures != 0 || got.ActionsCancelledAt != nil || got.FinishNextAt != nil {
			t.Errorf("fresh run: %+v", got)
		}
		got := db.Run.GetX(ctx, failed)
		if got.ActionsCancelledAt == nil || !got.ActionsCancelledAt.Equal(at) {
			t.Errorf("failed run: actions_cancelled_at %v, want %v", got.ActionsCancelledAt, at)
		}
		if got.FinishNextAt == nil || !got.FinishNextAt.Equal(due) || got.FinishAttempts != 0 {
			t.Errorf("failed run: finish_next_at %v attempts %d, want %v and 0", got.FinishNextAt, got.FinishAttempts, due)
		}
		if got := db.Run.GetX(ctx, old); got.ActionsCancelledAt != nil || got.FinishNextAt != nil {
			t.Errorf("finished history was touched: %v %v", got.ActionsCancelledAt, got.FinishNextAt)
		}
		// The backfill runs once, on the upgrade: a later Migrate leaves the columns as they are.
		db.Run.UpdateOne(db.Run.GetX(ctx, pub)).SetPublishFailures(0).ExecX(ctx)
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if got := db.Run.GetX(ctx, pub); got.PublishFailures != 0 {
			t.Errorf("a second Migrate backfilled again: %d", got.PublishFailures)
		}
	})
}
