// Package outcomes decides what became of each finding Chakshu posted, from
// GitHub facts: fixed (a later commit changed the lines under it and its
// reviewer's next review did not report it again, or its suggestion was
// applied), dismissed (a person resolved its thread with no change under it,
// replied that it is wrong, or reacted 👎), acknowledged (👍, or a reply
// agreeing), open at merge, closed unmerged.
//
// GitHub sends no webhook for reactions, so outcomes are read, not pushed:
// at each later review of the PR (publishing hands over the threads it has
// just read, and one compare of the reviewer's previous head to the new one
// is fetched), and when the PR is closed (one paged GraphQL read of the
// threads, and a compare only when a suggestion could have been applied). A
// PR with no open posted finding costs no call. Fixed, dismissed and
// acknowledged are final; an open finding is read again next time.
package outcomes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/predicate"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/learnings"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// Config builds a Reader.
type Config struct {
	DB *store.DB
	// AppSlug is the App's slug: Chakshu's own resolutions and reactions are
	// not a person's.
	AppSlug string
	Log     *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Reader reads and records the outcomes of a PR's findings.
type Reader struct{ cfg Config }

// New validates cfg.
func New(cfg Config) (*Reader, error) {
	if cfg.DB == nil || cfg.AppSlug == "" {
		return nil, errors.New("outcomes: DB and AppSlug are required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Reader{cfg: cfg}, nil
}

// isChakshu tells Chakshu's logins: "<slug>[bot]" (REST) and "<slug>" (GraphQL).
func (r *Reader) isChakshu(login string) bool {
	l := strings.TrimSuffix(strings.ToLower(login), "[bot]")
	return l == strings.ToLower(r.cfg.AppSlug)
}

// Review is a later review of a PR, as publishing hands it over.
type Review struct {
	// Run is the published review run, with its Repository and Reviewer.
	Run *ent.Run
	// Reported are the hidden IDs the run reported (posted or not), and
	// Findings its findings (matched by findings.Same).
	Reported []string
	Findings []findings.Finding
	// Threads are the PR's review threads publishing read (no new read).
	Threads []Thread
	// REST is the installation's client, for the one compare.
	REST *github.Client
}

// AtReview decides the PR's open findings after a later review: any
// person's dismissal or acknowledgement, and fixes of this reviewer's
// findings. It makes at most one GitHub call (a compare), none when the PR
// has no open posted finding.
func (r *Reader) AtReview(ctx context.Context, in Review) error {
	rn := in.Run
	if rn.Shadow || rn.Kind != run.KindReview {
		return nil
	}
	repo := rn.Edges.Repository
	open, err := r.open(ctx, repo.ID, rn.PrNumber, rn.ID)
	if err != nil || len(open) == 0 {
		return err
	}
	reviewer := rn.Edges.Reviewer.ID
	// The compare starts at the newest head this reviewer's open findings
	// were posted on: the previous review's, usually.
	base, newest := "", 0
	for _, f := range open {
		if f.Reviewer == reviewer && f.Head != rn.HeadSha && f.run > newest {
			base, newest = f.Head, f.run
		}
	}
	cmp, err := r.compare(ctx, in.REST, repo, base, rn.HeadSha)
	if err != nil {
		r.cfg.Log.Warn("outcomes: compare", "err", err, "repo", repo.FullName, "pr", rn.PrNumber)
	}
	verdicts, err := r.verdicts(ctx, repo.ID, rn.PrNumber)
	if err != nil {
		return err
	}
	reported := map[string]bool{}
	for _, id := range in.Reported {
		reported[id] = true
	}
	ds := Decide(plain(open), Facts{Event: AtReview, Threads: in.Threads, Compare: cmp, Reviewer: reviewer,
		Reported: reported, ReportedFindings: in.Findings, Verdicts: verdicts, IsChakshu: r.isChakshu})
	return r.record(ctx, open, ds)
}

// Closed is a PR closed on GitHub.
type Closed struct {
	Repo   *ent.Repository
	PR     int
	Merged bool
	// Head is the PR's head when it was closed.
	Head string
}

// AtClose decides every open finding of a closed PR: what GitHub shows of
// it, else open at merge or closed unmerged. One paged GraphQL read of the
// threads and at most one compare; nothing when no posted finding is open.
func (r *Reader) AtClose(ctx context.Context, inst *gh.Installation, c Closed) error {
	open, err := r.open(ctx, c.Repo.ID, c.PR, 0)
	if err != nil || len(open) == 0 {
		return err
	}
	threads, err := ListThreads(ctx, inst.GraphQL, c.Repo.Owner, c.Repo.Name, c.PR)
	if err != nil {
		return err
	}
	// A suggestion may have been committed since: compare from the newest
	// head carrying one.
	base, newest := "", 0
	for _, f := range open {
		if f.Suggestion != "" && f.Head != c.Head && f.run > newest {
			base, newest = f.Head, f.run
		}
	}
	cmp, err := r.compare(ctx, inst.REST, c.Repo, base, c.Head)
	if err != nil {
		return err
	}
	verdicts, err := r.verdicts(ctx, c.Repo.ID, c.PR)
	if err != nil {
		return err
	}
	ev := AtClose
	if c.Merged {
		ev = AtMerge
	}
	return r.record(ctx, open, Decide(plain(open), Facts{Event: ev, Threads: threads, Compare: cmp, Verdicts: verdicts, IsChakshu: r.isChakshu}))
}

// Reopened takes back "closed unmerged" from the findings of a PR opened
// again: they are open, and read again, until decided.
func (r *Reader) Reopened(ctx context.Context, repoID, pr int) error {
	err := r.cfg.DB.Finding.Update().Where(finding.OutcomeEQ(finding.OutcomeClosedUnmerged),
		finding.HasRunWith(run.PrNumber(pr), run.HasRepositoryWith(repository.ID(repoID)))).
		SetOutcome(finding.OutcomeOpen).ClearOutcomeAt().SetOutcomeReason("").Exec(ctx)
	if err != nil {
		return fmt.Errorf("reopen outcomes: %w", err)
	}
	return nil
}

// Replied records a reply run's verdict at once: "wrong" dismisses the
// finding whose thread root is root (the person's reply and Chakshu's
// answer are on GitHub), "fixed" acknowledges it. No GitHub call.
func (r *Reader) Replied(ctx context.Context, repoID, pr int, root int64, v Verdict) error {
	if root == 0 || (v.Verdict != findings.VerdictWrong && v.Verdict != findings.VerdictFixed) {
		return nil
	}
	open, err := r.open(ctx, repoID, pr, 0)
	if err != nil {
		return err
	}
	var mine []openFinding
	for _, f := range open {
		if f.CommentID == root {
			mine = append(mine, f)
		}
	}
	t := Thread{Comments: []Comment{{ID: root}}}
	return r.record(ctx, mine, Decide(plain(mine), Facts{Event: AtReview, Threads: []Thread{t},
		Verdicts: map[int64]Verdict{root: v}, IsChakshu: r.isChakshu}))
}

type openFinding struct {
	Finding
	run int
	// Where it was posted, for the learning a dismissal proposes.
	reviewerName           string
	installation, repo, pr int
}

func plain(fs []openFinding) []Finding {
	out := make([]Finding, len(fs))
	for i, f := range fs {
		out[i] = f.Finding
	}
	return out
}

// open lists the PR's posted findings still open (shadow runs post
// nothing), except those of run skip. A finding its reviewer reported again
// in a later run (not posted twice: "already on the PR") stands where that
// run saw it: its head and lines are the latest report's, so a change is
// judged since the reviewer last saw the finding, not since it was posted.
func (r *Reader) open(ctx context.Context, repoID, pr, skip int) ([]openFinding, error) {
	ofPR := []predicate.Run{run.PrNumber(pr), run.Shadow(false), run.KindEQ(run.KindReview), run.IDNEQ(skip),
		run.HasRepositoryWith(repository.ID(repoID))}
	rows, err := r.cfg.DB.Finding.Query().Where(
		finding.Posted(true), finding.OutcomeEQ(finding.OutcomeOpen), finding.HasRunWith(ofPR...),
	).WithRun(func(q *ent.RunQuery) {
		q.WithReviewer().WithRepository(func(q *ent.RepositoryQuery) { q.WithInstallation() })
	}).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("open findings: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	ids := make([]string, len(rows))
	for i, f := range rows {
		ids[i] = f.HiddenID
	}
	again, err := r.cfg.DB.Finding.Query().Where(finding.Posted(false), finding.HiddenIDIn(ids...),
		finding.HasRunWith(append(ofPR, run.StatusEQ(run.StatusSucceeded))...)).
		WithRun(func(q *ent.RunQuery) { q.WithReviewer() }).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("findings reported again: %w", err)
	}
	type key struct {
		id       string
		reviewer int
	}
	latest := map[key]*ent.Finding{}
	for _, f := range again {
		k := key{f.HiddenID, f.Edges.Run.Edges.Reviewer.ID}
		if l := latest[k]; l == nil || f.Edges.Run.ID > l.Edges.Run.ID {
			latest[k] = f
		}
	}
	out := make([]openFinding, 0, len(rows))
	for _, f := range rows {
		rv := f.Edges.Run.Edges.Reviewer.ID
		at := f
		if l := latest[key{f.HiddenID, rv}]; l != nil && l.Edges.Run.ID > f.Edges.Run.ID {
			at = l
		}
		rr := f.Edges.Run
		out = append(out, openFinding{run: at.Edges.Run.ID, reviewerName: rr.Edges.Reviewer.Name,
			installation: rr.Edges.Repository.Edges.Installation.ID, repo: rr.Edges.Repository.ID, pr: rr.PrNumber, Finding: Finding{
				ID: f.ID, HiddenID: f.HiddenID, Reviewer: rv, Head: at.Edges.Run.HeadSha, Path: at.Path,
				StartLine: at.StartLine, Line: at.Line, Side: at.Side, Suggestion: f.Suggestion, CommentID: f.CommentID,
				As: runstate.Finding(at),
			}})
	}
	return out, nil
}

// verdicts are the PR's answered reply runs' verdicts by thread root.
func (r *Reader) verdicts(ctx context.Context, repoID, pr int) (map[int64]Verdict, error) {
	rs, err := r.cfg.DB.Run.Query().Where(run.KindEQ(run.KindReply), run.StatusEQ(run.StatusSucceeded),
		run.PrNumber(pr), run.ThreadRootCommentIDNEQ(0), run.HasRepositoryWith(repository.ID(repoID))).
		Order(ent.Asc(run.FieldID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("reply verdicts: %w", err)
	}
	out := map[int64]Verdict{}
	for _, rn := range rs {
		if st, err := runstate.Result(rn); err == nil && st.Reply != nil && st.Reply.Verdict != findings.VerdictStands {
			out[rn.ThreadRootCommentID] = Verdict{Verdict: st.Reply.Verdict, By: rn.Requester}
		}
	}
	return out, nil
}

// compare fetches base...head once (nil when there is nothing to compare,
// or GitHub cannot tell lines apart: the base is gone or not an ancestor).
func (r *Reader) compare(ctx context.Context, c *github.Client, repo *ent.Repository, base, head string) (*Compare, error) {
	if base == "" || head == "" || base == head || c == nil {
		return nil, nil
	}
	cmp, resp, err := c.Repositories.CompareCommits(ctx, repo.Owner, repo.Name, base, head, &github.ListOptions{PerPage: 1})
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return nil, nil // force-pushed away
	}
	if err != nil {
		return nil, fmt.Errorf("compare %s...%s: %w", gh.ShortSHA(base), gh.ShortSHA(head), err)
	}
	if cmp.GetStatus() != "ahead" {
		return nil, nil
	}
	out := &Compare{Base: base, Head: head}
	for _, f := range cmp.Files {
		out.Files = append(out.Files, CompareFile{Path: f.GetFilename(), PreviousPath: f.GetPreviousFilename(), Status: f.GetStatus(), Patch: f.GetPatch()})
	}
	return out, nil
}

// record stores decisions on findings still open (a decided outcome stays).
// A dismissal first proposes a learning (learnings.Propose, once per
// finding): a person accepts or discards it on the Learnings page.
func (r *Reader) record(ctx context.Context, open []openFinding, ds []Decision) error {
	now := r.cfg.Now()
	byID := make(map[int]*openFinding, len(open))
	for i := range open {
		byID[open[i].ID] = &open[i]
	}
	for _, d := range ds {
		if f := byID[d.FindingID]; f != nil && d.Outcome == finding.OutcomeDismissed {
			if err := r.propose(ctx, f, d); err != nil {
				return err
			}
		}
		err := r.cfg.DB.Finding.Update().Where(finding.ID(d.FindingID), finding.OutcomeEQ(finding.OutcomeOpen)).
			SetOutcome(d.Outcome).SetOutcomeAt(now).SetOutcomeReason(d.Reason).Exec(ctx)
		if err != nil {
			return fmt.Errorf("record outcome: %w", err)
		}
	}
	return nil
}

// propose stores the learning a dismissal of f proposes. It comes before
// the outcome is recorded, so a crash between the two proposes nothing
// twice: the next read decides the finding again and finds the proposal.
func (r *Reader) propose(ctx context.Context, f *openFinding, d Decision) error {
	_, created, err := learnings.Propose(ctx, r.cfg.DB.Client, learnings.Proposal{
		InstallationID: f.installation, RepositoryID: f.repo, FindingID: f.ID, PRNumber: f.pr,
		CommentID: f.CommentID, Reviewer: f.reviewerName, Path: f.Path, Category: f.As.Category,
		Title: f.As.Title, Reason: d.Reason, Reply: d.Said,
	})
	if err != nil {
		return fmt.Errorf("propose a learning from finding %d: %w", f.ID, err)
	}
	if created {
		r.cfg.Log.Info("outcomes: dismissed finding proposes a learning", "finding", f.ID, "reviewer", f.reviewerName, "pr", f.pr)
	}
	return nil
}
