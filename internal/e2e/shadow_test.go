package e2e

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// A shadow run (a backtest's replay of a reviewer version) created in the
// store goes the whole way like any review — dispatch of the workflow in the
// PR's repository, job fetch with an Actions OIDC token, the served runner,
// the gateway metering the scripted model — with the reviewer of its
// snapshot (its CLAUDE.md reaches the model), and ends with its findings
// stored and nothing written on the pull request: no review, comment, check
// run or thread change; the only write to GitHub is the dispatch.
func TestShadowRunEndToEnd(t *testing.T) {
	for _, dialect := range storetest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			url, dir := "", t.TempDir()
			if dialect == "postgres" {
				url = storetest.NewPostgresDatabase(t)
			}
			var mu sync.Mutex
			var systems []string
			c := startWith(t, url, map[string]string{"CHAKSHU_DATA_DIR": dir}, scriptedmodel.Config{Seen: func(system, _ string) {
				mu.Lock()
				systems = append(systems, system)
				mu.Unlock()
			}})
			shadowRunEndToEnd(t, c, store.Options{DatabaseURL: url, DataDir: dir}, func() []string {
				mu.Lock()
				defer mu.Unlock()
				return append([]string(nil), systems...)
			})
		})
	}
}

const shadowRules = "# Security rules, as the change under backtest would make them\nMarker 5f3e: treat every string-built SQL query as a blocker.\n"

func shadowRunEndToEnd(t *testing.T, c *chakshu, opts store.Options, seen func() []string) {
	ctx := context.Background()
	sim := c.SB.Sim
	pr := c.SB.PRs[0] // acme/payments-api
	waitFor(t, 60*time.Second, "the reviewers to sync", func() bool { return c.reviewersSynced(t) })
	db, err := store.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	repo := db.Repository.Query().Where(repository.FullName(pr.Repo)).WithInstallation().OnlyX(ctx)
	rv := db.Reviewer.Query().Where(reviewer.Name("security"), reviewer.HasInstallationWith()).FirstX(ctx)
	if strings.Contains(rv.ClaudeMd, "Marker 5f3e") {
		t.Fatal("the reviewer in force already carries the snapshot's marker")
	}
	snap := reviewerconfig.Snapshot{ClaudeMD: shadowRules, ConfigYAML: rv.ConfigYaml, Config: rv.Config, Skills: rv.Skills}
	head := sim.PR(pr.Repo, pr.Number)

	sim.ResetCalls()
	rn := db.Run.Create().SetRepository(repo).SetReviewer(rv).SetKind(run.KindReview).SetTrigger(run.TriggerBacktest).
		SetShadow(true).SetBacktestID(1).SetBacktestSide(run.BacktestSideNew).SetReviewerSnapshot(&snap).
		SetPrNumber(pr.Number).SetHeadSha(head.HeadSHA).SetBaseSha(head.BaseSHA).SetPrTitle(pr.Title).SaveX(ctx)

	var got *ent.Run
	waitFor(t, 120*time.Second, "the shadow run to finish", func() bool {
		got = db.Run.GetX(ctx, rn.ID)
		return got.Status == run.StatusSucceeded || got.Status == run.StatusFailed || got.Status == run.StatusCancelled
	})
	if got.Status != run.StatusSucceeded {
		t.Fatalf("shadow run %s: %s", got.Status, got.FailureReason)
	}
	if got.ActionsRunID == 0 || got.CheckRunID != 0 || got.ReviewID != 0 || got.CostUsd <= 0 || got.DurationMs <= 0 || got.Turns == 0 {
		t.Errorf("run: actions %d check %d review %d cost %v duration %d turns %d", got.ActionsRunID, got.CheckRunID, got.ReviewID, got.CostUsd, got.DurationMs, got.Turns)
	}

	// The snapshot's CLAUDE.md, not the reviewer in force's, reached the model.
	var withSnap, withForce int
	for _, s := range seen() {
		if strings.Contains(s, "Marker 5f3e") {
			withSnap++
		}
		if rv.ClaudeMd != "" && strings.Contains(s, strings.TrimSpace(rv.ClaudeMd)) {
			withForce++
		}
	}
	if withSnap == 0 || withForce != 0 {
		t.Errorf("model requests with the snapshot's rules %d (want some), with the rules in force %d (want none)", withSnap, withForce)
	}

	fs := db.Finding.Query().Where(finding.HasRunWith(run.ID(rn.ID))).AllX(ctx)
	if len(fs) == 0 {
		t.Fatal("no findings stored")
	}
	shadowDropped := 0
	for _, f := range fs {
		if f.Posted || f.Placement != finding.PlacementNone || f.CommentID != 0 {
			t.Errorf("finding %q: posted %v placement %s comment %d", f.Title, f.Posted, f.Placement, f.CommentID)
		}
		if f.DroppedReason == publish.DropShadow {
			shadowDropped++
		}
	}
	if shadowDropped == 0 || got.FindingsPosted != 0 {
		t.Errorf("%d findings marked %q, run posted %d", shadowDropped, publish.DropShadow, got.FindingsPosted)
	}

	// Nothing on the PR, and the only write to GitHub started the workflow.
	if n := len(sim.Reviews(pr.Repo, pr.Number)) + len(sim.ReviewComments(pr.Repo, pr.Number)) + len(sim.IssueComments(pr.Repo, pr.Number)); n != 0 {
		t.Errorf("%d reviews and comments on the PR, want none", n)
	}
	if n := len(sim.CheckRuns(pr.Repo)); n != 0 {
		t.Errorf("%d check runs in %s, want none", n, pr.Repo)
	}
	if w := gitHubWrites(sim); len(w) != 1 || w[0] != "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches" {
		t.Errorf("writes to GitHub during the shadow run: %v", w)
	}
}

// gitHubWrites lists the endpoints written to (token mints aside), GraphQL
// mutations by name.
func gitHubWrites(sim *ghsim.Sim) []string {
	var out []string
	for k, n := range sim.Calls() {
		read := strings.HasPrefix(k, "GET ") || strings.HasPrefix(k, "POST /app/") || k == "POST /graphql" || !strings.Contains(k, " /")
		if n > 0 && !read {
			out = append(out, k)
		}
	}
	for k, n := range sim.GraphQLCalls() {
		if n > 0 && strings.HasPrefix(k, "mutation ") {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
