package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/backtest"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// A real backtest through public surfaces: the style reviewer reviews two
// pull requests for real (comment → run → served runner → scripted model →
// published review), then a pull request to the reviewers repository adds
// the correctness rule family to style's CLAUDE.md. Chakshu opens the
// check `Chakshu backtest · style`, replays both pull requests with the old
// and the new version in shadow runs (dispatch, OIDC job fetch, runner,
// gateway), posts one comparison on the reviewers-repository pull request
// with the new family's findings as added, completes the check, and writes
// nothing on the replayed pull requests. A second push that swaps style's
// own rules out is backtested again: the same comment is edited, with the
// dropped findings and the one a person had 👎'd counted as dismissed.
func TestBacktestEndToEnd(t *testing.T) {
	for _, dialect := range storetest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			url, dir := "", t.TempDir()
			if dialect == "postgres" {
				url = storetest.NewPostgresDatabase(t)
			}
			c := start(t, url, map[string]string{"CHAKSHU_DATA_DIR": dir})
			backtestEndToEnd(t, c, store.Options{DatabaseURL: url, DataDir: dir})
		})
	}
}

func backtestEndToEnd(t *testing.T, c *chakshu, opts store.Options) {
	ctx := context.Background()
	sim := c.SB.Sim
	waitFor(t, 60*time.Second, "the reviewers to sync", func() bool { return c.reviewersSynced(t) })
	db, err := store.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	// The reviewer's real past reviews.
	replayed := c.SB.PRs[:2] // payments-api (an ignored error), web-dashboard
	for _, pr := range replayed {
		sim.Comment(pr.Repo, pr.Number, sandbox.Writer, "@chakshu review style")
	}
	style := db.Reviewer.Query().Where(reviewer.Name("style"), reviewer.HasInstallationWith()).OnlyX(ctx)
	waitFor(t, 120*time.Second, "style's two real reviews", func() bool {
		return db.Run.Query().Where(run.HasReviewerWith(reviewer.ID(style.ID)), run.Shadow(false), run.StatusEQ(run.StatusSucceeded)).CountX(ctx) == 2
	})
	// What became of one posted finding: a person's 👎, read when the pull
	// request closes (GitHub sends no reaction webhook).
	first := replayed[0]
	disliked := db.Finding.Query().Where(finding.Posted(true), finding.PlacementEQ(finding.PlacementInline), finding.CommentIDNEQ(0),
		finding.HasRunWith(run.HasReviewerWith(reviewer.ID(style.ID)), run.PrNumber(first.Number), run.HasRepositoryWith(repository.FullName(first.Repo)))).
		FirstX(ctx)
	sim.React(first.Repo, first.Number, disliked.CommentID, sandbox.Writer, "-1")
	sim.ClosePR(first.Repo, first.Number, sandbox.Writer)
	waitFor(t, 60*time.Second, "the 👎 finding to be dismissed", func() bool {
		return db.Finding.GetX(ctx, disliked.ID).Outcome == finding.OutcomeDismissed
	})

	type onPR struct{ reviews, comments, issueComments, checks int }
	before := map[string]onPR{}
	for _, pr := range replayed {
		before[pr.Repo] = onPR{len(sim.Reviews(pr.Repo, pr.Number)), len(sim.ReviewComments(pr.Repo, pr.Number)),
			len(sim.IssueComments(pr.Repo, pr.Number)), len(sim.CheckRuns(pr.Repo))}
	}

	// The change: style also switches the correctness rules on.
	const reviewersRepo = sandbox.Org + "/chakshu-reviewers"
	md, ok := sim.FileAt(reviewersRepo, "main", "reviewers/style/CLAUDE.md")
	if !ok || !strings.Contains(md, "Rules: style\n") {
		t.Fatalf("style's CLAUDE.md has no `Rules: style` line:\n%s", md)
	}
	sim.ResetCalls()
	sim.CreateBranch(reviewersRepo, "style-correctness", "main")
	head := sim.Commit(reviewersRepo, "style-correctness",
		map[string]string{"reviewers/style/CLAUDE.md": strings.Replace(md, "Rules: style\n", "Rules: style, correctness\n", 1)},
		"style: also flag ignored errors")
	number := sim.OpenPR(reviewersRepo, "style-correctness", "main", "Style also flags ignored errors", "", sandbox.User, false)

	name := "Chakshu backtest · style"
	var check ghsim.CheckRun
	waitFor(t, 150*time.Second, "the backtest check to complete", func() bool {
		for _, cr := range sim.CheckRuns(reviewersRepo) {
			if cr.Name == name && cr.HeadSHA == head {
				check = cr
			}
		}
		return check.Status == "completed"
	})
	if check.Conclusion != "success" {
		t.Errorf("backtest check concluded %q: %s\n%s", check.Conclusion, check.Title, check.Summary)
	}
	backtests := 0
	for _, cr := range sim.CheckRuns(reviewersRepo) {
		if strings.HasPrefix(cr.Name, "Chakshu backtest") {
			backtests++
		}
	}
	if backtests != 1 {
		t.Errorf("%d backtest check runs on the reviewers repository, want one (style's)", backtests)
	}

	// The check is completed a moment before the backtest records its end.
	var bt *ent.Backtest
	waitFor(t, 10*time.Second, "the backtest to record its end", func() bool {
		bt = db.Backtest.Query().Where(backtest.PrNumber(number), backtest.ReviewerName("style"), backtest.HeadSha(head)).OnlyX(ctx)
		return bt.Status != backtest.StatusRunning
	})
	if bt.Status != backtest.StatusCompleted || bt.CheckRunID != check.ID || bt.CommentID == 0 {
		t.Fatalf("backtest %s (check %d, comment %d): %s", bt.Status, bt.CheckRunID, bt.CommentID, bt.FailureReason)
	}

	// Both sides of both pull requests ran as shadow runs through the runner.
	shadow := db.Run.Query().Where(run.BacktestID(bt.ID), run.Shadow(true)).WithFindings().AllX(ctx)
	if len(shadow) != 4 {
		t.Fatalf("%d shadow runs, want 2 pull requests × 2 sides", len(shadow))
	}
	cats := map[run.BacktestSide]map[string]int{run.BacktestSideOld: {}, run.BacktestSideNew: {}}
	for _, r := range shadow {
		if r.Status != run.StatusSucceeded || r.ActionsRunID == 0 || r.CheckRunID != 0 || r.ReviewID != 0 || r.CostUsd <= 0 || r.Trigger != run.TriggerBacktest {
			t.Errorf("shadow run %d (%s): %s actions %d check %d review %d cost %v trigger %s", r.ID, r.BacktestSide, r.Status,
				r.ActionsRunID, r.CheckRunID, r.ReviewID, r.CostUsd, r.Trigger)
		}
		for _, f := range r.Edges.Findings {
			if f.Posted || f.CommentID != 0 {
				t.Errorf("shadow finding %q posted", f.Title)
			}
			if f.DroppedReason == publish.DropShadow {
				cats[r.BacktestSide][f.Category]++
			}
		}
	}
	if cats[run.BacktestSideOld]["correctness"] != 0 || cats[run.BacktestSideNew]["correctness"] == 0 {
		t.Errorf("correctness findings: old side %d (want none), new side %d (want some)", cats[run.BacktestSideOld]["correctness"], cats[run.BacktestSideNew]["correctness"])
	}

	// One comparison on the change's pull request, with the added findings.
	var posted []ghsim.IssueComment
	for _, ic := range sim.IssueComments(reviewersRepo, number) {
		if strings.Contains(ic.Body, publish.BacktestMarker("style")) {
			posted = append(posted, ic)
		}
	}
	if len(posted) != 1 {
		t.Fatalf("%d backtest comments on %s#%d, want 1", len(posted), reviewersRepo, number)
	}
	body := posted[0].Body
	if posted[0].ID != bt.CommentID || posted[0].Author != "chakshu[bot]" {
		t.Errorf("comment %d by %s, backtest says %d", posted[0].ID, posted[0].Author, bt.CommentID)
	}
	for _, want := range []string{"### Chakshu backtest · style", "replayed on **2 of the last 2**", "| Severity | Kept | Added | Dropped |"} {
		if !strings.Contains(body, want) {
			t.Errorf("comment lacks %q:\n%s", want, body)
		}
	}
	added := bt.Summary["added"].(map[string]any)
	dropped := bt.Summary["dropped"].(map[string]any)
	sum := func(m map[string]any) int {
		n := 0
		for _, v := range m {
			n += int(v.(float64))
		}
		return n
	}
	newCorrectness := cats[run.BacktestSideNew]["correctness"]
	if got := sum(added); got < newCorrectness || got == 0 {
		t.Errorf("added %d findings, want at least the %d correctness ones", got, newCorrectness)
	}
	if got := sum(dropped); got != 0 {
		t.Errorf("dropped %d findings, want none: the change only adds a family", got)
	}
	if !strings.Contains(body, "| **all** |") {
		t.Errorf("comment has no totals row:\n%s", body)
	}

	// A second push swaps style's own rules for correctness: backtested
	// again, the same comment is edited, now with the style findings dropped
	// and the 👎 one counted as dismissed (noise removed).
	md2 := strings.Replace(md, "Rules: style\n", "Rules: correctness\n", 1)
	head2 := sim.Commit(reviewersRepo, "style-correctness", map[string]string{"reviewers/style/CLAUDE.md": md2}, "style: only correctness")
	check = ghsim.CheckRun{}
	waitFor(t, 150*time.Second, "the second backtest check to complete", func() bool {
		for _, cr := range sim.CheckRuns(reviewersRepo) {
			if cr.Name == name && cr.HeadSHA == head2 {
				check = cr
			}
		}
		return check.Status == "completed"
	})
	var bt2 *ent.Backtest
	waitFor(t, 10*time.Second, "the second backtest to record its end", func() bool {
		bt2 = db.Backtest.Query().Where(backtest.PrNumber(number), backtest.ReviewerName("style"), backtest.HeadSha(head2)).OnlyX(ctx)
		return bt2.Status != backtest.StatusRunning
	})
	if bt2.Status != backtest.StatusCompleted || bt2.CommentID != bt.CommentID {
		t.Fatalf("second backtest %s, comment %d (first %d): %s", bt2.Status, bt2.CommentID, bt.CommentID, bt2.FailureReason)
	}
	posted = nil
	for _, ic := range sim.IssueComments(reviewersRepo, number) {
		if strings.Contains(ic.Body, publish.BacktestMarker("style")) {
			posted = append(posted, ic)
		}
	}
	if len(posted) != 1 || posted[0].ID != bt.CommentID || !strings.Contains(posted[0].Body, "`"+head2[:7]+"`") {
		t.Fatalf("after the second push: %d backtest comments, want the first one edited for %s", len(posted), head2[:7])
	}
	if got := sum(bt2.Summary["dropped"].(map[string]any)); got == 0 {
		t.Errorf("the second version drops no finding:\n%s", posted[0].Body)
	}
	if got := int(bt2.Summary["dropped_dismissed"].(float64)); got != 1 {
		t.Errorf("%d dropped findings had been dismissed, want the 👎 one:\n%s", got, posted[0].Body)
	}
	if !strings.Contains(posted[0].Body, "**1 had been dismissed**") {
		t.Errorf("comment does not count the dismissed finding:\n%s", posted[0].Body)
	}

	// Nothing was written on the replayed pull requests; the writes went to
	// the dispatches and the reviewers repository.
	for _, pr := range replayed {
		now := onPR{len(sim.Reviews(pr.Repo, pr.Number)), len(sim.ReviewComments(pr.Repo, pr.Number)),
			len(sim.IssueComments(pr.Repo, pr.Number)), len(sim.CheckRuns(pr.Repo))}
		if now != before[pr.Repo] {
			t.Errorf("%s#%d changed during the backtest: %+v, was %+v", pr.Repo, pr.Number, now, before[pr.Repo])
		}
	}
	for _, w := range gitHubWrites(sim) {
		switch w {
		case "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches",
			"POST /repos/{owner}/{repo}/check-runs", "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}",
			"POST /repos/{owner}/{repo}/issues/{issue_number}/comments", "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}":
		default:
			t.Errorf("unexpected write during the backtest: %s", w)
		}
	}
}

