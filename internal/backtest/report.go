package backtest

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/backtest"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/runstate"
)

// Severities in report order.
var severities = []findings.Severity{findings.Blocker, findings.Major, findings.Minor, findings.Nit}

// Counts are findings per severity.
type Counts map[findings.Severity]int

// Total is the sum over severities.
func (c Counts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// Found is one finding of a shadow run.
type Found struct {
	HiddenID string
	Severity findings.Severity
	// Finding is the finding as stored; when both sides carry one (a
	// path), they are matched by findings.Same, else by hidden ID.
	Finding findings.Finding
}

// same reports whether f and g are the same finding.
func (f *Found) same(g *Found) bool {
	if f.Finding.Path != "" && g.Finding.Path != "" {
		return findings.Same(&f.Finding, &g.Finding)
	}
	return f.HiddenID == g.HiddenID
}

// anySame reports whether f is the same as one of fs.
func anySame(f *Found, fs []Found) bool {
	for i := range fs {
		if f.same(&fs[i]) {
			return true
		}
	}
	return false
}

// PRComparison compares the two versions' findings on one pull request.
type PRComparison struct {
	Repo   string
	Number int
	URL    string
	// Kept were found by both versions (counted at the new severity),
	// Added by the new one only, Dropped by the old one only.
	Kept, Added, Dropped Counts
	// DroppedFixed and DroppedDismissed count the dropped findings whose
	// posted finding (same hidden ID, the reviewer's real runs on that pull
	// request) was fixed, or dismissed.
	DroppedFixed, DroppedDismissed int
	OldCostUSD, NewCostUSD         float64
	OldDurationMS, NewDurationMS   int64
}

// Compare matches the old and new version's findings on one pull request
// by findings.Same (the rule publishing and a review's vote use: a finding
// the new version words differently is kept, not dropped and added), by
// hidden ID where a side lacks the stored finding. A finding the same as an
// earlier one of its own side counts once. outcome gives the outcome of
// the posted finding with a hidden ID ("" when it was never posted).
func Compare(old, new []Found, outcome func(hiddenID string) string) PRComparison {
	c := PRComparison{Kept: Counts{}, Added: Counts{}, Dropped: Counts{}}
	for i := range new {
		f := &new[i]
		if anySame(f, new[:i]) {
			continue
		}
		if anySame(f, old) {
			c.Kept[f.Severity]++
		} else {
			c.Added[f.Severity]++
		}
	}
	for i := range old {
		f := &old[i]
		if anySame(f, old[:i]) || anySame(f, new) {
			continue
		}
		c.Dropped[f.Severity]++
		switch outcome(f.HiddenID) {
		case string(finding.OutcomeFixed):
			c.DroppedFixed++
		case string(finding.OutcomeDismissed):
			c.DroppedDismissed++
		}
	}
	return c
}

// counted says whether a shadow run's finding is one its version would
// have posted: not dropped by the reviewer's own caps or as a repeat within
// the run. (A finding already on the pull request still counts: the real
// review posted it, and that is what is being compared.)
func counted(f *ent.Finding) bool {
	switch f.DroppedReason {
	case publish.DropBelowMin, publish.DropOverMax, publish.DropDuplicate:
		return false
	}
	return true
}

// foundOf lists what shadow run r found.
func (l *Loop) foundOf(ctx context.Context, r *ent.Run) ([]Found, error) {
	fs, err := r.QueryFindings().Order(ent.Asc(finding.FieldID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("findings of run %d: %w", r.ID, err)
	}
	var out []Found
	for _, f := range fs {
		if counted(f) {
			out = append(out, Found{HiddenID: f.HiddenID, Severity: findings.Severity(f.Severity), Finding: runstate.Finding(f)})
		}
	}
	return out, nil
}

// outcomes reads what became of the findings the reviewer posted for real on
// a pull request, by hidden ID (the latest posted one of each).
func (l *Loop) outcomes(ctx context.Context, rv *ent.Reviewer, repoID, number int, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	fs, err := l.cfg.DB.Finding.Query().Where(finding.HiddenIDIn(ids...), finding.Posted(true),
		finding.HasRunWith(run.Shadow(false), run.PrNumber(number), run.HasRepositoryWith(repository.ID(repoID)),
			run.HasReviewerWith(reviewer.ID(rv.ID)))).
		Order(ent.Asc(finding.FieldID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("outcomes of posted findings: %w", err)
	}
	for _, f := range fs {
		out[f.HiddenID] = string(f.Outcome)
	}
	return out, nil
}

// Result is a finished backtest's comparison.
type Result struct {
	Reviewer string
	HeadSHA  string
	// Picked counts the pull requests planned; PRs are those covered.
	Picked     int
	PRs        []PRComparison
	NotCovered []string // "owner/name#n: why"
	MaxCostUSD float64
	SpentUSD   float64
}

// Totals sums the covered pull requests.
func (r Result) Totals() PRComparison {
	t := PRComparison{Kept: Counts{}, Added: Counts{}, Dropped: Counts{}}
	for _, p := range r.PRs {
		for _, s := range severities {
			t.Kept[s] += p.Kept[s]
			t.Added[s] += p.Added[s]
			t.Dropped[s] += p.Dropped[s]
		}
		t.DroppedFixed += p.DroppedFixed
		t.DroppedDismissed += p.DroppedDismissed
		t.OldCostUSD += p.OldCostUSD
		t.NewCostUSD += p.NewCostUSD
		t.OldDurationMS += p.OldDurationMS
		t.NewDurationMS += p.NewDurationMS
	}
	return t
}

// Conclusion is the check run's: success, or neutral when the new version
// drops findings that had been fixed (real problems it would miss); failure
// when not one pull request could be replayed (Chakshu could not run it).
func (r Result) Conclusion() string {
	switch {
	case len(r.PRs) == 0:
		return "failure"
	case r.Totals().DroppedFixed > 0:
		return "neutral"
	default:
		return "success"
	}
}

// Summary is the comparison's figures as stored on the backtest.
func (r Result) Summary() map[string]any {
	t := r.Totals()
	counts := func(c Counts) map[string]any {
		m := map[string]any{}
		for _, s := range severities {
			m[string(s)] = c[s]
		}
		return m
	}
	prs := make([]any, 0, len(r.PRs))
	for _, p := range r.PRs {
		prs = append(prs, map[string]any{"pr": fmt.Sprintf("%s#%d", p.Repo, p.Number), "kept": counts(p.Kept), "added": counts(p.Added),
			"dropped": counts(p.Dropped), "dropped_fixed": p.DroppedFixed, "dropped_dismissed": p.DroppedDismissed,
			"old_cost_usd": p.OldCostUSD, "new_cost_usd": p.NewCostUSD, "old_duration_ms": p.OldDurationMS, "new_duration_ms": p.NewDurationMS})
	}
	notCovered := make([]any, 0, len(r.NotCovered))
	for _, n := range r.NotCovered {
		notCovered = append(notCovered, n)
	}
	return map[string]any{
		"prs_picked": r.Picked, "prs_covered": len(r.PRs), "not_covered": notCovered,
		"kept": counts(t.Kept), "added": counts(t.Added), "dropped": counts(t.Dropped),
		"dropped_fixed": t.DroppedFixed, "dropped_dismissed": t.DroppedDismissed,
		"old_cost_usd": t.OldCostUSD, "new_cost_usd": t.NewCostUSD, "cost_delta_usd": t.NewCostUSD - t.OldCostUSD,
		"old_duration_ms": t.OldDurationMS, "new_duration_ms": t.NewDurationMS, "duration_delta_ms": t.NewDurationMS - t.OldDurationMS,
		"spent_usd": r.SpentUSD, "max_cost_usd": r.MaxCostUSD, "prs": prs,
	}
}

// Markdown is the comment posted on the change's pull request (without its
// hidden marker). It names pull requests by repository and number only: no
// text of theirs (titles are untrusted) is repeated.
func (r Result) Markdown() string {
	var b strings.Builder
	t := r.Totals()
	fmt.Fprintf(&b, "### Chakshu backtest · %s\n\n", r.Reviewer)
	fmt.Fprintf(&b, "The change at `%s` against the version in force, replayed on **%d of the last %d** pull requests %s reviewed",
		gh.ShortSHA(r.HeadSHA), len(r.PRs), r.Picked, r.Reviewer)
	fmt.Fprintf(&b, " (spent %s of a %s cap).\n\n", usd(r.SpentUSD), usd(r.MaxCostUSD))
	if len(r.PRs) > 0 {
		b.WriteString("| Severity | Kept | Added | Dropped |\n|---|---:|---:|---:|\n")
		for _, s := range severities {
			fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", s, t.Kept[s], t.Added[s], t.Dropped[s])
		}
		fmt.Fprintf(&b, "| **all** | **%d** | **%d** | **%d** |\n\n", t.Kept.Total(), t.Added.Total(), t.Dropped.Total())
		fmt.Fprintf(&b, "Of the %d dropped findings, **%d had been fixed** (real problems the new version misses) and **%d had been dismissed** (noise removed).\n\n",
			t.Dropped.Total(), t.DroppedFixed, t.DroppedDismissed)
		n := float64(len(r.PRs))
		fmt.Fprintf(&b, "Cost: %s → %s (%s). Duration per pull request: %s → %s (%s).\n\n",
			usd(t.OldCostUSD), usd(t.NewCostUSD), signedUSD(t.NewCostUSD-t.OldCostUSD),
			dur(float64(t.OldDurationMS)/n), dur(float64(t.NewDurationMS)/n), signedDur(float64(t.NewDurationMS-t.OldDurationMS)/n))
		b.WriteString("<details><summary>Per pull request</summary>\n\n| Pull request | Kept | Added | Dropped | Fixed | Dismissed | Cost old → new |\n|---|---:|---:|---:|---:|---:|---|\n")
		for _, p := range r.PRs {
			fmt.Fprintf(&b, "| %s#%d | %d | %d | %d | %d | %d | %s → %s |\n", p.Repo, p.Number, p.Kept.Total(), p.Added.Total(),
				p.Dropped.Total(), p.DroppedFixed, p.DroppedDismissed, usd(p.OldCostUSD), usd(p.NewCostUSD))
		}
		b.WriteString("\n</details>\n\n")
	}
	if len(r.NotCovered) > 0 {
		b.WriteString("Not covered: " + strings.Join(r.NotCovered, "; ") + ".\n")
	}
	return b.String()
}

// usd is an amount in dollars: in cents, or to a hundredth of a cent below
// ten cents (a small model's review costs fractions of a cent, which "$0.00"
// would hide).
func usd(v float64) string {
	if v != 0 && math.Abs(v) < 0.1 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// signedUSD is a change in dollars; one too small to show is "±$0".
func signedUSD(v float64) string {
	s := usd(math.Abs(v))
	switch {
	case strings.Trim(s, "$0.") == "":
		return "±$0"
	case v < 0:
		return "−" + s
	}
	return "+" + s
}

func dur(ms float64) string {
	return (time.Duration(math.Round(ms/1000)) * time.Second).String()
}

func signedDur(ms float64) string {
	if math.Round(ms/1000) == 0 {
		return "±0s"
	}
	if ms < 0 {
		return "−" + dur(-ms)
	}
	return "+" + dur(ms)
}

// report compares the finished shadow runs, posts (or edits) the one
// comment on the change's pull request and completes the check run.
func (l *Loop) report(ctx context.Context, bt *ent.Backtest, rv *ent.Reviewer, prs []*progress, spent float64) error {
	res := Result{Reviewer: bt.ReviewerName, HeadSHA: bt.HeadSha, Picked: len(prs), MaxCostUSD: bt.MaxCostUsd, SpentUSD: spent}
	for _, p := range prs {
		if !p.covered() {
			why := p.skipped
			if why == "" {
				why = skipFailed
			}
			res.NotCovered = append(res.NotCovered, fmt.Sprintf("%s#%d (%s)", p.Repo, p.Number, why))
			continue
		}
		oldF, err := l.foundOf(ctx, p.old)
		if err != nil {
			return err
		}
		newF, err := l.foundOf(ctx, p.new)
		if err != nil {
			return err
		}
		var ids []string
		for _, f := range oldF {
			ids = append(ids, f.HiddenID)
		}
		oc, err := l.outcomes(ctx, rv, p.RepositoryID, p.Number, ids)
		if err != nil {
			return err
		}
		c := Compare(oldF, newF, func(id string) string { return oc[id] })
		c.Repo, c.Number, c.URL = p.Repo, p.Number, p.URL
		c.OldCostUSD, c.NewCostUSD = p.old.CostUsd, p.new.CostUsd
		c.OldDurationMS, c.NewDurationMS = p.old.DurationMs, p.new.DurationMs
		res.PRs = append(res.PRs, c)
	}
	body := res.Markdown()
	conclusion := res.Conclusion()
	title := fmt.Sprintf("%d kept, %d added, %d dropped (%d fixed, %d dismissed) on %d pull requests", res.Totals().Kept.Total(),
		res.Totals().Added.Total(), res.Totals().Dropped.Total(), res.Totals().DroppedFixed, res.Totals().DroppedDismissed, len(res.PRs))
	status := backtest.StatusCompleted
	reason := ""
	if len(res.PRs) == 0 {
		status, title = backtest.StatusFailed, "No pull request could be replayed"
		reason = "No shadow run pair finished, so the versions could not be compared."
	}
	commentID, err := l.postComment(ctx, bt, body)
	if err != nil {
		return err
	}
	return l.finish(ctx, bt, status, conclusion, ghwrite.Text{Title: title, Summary: body}, func(u *ent.BacktestUpdate) {
		u.SetReport(body).SetSummary(res.Summary()).SetCostUsd(spent).SetCommentID(commentID).SetFailureReason(reason)
	})
}

// postComment posts the comparison once per pull request and reviewer, by
// its hidden marker: the comment of an earlier backtest of the same change
// (an earlier push, a re-run) is edited instead.
func (l *Loop) postComment(ctx context.Context, bt *ent.Backtest, body string) (int64, error) {
	marker := publish.BacktestMarker(bt.ReviewerName)
	full := strings.TrimRight(body, "\n") + "\n\n" + marker
	r := repoOf(bt)
	id := bt.CommentID
	if id == 0 {
		prev, err := l.cfg.DB.Backtest.Query().Where(backtest.ReviewersRepo(bt.ReviewersRepo), backtest.PrNumber(bt.PrNumber),
			backtest.ReviewerName(bt.ReviewerName), backtest.CommentIDNEQ(0)).Order(ent.Desc(backtest.FieldID)).First(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return 0, fmt.Errorf("find the earlier comparison: %w", err)
		}
		if prev != nil {
			id = prev.CommentID
		}
	}
	if id != 0 {
		_, err := l.cfg.Write.EditComment(ctx, r, id, full)
		if err == nil || !ghwrite.IsNotFound(err) {
			return id, err
		}
		// Deleted on GitHub: post it again.
	}
	mine := func(s string) bool { return publish.ParseMarkers(s).Backtest == bt.ReviewerName }
	c, err := l.cfg.Write.Comment(ctx, r, bt.PrNumber, full, mine, true)
	if err != nil {
		return 0, err
	}
	if c.GetBody() != full {
		// Found an earlier one by its marker: bring it up to date.
		if _, err := l.cfg.Write.EditComment(ctx, r, c.GetID(), full); err != nil {
			return 0, err
		}
	}
	return c.GetID(), nil
}
