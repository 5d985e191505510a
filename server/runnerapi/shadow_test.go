package runnerapi

import (
	"context"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// shadowRun creates a dispatched shadow run of head (and base) with snap as
// its reviewer, the way a backtest does: no check run.
func (w *world) shadowRun(head, base string, snap reviewerconfig.Snapshot) *ent.Run {
	w.t.Helper()
	return w.startWorkflow(w.db.Run.Create().SetRepository(w.repo).SetReviewer(w.rv).SetKind(run.KindReview).SetTrigger(run.TriggerBacktest).
		SetShadow(true).SetBacktestID(4).SetBacktestSide(run.BacktestSideNew).SetReviewerSnapshot(snap.Map()).
		SetPrNumber(w.pr).SetHeadSha(head).SetBaseSha(base).SetStatus(run.StatusDispatched).SaveX(context.Background()))
}

// A shadow run's job is of the reviewer version in its snapshot (rules,
// skills, model and cost cap of its reviewer.yaml) and of the commit it
// replays, even after the PR moved on and closed: it is not cancelled.
func TestShadowRunJob(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		old := w.sim.PR(repoName, w.pr)
		// The PR moved on and closed after the review the backtest replays.
		w.sim.Commit(repoName, "login", map[string]string{"auth/later.go": "package auth\n\nvar Later = 1\n"}, "later")
		w.sim.ClosePR(repoName, w.pr, "alice")

		cfg := reviewerconfig.Defaults()
		cfg.Model, cfg.MaxCostUSD, cfg.MaxTurns = "claude-haiku-4-5", 0.25, 12
		snap := reviewerconfig.Snapshot{ClaudeMD: "# Snapshot rules\nFlag == on secrets.\n", ConfigYAML: "model: claude-haiku-4-5\n",
			Config: &cfg, Skills: []map[string]any{{"name": "secrets", "description": "Secret handling", "content": "# secrets\n"}}}
		rn := w.shadowRun(old.HeadSHA, old.BaseSHA, snap)

		st, job, e := w.fetchJob(rn, w.token(rn))
		if st != 200 {
			t.Fatalf("job: %d %+v", st, e)
		}
		if job.ClaudeMD != snap.ClaudeMD || len(job.Skills) != 1 || job.Skills[0].Name != "secrets" {
			t.Errorf("job reviewer = %q %+v, want the snapshot's", job.ClaudeMD, job.Skills)
		}
		if job.Model != "claude-haiku-4-5" || job.MaxCostUSD != 0.25 || job.MaxTurns != 12 {
			t.Errorf("caps %s %v %d, want the snapshot config's", job.Model, job.MaxCostUSD, job.MaxTurns)
		}
		if job.PR.HeadSHA != old.HeadSHA || job.PR.BaseSHA != old.BaseSHA || job.IncrementalSince != "" {
			t.Errorf("PR head %s base %s since %q, want the replayed %s on %s", job.PR.HeadSHA, job.PR.BaseSHA, job.IncrementalSince, old.HeadSHA, old.BaseSHA)
		}
		if !strings.Contains(job.Diff, "+\treturn tok == want") || strings.Contains(job.Diff, "later.go") {
			t.Errorf("diff is not of the replayed commit:\n%s", job.Diff)
		}
		got := db.Run.GetX(context.Background(), rn.ID)
		if got.Status != run.StatusRunning || got.MaxCostUsd != 0.25 || got.Model != "claude-haiku-4-5" {
			t.Errorf("run %s cap %v model %s", got.Status, got.MaxCostUsd, got.Model)
		}
		// The reviewer in force is untouched.
		if rv := db.Reviewer.GetX(context.Background(), w.rv.ID); rv.ClaudeMd != "# Security rules\nCheck auth.\n" {
			t.Errorf("reviewer in force changed: %q", rv.ClaudeMd)
		}

		// The same run without its snapshot and shadow flag would have been
		// cancelled: the PR closed.
		plain := w.dispatch(run.KindReview)
		if st, _, e := w.fetchJob(plain, w.token(plain)); st != 409 || e.Error.Code != "pr_closed" {
			t.Fatalf("a normal run of the closed PR: %d %+v, want 409 pr_closed", st, e)
		}
	})
}
