package publish_test

import (
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// A shadow run's findings are stored with its figures and nothing reaches
// GitHub: not one request (no review, comment, check run, thread
// resolution or review request; not even a read of the PR). The rules are
// the snapshot's (min_severity major, max_findings 1), not the reviewer in
// force's (everything from nit, no cap).
func TestShadowRunPublishesNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 0, "blocker"), nil)
		// An earlier review left its review and a thread on the PR.
		e.publish(e.newRun(findings.Result{Summary: "s", Findings: []findings.Finding{f(calc, 10, findings.Minor, "Old")}}).ID)
		snapCfg := rules(findings.Major, 1, "blocker")
		res := storedOf(t, findings.Result{Summary: "replayed", Findings: []findings.Finding{
			f(calc, 10, findings.Blocker, "Overflow"), f(calc, 21, findings.Major, "Off by one"), f(calc, 22, findings.Minor, "Naming"),
		}})
		head := e.sim.PR(repoName, e.pr).HeadSHA
		rn := e.db.Run.Create().SetRepository(e.repo).SetReviewer(e.reviewer).SetTrigger(run.TriggerBacktest).
			SetShadow(true).SetBacktestID(3).SetBacktestSide(run.BacktestSideOld).
			SetReviewerSnapshot(reviewerconfig.Snapshot{ClaudeMD: "# rules\n", Config: &snapCfg}.Map()).
			SetRequestTarget("team:security").SetPrNumber(e.pr).SetHeadSha(head).SetStatus(run.StatusPublishing).
			SetReportedAt(time.Now()).SetStartedAt(time.Now().Add(-time.Minute)).SetResult(res).
			SetCostUsd(0.4).SetTurns(5).SaveX(e.ctx)
		before := len(e.sim.Reviews(repoName, e.pr))

		e.sim.ResetCalls()
		e.publish(rn.ID)
		if n := e.sim.TotalCalls(""); n != 0 {
			t.Fatalf("a shadow run sent %d requests to GitHub: %v %v", n, e.sim.Calls(), e.sim.GraphQLCalls())
		}
		if got := len(e.sim.Reviews(repoName, e.pr)); got != before {
			t.Fatalf("reviews %d, want %d", got, before)
		}

		got := e.db.Run.GetX(e.ctx, rn.ID)
		if got.Status != run.StatusSucceeded || got.FindingsPosted != 0 || got.FindingsDropped != 3 ||
			got.FindingsBlocker != 1 || got.FindingsMajor != 0 || got.FindingsMinor != 0 || got.ReviewID != 0 ||
			got.CheckCompleted || got.CostUsd != 0.4 || got.DurationMs < 59_000 {
			t.Fatalf("run: %s posted %d dropped %d blocker %d major %d minor %d review %d check %v cost %v duration %d",
				got.Status, got.FindingsPosted, got.FindingsDropped, got.FindingsBlocker, got.FindingsMajor, got.FindingsMinor,
				got.ReviewID, got.CheckCompleted, got.CostUsd, got.DurationMs)
		}
		fs := e.db.Finding.Query().Where(finding.HasRunWith(run.ID(rn.ID))).Order(ent.Asc(finding.FieldLine)).AllX(e.ctx)
		want := map[string]string{"Overflow": publish.DropShadow, "Off by one": publish.DropOverMax, "Naming": publish.DropBelowMin}
		if len(fs) != 3 {
			t.Fatalf("%d findings stored, want 3", len(fs))
		}
		for _, fd := range fs {
			if fd.Posted || fd.Placement != finding.PlacementNone || fd.DroppedReason != want[fd.Title] || fd.CommentID != 0 || fd.ThreadID != "" {
				t.Errorf("finding %q: posted %v placement %s dropped %q comment %d thread %q, want unposted, none, %q",
					fd.Title, fd.Posted, fd.Placement, fd.DroppedReason, fd.CommentID, fd.ThreadID, want[fd.Title])
			}
		}
	})
}