// The sandbox shows a backtest on its first run, as `make run` starts it:
// with history seeded, it records style's past reviews of the seeded pull
// requests, opens a draft pull request to the reviewers repository that
// adds the correctness rules to style, and the tour links it. Chakshu
// backtests it like any change: the comparison comment appears on that
// pull request, its check completes, and the portal lists the shadow runs.
// Restarted on the same database, the simulator starts empty: the sandbox
// opens the change again on a new head, and it is backtested again.
func TestSandboxShowsABacktest(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"first start", "restart"} {
		t.Run(name, func(t *testing.T) {
			c := startSeeded(t, "", map[string]string{"CHAKSHU_DATA_DIR": dir}, scriptedmodel.Config{}, 40)
			sandboxBacktest(t, c, 6*(i+1))
		})
	}
}

// sandboxBacktest checks the sandbox's backtest; wantShadow is how many
// shadow runs the portal lists by then.
func sandboxBacktest(t *testing.T, c *chakshu, wantShadow int) {
	sim := c.SB.Sim
	var number int
	waitFor(t, 60*time.Second, "the sandbox's reviewer change", func() bool { number = c.SB.BacktestPR(); return number != 0 })
	tour := c.SB.Tour()
	if last := tour[len(tour)-1]; last.ID != "backtest" || !strings.HasSuffix(last.URL, fmt.Sprintf("/%s/pull/%d", sandbox.ReviewersRepo, number)) {
		t.Errorf("the tour does not link the backtested change: %+v", last)
	}
	var body string
	waitFor(t, 150*time.Second, "the backtest comment", func() bool {
		for _, ic := range sim.IssueComments(sandbox.ReviewersRepo, number) {
			if strings.Contains(ic.Body, publish.BacktestMarker("style")) {
				body = ic.Body
			}
		}
		return body != ""
	})
	if !strings.Contains(body, "replayed on **3 of the last 3**") || !strings.Contains(body, "| Severity | Kept | Added | Dropped |") {
		t.Errorf("comment:\n%s", body)
	}
	var checks []ghsim.CheckRun
	waitFor(t, 10*time.Second, "the backtest check to complete", func() bool { // just after the comment
		checks = sim.CheckRuns(sandbox.ReviewersRepo)
		return len(checks) > 0 && checks[0].Status == "completed"
	})
	if len(checks) != 1 || checks[0].Name != "Chakshu backtest · style" || checks[0].Conclusion != "success" {
		t.Errorf("check runs on the reviewers repository: %+v", checks)
	}
	s := c.loginSandbox(t)
	var out struct {
		Runs struct {
			TotalCount int `json:"totalCount"`
		} `json:"runs"`
	}
	s.graphql(t, `{ runs(first: 10, where: {shadow: true}) { totalCount } }`, nil, &out)
	if out.Runs.TotalCount != wantShadow {
		t.Errorf("%d shadow runs listed, want %d (3 pull requests × 2 sides a start)", out.Runs.TotalCount, wantShadow)
	}
}
