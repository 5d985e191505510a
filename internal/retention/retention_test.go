package retention_test

import (
	"context"
	"fmt"
	"github.com/chakshu-dev/chakshu/internal/retention"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/intake"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/runevent"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/ent/worker"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

const day = 24 * time.Hour

var rules = retention.Retention{WebhookPayloads: day, WebhookEvents: 8 * day, FailedEvents: 30 * day,
	RunEvents: 90 * day, Runs: 365 * day, Workers: 7 * day, Batch: 2}

// pruneAll runs batches until one removes nothing, checking each removes at
// most the batch size of each kind; it returns the sum and the batch count.
func pruneAll(t *testing.T, db *store.DB, r retention.Retention, now time.Time) (retention.Pruned, int) {
	t.Helper()
	var total retention.Pruned
	var after time.Time
	for i := 1; ; i++ {
		got, next, err := retention.PruneBatch(context.Background(), db, r, now, after)
		if err != nil {
			t.Fatal(err)
		}
		after = next
		for _, n := range []int{got.Payloads, got.WebhookEvents, got.FailedEvents, got.RunEvents, got.Runs, got.Workers} {
			if n > r.Batch {
				t.Fatalf("batch %d removed %+v, more than %d of a kind", i, got, r.Batch)
			}
		}
		total.Add(got)
		if got.Total() == 0 {
			return total, i
		}
		if i > 50 {
			t.Fatal("pruning does not finish")
		}
	}
}

// Each kind of row goes once it is older than its retention, and stays at
// exactly its retention (received or created at the cut-off); unhandled
// events, unfinished runs and their timelines stay whatever their age.
func TestPruneBoundaries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		repo, rv := storetest.SeedRepoReviewer(t, ctx, db)
		ev := func(id string, st webhookevent.Status, age time.Duration) {
			db.WebhookEvent.Create().SetDeliveryID(id).SetEvent("push").SetPayload([]byte(`{"x":1}`)).
				SetStatus(st).SetReceivedAt(now.Add(-age)).ExecX(ctx)
		}
		ev("payload-past", webhookevent.StatusDone, day+time.Second)
		ev("payload-at", webhookevent.StatusDone, day)
		ev("row-past-1", webhookevent.StatusDone, 8*day+time.Second)
		ev("row-past-2", webhookevent.StatusDone, 9*day)
		ev("row-past-3", webhookevent.StatusDone, 10*day)
		ev("row-at", webhookevent.StatusDone, 8*day)
		ev("failed-past", webhookevent.StatusFailed, 30*day+time.Second)
		ev("failed-at", webhookevent.StatusFailed, 30*day)
		ev("pending-old", webhookevent.StatusPending, 400*day)
		ev("failed-young", webhookevent.StatusFailed, 9*day) // past the done rows' age, not the failed ones'

		mkRun := func(pr int, st run.Status, age time.Duration) int {
			at := now.Add(-age)
			r := db.Run.Create().SetRepository(repo).SetReviewer(rv).SetPrNumber(pr).SetHeadSha("h").
				SetTrigger(run.TriggerComment).SetStatus(st).SetCostUsd(0.5 * float64(pr)).SetDurationMs(int64(pr) * 61_000).
				SetFindingsMajor(pr % 3).SetInputTokens(int64(100 * pr)).SetCreatedAt(at).SetUpdatedAt(at).SaveX(ctx)
			db.RunEvent.Create().SetRun(r).SetAt(at).SetToStatus(string(st)).SetMessage("m").ExecX(ctx)
			db.Finding.Create().SetRun(r).SetHiddenID(fmt.Sprint(pr)).SetPath("a.go").SetSeverity("major").SetTitle("t").ExecX(ctx)
			return r.ID
		}
		gone1 := mkRun(1, run.StatusSucceeded, 365*day+time.Second)
		gone2 := mkRun(2, run.StatusFailed, 366*day)
		gone3 := mkRun(3, run.StatusCancelled, 500*day)
		keptAt := mkRun(4, run.StatusSucceeded, 365*day)
		queuedOld := mkRun(5, run.StatusQueued, 400*day)
		timeline := mkRun(6, run.StatusSucceeded, 90*day+time.Second) // run stays, its timeline goes
		timelineAt := mkRun(7, run.StatusSucceeded, 90*day)
		young := mkRun(8, run.StatusSucceeded, time.Hour)

		db.Worker.Create().SetWorkerID("dead").SetHeartbeatAt(now.Add(-7*day - time.Second)).ExecX(ctx)
		db.Worker.Create().SetWorkerID("at").SetHeartbeatAt(now.Add(-7 * day)).ExecX(ctx)

		costs := storetest.RollupCells(t, db)
		total, batches := pruneAll(t, db, rules, now)
		// Timelines: those of the three runs past retention (before the runs
		// themselves go), of the run kept at 365 days and of the one at 90
		// days and a second.
		want := retention.Pruned{Payloads: 2, WebhookEvents: 3, FailedEvents: 1, RunEvents: 5, Runs: 3, Workers: 1}
		if total.Slowest <= 0 {
			t.Fatalf("pruned %+v without timing its writes", total)
		}
		if total.Slowest = 0; total != want {
			t.Fatalf("pruned %+v, want %+v", total, want)
		}
		if batches < 3 {
			t.Fatalf("%d batches for 3 runs in batches of 2", batches)
		}

		// Webhook events.
		left := map[string]int{}
		for _, e := range db.WebhookEvent.Query().AllX(ctx) {
			left[e.DeliveryID] = len(e.Payload)
		}
		wantLeft := map[string]int{"payload-past": 0, "payload-at": 7, "row-at": 0, "failed-at": 7, "pending-old": 7, "failed-young": 7}
		if diff := cmp.Diff(wantLeft, left); diff != "" {
			t.Fatalf("webhook events left, payload bytes (-want +got):\n%s", diff)
		}
		// Runs, their findings and timelines.
		for _, id := range []int{gone1, gone2, gone3} {
			if db.Run.Query().Where(run.ID(id)).ExistX(ctx) {
				t.Fatalf("run %d past retention is still there", id)
			}
		}
		for _, id := range []int{keptAt, queuedOld, timeline, timelineAt, young} {
			if !db.Run.Query().Where(run.ID(id)).ExistX(ctx) {
				t.Fatalf("run %d within retention or unfinished was deleted", id)
			}
		}
		if n := db.Finding.Query().CountX(ctx); n != 5 {
			t.Fatalf("%d findings left, want 5 (those of the runs kept)", n)
		}
		for id, want := range map[int]bool{keptAt: false, queuedOld: true, timeline: false, timelineAt: true, young: true} {
			if has := db.RunEvent.Query().Where(runevent.HasRunWith(run.ID(id))).ExistX(ctx); has != want {
				t.Fatalf("run %d timeline kept %v, want %v", id, has, want)
			}
		}
		if got := db.Worker.Query().Where(worker.WorkerID("at")).ExistX(ctx); !got || db.Worker.Query().CountX(ctx) != 1 {
			t.Fatal("workers: want only the one silent for exactly the retention")
		}

		// Costs: the rollup shows the pruned runs as before, and a rebuild
		// from what is left plus the ledger agrees.
		if diff := cmp.Diff(costs, storetest.RollupCells(t, db)); diff != "" {
			t.Fatalf("pruning changed the cost rollup (-before +after):\n%s", diff)
		}
		storetest.CheckRollupExact(t, db)

		// A second pass finds nothing; retention 0 keeps everything.
		if again, _ := pruneAll(t, db, rules, now); again.Total() != 0 {
			t.Fatalf("second pass pruned %+v", again)
		}
		if kept, _ := pruneAll(t, db, retention.Retention{Batch: 2}, now.Add(1000*day)); kept.Total() != 0 {
			t.Fatalf("retention 0 pruned %+v", kept)
		}
	})
}

