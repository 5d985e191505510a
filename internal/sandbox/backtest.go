package sandbox

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// ReviewersRepo is the sandbox's reviewers repository.
const ReviewersRepo = Org + "/chakshu-reviewers"

// The reviewer change the sandbox backtests: style also switches on the
// correctness rules (the scripted model follows a CLAUDE.md `Rules:` line),
// and backtests over the three seeded pull requests.
const (
	backtestReviewer = "style"
	backtestBranch   = "style-flags-ignored-errors"
	backtestTitle    = "Style also flags ignored errors"
	backtestYAML     = "\nbacktest:\n  prs: 3\n  max_cost_usd: 2\n"
)

// BacktestPR is the number of the reviewers-repository pull request
// SeedBacktest opened; 0 before.
func (sb *Sandbox) BacktestPR() int {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return sb.backtestPR
}

// SeedBacktest shows a backtest in the sandbox: once the style reviewer is
// in force (synced from the reviewers repository), it records style's past
// review of each seeded pull request at its head (a run as the history
// seeds them: in the database only, nothing on the simulated PR) and opens
// a draft pull request to the reviewers repository that adds the
// correctness rules to style's CLAUDE.md. Chakshu then backtests it as any
// reviewer change: a check run, shadow runs of both versions, and one
// comparison comment on that pull request. The simulator starts empty on
// every start, so this opens the pull request every time, on a commit of its
// own (Chakshu backtests a head once); the past reviews are recorded once. A draft, so that auto-reviewing reviewers (security)
// leave the reviewers repository's pull request alone.
func (sb *Sandbox) SeedBacktest(ctx context.Context, db *store.DB) error {
	var rvID int
	for {
		rv, err := db.Reviewer.Query().Where(reviewer.Name(backtestReviewer), reviewer.Enabled(true), reviewer.SyncedCommitNEQ(""),
			reviewer.HasInstallationWith(installation.GithubID(sb.InstID))).Only(ctx)
		if err == nil {
			rvID = rv.ID
			break
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(250 * time.Millisecond):
		}
	}
	now := time.Now()
	for i, p := range sb.PRs {
		pr := sb.Sim.PR(p.Repo, p.Number)
		repoID, err := db.Repository.Query().Where(repository.GithubID(sb.Sim.RepoID(p.Repo))).OnlyID(ctx)
		if err != nil {
			return fmt.Errorf("sandbox backtest: repository %s: %w", p.Repo, err)
		}
		done, err := db.Run.Query().Where(run.HasReviewerWith(reviewer.ID(rvID)), run.HasRepositoryWith(repository.ID(repoID)),
			run.PrNumber(p.Number), run.HeadSha(pr.HeadSHA), run.Shadow(false), run.StatusEQ(run.StatusSucceeded)).Exist(ctx)
		if err != nil {
			return fmt.Errorf("sandbox backtest: past reviews: %w", err)
		}
		if done {
			continue
		}
		at := now.Add(-time.Duration(30-i) * time.Minute)
		dur := time.Duration(50+10*i) * time.Second
		err = db.Run.Create().SetRepositoryID(repoID).SetReviewerID(rvID).SetTrigger(run.TriggerPortal).SetStatus(run.StatusSucceeded).
			SetPrNumber(p.Number).SetPrTitle(p.Title).SetPrURL(fmt.Sprintf("%s/%s/pull/%d", sb.Sim.PagesURL(), p.Repo, p.Number)).
			SetHeadSha(pr.HeadSHA).SetHeadRef(pr.HeadRef).SetBaseSha(pr.BaseSHA).SetBaseRef(pr.BaseRef).
			SetCreatedAt(at).SetDispatchedAt(at.Add(2 * time.Second)).SetStartedAt(at.Add(15 * time.Second)).
			SetFinishedAt(at.Add(dur)).SetDurationMs(dur.Milliseconds()).SetCostUsd(0.04 + 0.01*float64(i)).
			SetInputTokens(12000).SetOutputTokens(900).SetTurns(4).SetCheckCompleted(true).
			SetSummary("Seeded history: the style reviewer's past review, which the sandbox's reviewer change is backtested on.").Exec(ctx)
		if err != nil {
			return fmt.Errorf("sandbox backtest: past review of %s#%d: %w", p.Repo, p.Number, err)
		}
	}

	path := "reviewers/" + backtestReviewer + "/"
	md, ok1 := sb.Sim.FileAt(ReviewersRepo, "main", path+"CLAUDE.md")
	yaml, ok2 := sb.Sim.FileAt(ReviewersRepo, "main", path+"reviewer.yaml")
	if !ok1 || !ok2 || !strings.Contains(md, "Rules: style\n") {
		return fmt.Errorf("sandbox backtest: %s has no `Rules: style` line", path+"CLAUDE.md")
	}
	sb.Sim.CreateBranch(ReviewersRepo, backtestBranch, "main")
	sb.Sim.Commit(ReviewersRepo, backtestBranch, map[string]string{
		path + "CLAUDE.md":     strings.Replace(md, "Rules: style\n", "Rules: style, correctness\n", 1),
		path + "reviewer.yaml": strings.TrimRight(yaml, "\n") + "\n" + backtestYAML,
	}, backtestTitle+"\n\nOpened by the sandbox started at "+time.Now().UTC().Format(time.RFC3339Nano)) // a new head each start: a head already backtested is not again
	n := sb.Sim.OpenPR(ReviewersRepo, backtestBranch, "main", backtestTitle,
		"The style reviewer also flags ignored errors and unchecked results (the correctness rules).\n\nChakshu backtests this change on the last pull requests style reviewed before it goes live.",
		User, true)
	sb.mu.Lock()
	sb.backtestPR = n
	sb.mu.Unlock()
	return nil
}
