package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

const dispatchCall = "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches"

// Three reviewers asked for on one PR share one workflow dispatch and one
// Actions run (DESIGN §2.3): the served runner fetches a job per Chakshu run
// with the run's one OIDC token and reviews them side by side; each run gets
// its own check run and review. Then on another PR one reviewer fails (the
// model refuses its prompt as too long) while the other two publish, and the
// Actions run's end fails nobody else.
func TestSharedActionsRunEndToEnd(t *testing.T) {
	for _, dialect := range storetest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			url, dir := "", t.TempDir()
			if dialect == "postgres" {
				url = storetest.NewPostgresDatabase(t)
			}
			var styleFails atomic.Bool
			c := startWith(t, url, map[string]string{"CHAKSHU_DATA_DIR": dir}, scriptedmodel.Config{TooLong: func(system string) bool {
				return styleFails.Load() && strings.Contains(system, "# Style reviewer")
			}})
			db, err := store.Open(context.Background(), store.Options{DatabaseURL: url, DataDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			waitFor(t, 60*time.Second, "the reviewers to sync", func() bool { return c.reviewersSynced(t) })

			pr := c.SB.PRs[0]
			rs := sharedReview(t, c, db, pr, 3)
			for _, r := range rs {
				if r.Status != run.StatusSucceeded {
					t.Errorf("run %d (%s): %s (%s)", r.ID, r.Edges.Reviewer.Name, r.Status, r.FailureReason)
				}
			}
			if n := len(c.SB.Sim.Reviews(pr.Repo, pr.Number)); n != 3 {
				t.Errorf("%d reviews on the PR, want one per reviewer", n)
			}
			log := actionsLog(t, dir, rs[0].ActionsRunID)
			if !strings.Contains(log, "Reviewing for 3 Chakshu runs in this job.") || strings.Count(log, "Result delivered to Chakshu.") != 3 {
				t.Errorf("the Actions run's log does not show three reviews delivered:\n%s", log)
			}

			styleFails.Store(true)
			pr = c.SB.PRs[1]
			rs = sharedReview(t, c, db, pr, 3)
			for _, r := range rs {
				want := run.StatusSucceeded
				if r.Edges.Reviewer.Name == "style" {
					want = run.StatusFailed
				}
				if r.Status != want {
					t.Errorf("run %d (%s): %s (%s), want %s", r.ID, r.Edges.Reviewer.Name, r.Status, r.FailureReason, want)
				}
			}
			if n := len(c.SB.Sim.Reviews(pr.Repo, pr.Number)); n != 2 {
				t.Errorf("%d reviews on the PR, want the two that did not fail", n)
			}
			for _, cr := range c.SB.Sim.CheckRuns(pr.Repo) {
				if cr.Name == "Chakshu · style" && cr.HeadSHA == rs[0].HeadSha && cr.Conclusion != "failure" {
					t.Errorf("the failed reviewer's check concluded %q", cr.Conclusion)
				}
			}
		})
	}
}

// sharedReview asks for the three seeded reviewers on pr and waits until
// their runs ended; it checks they made one dispatch and shared one Actions
// run, each with a check run of its own, and returns the runs.
func sharedReview(t *testing.T, c *chakshu, db *store.DB, pr sandbox.SeededPR, n int) []*ent.Run {
	t.Helper()
	ctx := context.Background()
	sim := c.SB.Sim
	dispatches := sim.CallCount(dispatchCall)
	actionsRuns := len(sim.Runs())
	sim.Comment(pr.Repo, pr.Number, sandbox.Writer, "@chakshu review security correctness style")
	var rs []*ent.Run
	waitFor(t, 180*time.Second, "the three runs to end", func() bool {
		rs = db.Run.Query().Where(run.PrNumber(pr.Number), run.HasRepositoryWith(repository.FullName(pr.Repo))).
			WithReviewer().Order(ent.Asc(run.FieldID)).AllX(ctx)
		if len(rs) != n {
			return false
		}
		for _, r := range rs {
			if r.Status != run.StatusSucceeded && r.Status != run.StatusFailed || !r.CheckCompleted {
				return false
			}
		}
		return true
	})
	if d := sim.CallCount(dispatchCall) - dispatches; d != 1 {
		t.Errorf("%d workflow dispatches for %d reviewers, want 1", d, n)
	}
	if d := len(sim.Runs()) - actionsRuns; d != 1 {
		t.Errorf("%d Actions runs for %d reviewers, want 1", d, n)
	}
	checks := map[int64]bool{}
	for _, r := range rs {
		if r.ActionsRunID == 0 || r.ActionsRunID != rs[0].ActionsRunID {
			t.Errorf("run %d in Actions run %d, run %d in %d: want one shared", r.ID, r.ActionsRunID, rs[0].ID, rs[0].ActionsRunID)
		}
		if r.CheckRunID == 0 || checks[r.CheckRunID] {
			t.Errorf("run %d: check run %d, want one of its own", r.ID, r.CheckRunID)
		}
		checks[r.CheckRunID] = true
	}
	if wr, ok := sim.Run(rs[0].ActionsRunID); !ok || wr.Conclusion == "" {
		t.Errorf("Actions run %d: %+v, want completed", rs[0].ActionsRunID, wr)
	}
	return rs
}

// actionsLog is the simulated runner's log of Actions run id.
func actionsLog(t *testing.T, dataDir string, id int64) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir, "actions-logs", "actions-run-"+strconv.FormatInt(id, 10)+".log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