// Runs are pruned only while this release's rollup triggers are in force: a
// newer release's triggers may treat a delete otherwise, so an older worker
// leaves the runs to it.
func TestPruneRunsOnlyUnderOwnTriggers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		repo, rv := storetest.SeedRepoReviewer(t, ctx, db)
		old := now.Add(-400 * day)
		db.Run.Create().SetRepository(repo).SetReviewer(rv).SetPrNumber(1).SetHeadSha("h").SetTrigger(run.TriggerComment).
			SetStatus(run.StatusSucceeded).SetCostUsd(1).SetCreatedAt(old).SetUpdatedAt(old).ExecX(ctx)
		if _, err := db.MigrateAs(ctx, store.Release{Schema: store.Current.Schema + 1, Rollup: store.Current.Rollup + 1}); err != nil {
			t.Fatal(err)
		}
		if got, _ := pruneAll(t, db, rules, now); got.Runs != 0 {
			t.Fatalf("pruned %d runs under a newer release's triggers", got.Runs)
		}
		if db.Run.Query().CountX(ctx) != 1 {
			t.Fatal("the run went")
		}
	})
}

// Pruning's writes reach their rows by id (the primary key), never through
// the index of the condition they check again: on SQLite, "id IN (…) AND
// status = 'done'" was answered from the status index, reading every handled
// event to delete a hundred (11 ms a transaction at 50,000 rows, holding the
// one write lock the webhook intake waits for). PostgreSQL is asked with
// sequential scans disabled.
func TestPruneWritesFindRowsByID(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		conn := storetest.PlanConn(t, db)
		writes := retention.PruneWrites(db, time.Now())
		if len(writes) < 9 {
			t.Fatalf("%d prune statements, want every kind's", len(writes))
		}
		for _, w := range writes {
			plan := storetest.Plan(t, db, conn, w.SQL, w.Args...)
			reached := false
			for _, line := range plan {
				if db.Postgres() {
					switch {
					case strings.HasPrefix(line, "Seq Scan on "+w.Table+" "):
						t.Errorf("reads %s whole: %s\n%s\nplan: %q", w.Table, line, w.SQL, plan)
					case strings.Contains(line, "Scan using "+w.Table+"_pkey on "+w.Table),
						strings.HasPrefix(line, "Bitmap Index Scan on "+w.Table+"_pkey"):
						reached = true
					case strings.Contains(line, " Scan using ") && strings.Contains(line, " on "+w.Table+" "):
						t.Errorf("reaches %s by another index: %s\n%s\nplan: %q", w.Table, line, w.SQL, plan)
					}
					continue
				}
				if strings.HasPrefix(line, "SEARCH "+w.Table+" ") || strings.HasPrefix(line, "SCAN "+w.Table) {
					if !strings.Contains(line, "INTEGER PRIMARY KEY") {
						t.Errorf("reaches %s otherwise than by id: %s\n%s\nplan: %q", w.Table, line, w.SQL, plan)
					}
					reached = true
				}
			}
			if !reached {
				t.Errorf("no plan line reaches %s by its primary key\n%s\nplan: %q", w.Table, w.SQL, plan)
			}
		}
	})
}

