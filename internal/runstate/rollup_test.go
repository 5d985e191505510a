package runstate_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// rollupCells reads cost_rollups, cells with no runs left out, keyed by
// grain/day/repository/reviewer.
func rollupCells(t *testing.T, db *store.DB) map[string][]float64 {
	t.Helper()
	rows, err := db.SQL.Query("SELECT grain, day, repository_id, reviewer_id, " + strings.Join(store.RollupSums, ", ") + " FROM cost_rollups")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]float64{}
	for rows.Next() {
		var g, day string
		var repo, rev int
		vals := make([]float64, len(store.RollupSums))
		dst := []any{&g, &day, &repo, &rev}
		for i := range vals {
			dst = append(dst, &vals[i])
		}
		if err := rows.Scan(dst...); err != nil {
			t.Fatal(err)
		}
		if vals[0] != 0 {
			out[fmt.Sprintf("%s/%s/%d/%d", g, day, repo, rev)] = vals
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRollupEqualsRuns: whatever writes the runs (state transitions, a run
// failed and retried, cost metered after the run finished, direct inserts
// and deletes), the trigger-maintained rollup equals one rebuilt from the
// runs table, on both databases.
func TestRollupEqualsRuns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		repo, revs := seed(t, db)
		move := func(id int, from, to run.Status, set func(u *ent.RunUpdate)) {
			t.Helper()
			if err := runstate.Transition(ctx, db.Client, id, runstate.Change{From: []run.Status{from}, To: to, Set: set}); err != nil {
				t.Fatalf("run %d %s → %s: %v", id, from, to, err)
			}
		}
		created, _, err := runstate.Enqueue(ctx, db, nil, runstate.Request{RepositoryID: repo, ReviewerIDs: revs, PRNumber: 1, HeadSHA: "h", Trigger: run.TriggerPortal})
		if err != nil {
			t.Fatal(err)
		}
		a, b := created[0].ID, created[1].ID
		for _, id := range []int{a, b} {
			move(id, run.StatusQueued, run.StatusDispatched, nil)
			move(id, run.StatusDispatched, run.StatusRunning, nil)
			db.Run.UpdateOneID(id).AddCostUsd(0.25).AddInputTokens(1000).AddOutputTokens(50).ExecX(ctx) // metering
		}
		move(a, run.StatusRunning, run.StatusPublishing, func(u *ent.RunUpdate) { u.SetDurationMs(95_000) })
		move(a, run.StatusPublishing, run.StatusSucceeded, func(u *ent.RunUpdate) { u.SetFindingsMajor(2).SetFindingsNit(1) })
		// A second, conflicting finish changes nothing.
		if err := runstate.Transition(ctx, db.Client, a, runstate.Change{From: runstate.Active, To: run.StatusSucceeded,
			Set: func(u *ent.RunUpdate) { u.SetFindingsMajor(9) }}); err != runstate.ErrConflict {
			t.Fatalf("second finish: %v", err)
		}
		if err := runstate.Fail(ctx, db.Client, b, "boom", ""); err != nil {
			t.Fatal(err)
		}
		// b retried: back to queued, then finished again with other figures,
		// and a late model answer metered after it finished.
		db.Run.UpdateOneID(b).SetStatus(run.StatusQueued).SetDurationMs(0).ExecX(ctx)
		move(b, run.StatusQueued, run.StatusCancelled, func(u *ent.RunUpdate) { u.SetDurationMs(4000) })
		db.Run.UpdateOneID(b).AddCostUsd(0.125).ExecX(ctx)
		// Runs written directly (history, other days and months), one deleted.
		old := time.Date(2026, 1, 31, 23, 30, 0, 0, time.UTC)
		for i, st := range []run.Status{run.StatusSucceeded, run.StatusFailed, run.StatusSucceeded} {
			db.Run.Create().SetRepositoryID(repo).SetReviewerID(revs[i%2]).SetTrigger(run.TriggerAuto).SetPrNumber(2).
				SetHeadSha(fmt.Sprint(i)).SetStatus(st).SetCreatedAt(old.Add(time.Duration(i) * time.Hour)).
				SetCostUsd(1.5).SetDurationMs(int64(1000 * (i + 1) * 700)).SetFindingsBlocker(i).ExecX(ctx)
		}
		gone := db.Run.Create().SetRepositoryID(repo).SetReviewerID(revs[0]).SetTrigger(run.TriggerAuto).SetPrNumber(3).
			SetHeadSha("x").SetStatus(run.StatusSucceeded).SetCostUsd(7).SetDurationMs(1).SaveX(ctx)
		db.Run.DeleteOneID(gone.ID).ExecX(ctx)
		// Heartbeats do not touch the rollup's figures.
		db.Run.UpdateOneID(a).SetHeartbeatAt(time.Now()).ExecX(ctx)

		got := rollupCells(t, db)
		if err := db.RebuildRollup(ctx); err != nil {
			t.Fatal(err)
		}
		want := rollupCells(t, db)
		if len(got) != len(want) {
			t.Errorf("cells: %d maintained, %d rebuilt\n%v\n%v", len(got), len(want), got, want)
		}
		for k, w := range want {
			g := got[k]
			for i := range w {
				if g == nil || math.Abs(g[i]-w[i]) > 1e-9 {
					t.Errorf("cell %s %s: maintained %v, rebuilt %v", k, store.RollupSums[i], g, w)
					break
				}
			}
		}
		// And the figures are the runs': 2 + 2 + 1 (deleted) runs on the 2026-01 cells.
		var n, cost float64
		if err := db.SQL.QueryRow("SELECT SUM(runs), SUM(cost_usd) FROM cost_rollups WHERE grain = 'm'").Scan(&n, &cost); err != nil {
			t.Fatal(err)
		}
		if n != 5 || math.Abs(cost-(0.25+0.375+4.5)) > 1e-9 {
			t.Errorf("month cells: %v runs, $%v", n, cost)
		}
		var timedB int
		bucket := fmt.Sprintf("h%02d", store.DurationBucket(95_000))
		if err := db.SQL.QueryRow("SELECT SUM(" + bucket + ") FROM cost_rollups WHERE grain = 'd'").Scan(&timedB); err != nil {
			t.Fatal(err)
		}
		if timedB != 1 { // a: 95 s, succeeded; b was cancelled: not timed
			t.Errorf("duration bucket of 95 s: %d runs", timedB)
		}
	})
}
