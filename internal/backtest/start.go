package backtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/backtest"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// planned is one pull request a backtest replays: where the reviewer's last
// real review of it ran, and what that review cost (the estimate of each side).
type planned struct {
	RepositoryID int     `json:"repository_id"`
	Repo         string  `json:"repo"`
	Number       int     `json:"pr"`
	Title        string  `json:"title"`
	URL          string  `json:"url"`
	HeadSHA      string  `json:"head_sha"`
	HeadRef      string  `json:"head_ref"`
	BaseSHA      string  `json:"base_sha"`
	BaseRef      string  `json:"base_ref"`
	FromFork     bool    `json:"from_fork"`
	ReviewedRun  int     `json:"reviewed_run"`
	Estimate     float64 `json:"estimate_usd"`
}

// The summary keys a running backtest keeps its plan under.
const summaryPlan = "plan"

// maxReviewedRuns bounds the runs read to find the last distinct pull requests.
const maxReviewedRuns = 1000

// LastReviewed returns the last limit distinct pull requests reviewer r
// reviewed for real (succeeded, non-shadow review runs), newest first, each
// at the head its last review reviewed.
func LastReviewed(ctx context.Context, c *ent.Client, r *ent.Reviewer, limit int) ([]*ent.Run, error) {
	rs, err := c.Run.Query().Where(run.HasReviewerWith(reviewer.ID(r.ID)), run.Shadow(false), run.KindEQ(run.KindReview),
		run.StatusEQ(run.StatusSucceeded), run.FinishedAtNotNil()).
		WithRepository().Order(ent.Desc(run.FieldFinishedAt), ent.Desc(run.FieldID)).Limit(maxReviewedRuns).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("find the pull requests %s reviewed: %w", r.Name, err)
	}
	type key struct{ repo, pr int }
	seen := map[key]bool{}
	var out []*ent.Run
	for _, x := range rs {
		k := key{x.Edges.Repository.ID, x.PrNumber}
		if seen[k] || x.Edges.Repository.Removed {
			continue
		}
		seen[k] = true
		out = append(out, x)
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// start loads both versions of the reviewer, opens the check run and plans
// the shadow runs; a change that cannot be backtested (a new or removed
// reviewer, a broken one, nothing reviewed yet) is concluded at once.
func (l *Loop) start(ctx context.Context, bt *ent.Backtest) error {
	inst := bt.Edges.Installation
	gi, err := l.cfg.GitHub.Installation(inst.GithubID)
	if err != nil {
		return fmt.Errorf("github client for installation %d: %w", inst.GithubID, err)
	}
	if bt.CheckRunID == 0 {
		id, _, err := l.cfg.Write.OpenCheck(ctx, check(bt), l.detailsURL(bt),
			ghwrite.Text{Title: "Backtest starting", Summary: fmt.Sprintf("Loading the change to **%s** and the pull requests it reviewed last.", bt.ReviewerName)})
		if err != nil {
			return err
		}
		if err := l.cfg.DB.Backtest.UpdateOneID(bt.ID).SetCheckRunID(id).Exec(ctx); err != nil {
			return fmt.Errorf("record check run of backtest %d: %w", bt.ID, err)
		}
		bt.CheckRunID = id
	}
	versions, err := reviewerconfig.LoadAt(ctx, gi.REST, bt.ReviewersRepo, bt.HeadSha, []string{bt.ReviewerName}, l.cfg.Models, l.cfg.Now())
	if err != nil {
		return err
	}
	v := versions[bt.ReviewerName]
	old, err := l.cfg.DB.Reviewer.Query().Where(reviewer.HasInstallationWith(installation.ID(inst.ID)), reviewer.Name(bt.ReviewerName)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return fmt.Errorf("find reviewer %s: %w", bt.ReviewerName, err)
	}
	inForce := old != nil && old.Enabled && old.SyncedCommit != ""
	switch {
	case v.Missing:
		return l.conclude(ctx, bt, "neutral", "Reviewer removed",
			fmt.Sprintf("This change removes **%s**: there is no new version to backtest.", bt.ReviewerName))
	case v.Problem != nil:
		why := fmt.Sprintf("The changed **%s** does not load, so it cannot be backtested: %s", bt.ReviewerName, redact.String(v.Problem.Error()))
		return l.finish(ctx, bt, backtest.StatusFailed, "failure", ghwrite.Text{Title: "The changed reviewer does not load", Summary: why},
			func(u *ent.BacktestUpdate) { u.SetFailureReason(why) })
	case !inForce:
		return l.conclude(ctx, bt, "neutral", "New reviewer",
			fmt.Sprintf("**%s** is a new reviewer: there is no version in force to compare it with, so nothing was backtested.", bt.ReviewerName))
	}
	limit := v.Config.Backtest.PRs
	prs, err := LastReviewed(ctx, l.cfg.DB.Client, old, limit)
	if err != nil {
		return err
	}
	if len(prs) == 0 {
		return l.conclude(ctx, bt, "neutral", "Nothing to replay",
			fmt.Sprintf("**%s** has not reviewed any pull request yet, so there is nothing to backtest.", bt.ReviewerName))
	}
	plan := make([]any, 0, len(prs))
	for _, r := range prs {
		p := planned{RepositoryID: r.Edges.Repository.ID, Repo: r.Edges.Repository.FullName, Number: r.PrNumber, Title: r.PrTitle, URL: r.PrURL,
			HeadSHA: r.HeadSha, HeadRef: r.HeadRef, BaseSHA: r.BaseSha, BaseRef: r.BaseRef, FromFork: r.FromFork,
			ReviewedRun: r.ID, Estimate: r.CostUsd}
		m, err := toMap(p)
		if err != nil {
			return err
		}
		plan = append(plan, m)
	}
	now := l.cfg.Now()
	ok, err := l.letGo(ctx, bt, &now, func(u *ent.BacktestUpdate) {
		u.Where(backtest.StatusEQ(backtest.StatusQueued)).SetStatus(backtest.StatusRunning).
			SetMaxPrs(limit).SetMaxCostUsd(v.Config.Backtest.MaxCostUSD).
			SetOldSnapshot(reviewerconfig.SnapshotOf(old)).SetNewSnapshot(&v.Columns).
			SetSummary(map[string]any{summaryPlan: plan})
	})
	if err == nil && !ok {
		_, err = l.letGo(ctx, bt, nil, nil) // cancelled meanwhile: CancelledBacktests completes its check
	}
	return err
}

// conclude completes a backtest that had nothing to replay.
func (l *Loop) conclude(ctx context.Context, bt *ent.Backtest, conclusion, title, summary string) error {
	return l.finish(ctx, bt, backtest.StatusCompleted, conclusion, ghwrite.Text{Title: title, Summary: summary},
		func(u *ent.BacktestUpdate) { u.SetReport(summary) })
}

// detailsURL is the check's Details link: the change's pull request (the
// comparison is posted there).
func (l *Loop) detailsURL(bt *ent.Backtest) string {
	if bt.PrURL != "" {
		return bt.PrURL
	}
	return strings.TrimRight(l.cfg.PublicURL, "/")
}

func toMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

// planOf reads the plan a running backtest keeps in its summary.
func planOf(bt *ent.Backtest) ([]planned, error) {
	raw, ok := bt.Summary[summaryPlan]
	if !ok {
		return nil, errors.New("backtest has no plan")
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var out []planned
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("backtest plan: %w", err)
	}
	return out, nil
}