// The next payloads to empty are read through the receipt-time index, in
// order, so the LIMIT stops the read: through the status index every handled
// event was read and sorted for each batch (3 s a batch at a million rows,
// BenchmarkIntakeWhilePruning in server/webhook).
func TestPayloadsToClearReadByReceiptTime(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		conn := storetest.PlanConn(t, db)
		now := time.Now()
		plan := storetest.Plan(t, db, conn, retention.PayloadsToClear(db), now.Add(-time.Hour), now)
		joined := strings.Join(plan, "\n")
		if db.Postgres() {
			if !strings.Contains(joined, "webhookevent_received_at") || strings.Contains(joined, "Sort") {
				t.Fatalf("not an ordered read of the receipt-time index:\n%s", joined)
			}
			return
		}
		if !strings.Contains(joined, "USING INDEX webhookevent_received_at") || strings.Contains(joined, "TEMP B-TREE") {
			t.Fatalf("not an ordered read of the receipt-time index:\n%s", joined)
		}
	})
}

// Once pruning has caught up with the payloads, a batch does not scan the
// few milliseconds received since the previous one: the scan waits until a
// second of receipts has passed the cut-off, then clears them.
func TestPayloadScanWaitsForASecondOfReceipts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		r := retention.Retention{WebhookPayloads: day, WebhookEvents: 8 * day, Batch: 10}
		// Caught up to the cut-off 400 ms ago; one handled event with a
		// payload arrived just past that point.
		after := now.Add(-day - 400*time.Millisecond)
		db.WebhookEvent.Create().SetDeliveryID("late").SetEvent("push").SetPayload([]byte(`{"x":1}`)).
			SetStatus(webhookevent.StatusDone).SetReceivedAt(after.Add(100 * time.Millisecond)).ExecX(ctx)
		payload := func() int {
			return len(db.WebhookEvent.Query().Where(webhookevent.DeliveryID("late")).OnlyX(ctx).Payload)
		}

		got, next, err := retention.PruneBatch(ctx, db, r, now, after)
		if err != nil {
			t.Fatal(err)
		}
		if got.Payloads != 0 || !next.Equal(after) || payload() == 0 {
			t.Fatalf("400 ms past the cut-off: cleared %d, next from %v (want %v), payload %d bytes; want nothing scanned yet",
				got.Payloads, next, after, payload())
		}
		got, next, err = retention.PruneBatch(ctx, db, r, now.Add(700*time.Millisecond), next)
		if err != nil {
			t.Fatal(err)
		}
		if want := now.Add(700*time.Millisecond - day); got.Payloads != 1 || !next.Equal(want) || payload() != 0 {
			t.Fatalf("1.1 s past the cut-off: cleared %d, next from %v (want %v), payload %d bytes; want it cleared",
				got.Payloads, next, want, payload())
		}
	})
}

// WriteWaits reports, on SQLite, the intake's and pruning's waits for the
// write connection by kind; PostgreSQL has no single writer and reports none.
func TestWriteWaitsByWriter(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Now()
		before := db.WriteWaits()
		in := intake.NewIntake(db, intake.IntakeConfig{})
		defer in.Close()
		if _, err := in.Store(ctx, &intake.Delivery{DeliveryID: "d-1", Event: "ping", Payload: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		db.WebhookEvent.Create().SetDeliveryID("old").SetEvent("push").SetPayload([]byte(`{"x":1}`)).
			SetStatus(webhookevent.StatusDone).SetReceivedAt(now.Add(-2 * day)).ExecX(ctx)
		got, _, err := retention.PruneBatch(ctx, db, rules, now, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Payloads != 1 {
			t.Fatalf("pruned %+v; want the old payload", got)
		}
		after := db.WriteWaits()
		if db.Postgres() {
			if after != nil {
				t.Errorf("PostgreSQL reports write waits %v", after)
			}
			return
		}
		for _, w := range []string{"intake", "background"} {
			if d := after[w].Sub(before[w]); d.Count == 0 {
				t.Errorf("no %s wait counted: %+v", w, after[w])
			}
		}
	})
}
