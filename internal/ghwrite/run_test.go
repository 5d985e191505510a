package ghwrite_test

import (
	"context"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
)

// CompleteRunCheck is the one place a run's check is completed (publishing
// and the finisher): it completes the run's check, leaves a run without one
// alone, and takes a check GitHub no longer has as completed.
func TestCompleteRunCheck(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	id, _, err := w.port.OpenCheck(ctx, ghwrite.Check{Repo: w.repo, Name: ghwrite.CheckName("security", false), HeadSHA: w.head, RunID: 7},
		"http://chakshu.test/runs/7", ghwrite.Text{Title: "Reviewing", Summary: "Chakshu is reviewing."})
	if err != nil {
		t.Fatal(err)
	}
	runWith := func(check int64) *ent.Run {
		r := &ent.Run{ID: 7, HeadSha: w.head, CheckRunID: check}
		r.Edges.Repository = &ent.Repository{Owner: "acme", Name: "widget",
			Edges: ent.RepositoryEdges{Installation: &ent.Installation{GithubID: w.repo.Installation}}}
		r.Edges.Reviewer = &ent.Reviewer{Name: "security"}
		return r
	}
	const patch = "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}"
	text := ghwrite.Text{Title: "No findings", Summary: "Nothing to report."}

	if err := ghwrite.CompleteRunCheck(ctx, w.port, runWith(id), "success", time.Now(), text); err != nil {
		t.Fatal(err)
	}
	cr := w.sim.CheckRuns(repoName)[0]
	if cr.Status != "completed" || cr.Conclusion != "success" || cr.Title != "No findings" {
		t.Errorf("check %s/%s %q, want completed/success with the result's title", cr.Status, cr.Conclusion, cr.Title)
	}

	w.sim.ResetCalls()
	if err := ghwrite.CompleteRunCheck(ctx, w.port, runWith(0), "failure", time.Now(), text); err != nil {
		t.Fatal(err)
	}
	if n := w.sim.CallCount(patch); n != 0 {
		t.Errorf("a run without a check run made %d check updates, want 0", n)
	}
	if err := ghwrite.CompleteRunCheck(ctx, w.port, runWith(id+1000), "failure", time.Now(), text); err != nil {
		t.Errorf("a check GitHub does not have: %v, want it taken as completed", err)
	}
}
