package publish

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/internal/runstats"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewlearning"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/diffmap"
	"github.com/chakshu-dev/chakshu/internal/fault"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/outcomes"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// Config builds a Publisher.
type Config struct {
	DB *store.DB
	// GitHub hands out installation clients (*gh.Apps) for reads.
	GitHub Installations
	// Write is the GitHub write port; nil builds one on GitHub.
	Write Writer
	// AppSlug is the GitHub App's slug; its bot login is "<slug>[bot]".
	AppSlug string
	// PublicURL is where the portal is; run pages are <PublicURL>/runs/<id>.
	PublicURL string
	Log       *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Publisher posts run results on GitHub.
type Publisher struct {
	cfg      Config
	bot      string
	outcomes *outcomes.Reader
}

// New validates cfg.
func New(cfg Config) (*Publisher, error) {
	if cfg.DB == nil || cfg.GitHub == nil {
		return nil, errors.New("publish: DB and GitHub are required")
	}
	if cfg.AppSlug == "" {
		return nil, errors.New("publish: the app slug is required (threads are recognised by its bot login)")
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.PublicURL = strings.TrimSuffix(cfg.PublicURL, "/")
	if cfg.Write == nil {
		cfg.Write = ghwrite.New(cfg.GitHub, cfg.AppSlug)
	}
	oc, err := outcomes.New(outcomes.Config{DB: cfg.DB, AppSlug: cfg.AppSlug, Log: cfg.Log, Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	return &Publisher{cfg: cfg, bot: cfg.AppSlug + "[bot]", outcomes: oc}, nil
}

// BotLogin is the login Chakshu's comments are posted as.
func (p *Publisher) BotLogin() string { return p.bot }

// isChakshu reports whether a login is Chakshu's. GitHub's REST API names
// an App's bot "<slug>[bot]"; its GraphQL API names it "<slug>" (a Bot).
func (p *Publisher) isChakshu(login string, bot bool) bool {
	return strings.EqualFold(login, p.bot) || (bot && strings.EqualFold(login, p.cfg.AppSlug))
}

func (p *Publisher) runURL(id int) string { return fmt.Sprintf("%s/runs/%d", p.cfg.PublicURL, id) }

// Safe sentences for public surfaces.
const (
	reasonPublish = "Chakshu could not publish this review on GitHub. It can be triggered again."
	reasonResult  = "Chakshu could not read the reviewer's result."
	reasonReply   = "Chakshu could not post its answer on GitHub. It can be triggered again."
	reasonShadow  = "Chakshu could not record this backtest run's findings."
)

// Publish publishes run id, which must be in publishing and held by the
// caller, and moves it to succeeded. On failure it fails the run with a safe
// reason (the finisher completes its check run), unless ctx ended or GitHub
// asked to wait (gh.WaitFor): then the run stays in publishing for a retry,
// which posts nothing twice.
func (p *Publisher) Publish(ctx context.Context, id int) error {
	r, err := p.cfg.DB.Run.Query().Where(run.ID(id)).
		WithRepository(func(q *ent.RepositoryQuery) { q.WithInstallation() }).
		WithReviewer().Only(ctx)
	if err != nil {
		return fmt.Errorf("load run %d: %w", id, err)
	}
	if r.Status != run.StatusPublishing {
		return nil // someone else finished it
	}
	log := p.cfg.Log.With(logging.KeyRun, r.ID, logging.KeyRepo, r.Edges.Repository.FullName, logging.KeyPR, r.PrNumber, logging.KeyReviewer, r.Edges.Reviewer.Name)
	ctx = logging.With(ctx, log) // what publishing calls logs with it
	reason := reasonPublish
	ctx = ghwrite.ForRun(ctx, r)
	switch {
	case !ghwrite.WritesOnPR(ctx):
		// A backtest's replay: findings are stored, nothing goes to GitHub
		// (and the port refuses any write on the PR should one slip in).
		reason = reasonShadow
		err = p.publishShadow(ctx, r)
	case r.Kind == run.KindReply:
		reason = reasonReply
		err = p.publishReply(ctx, r)
	default:
		err = p.publishReview(ctx, r)
	}
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return err
	}
	if _, wait := gh.WaitFor(err, p.cfg.Now()); wait {
		// GitHub asked to wait: the run stays publishing and the caller
		// puts it back with that due time (nothing posts twice).
		return err
	}
	cause := err
	if fe, ok := fault.As(err); ok && fe.Public != "" && fe.Err != nil {
		reason, cause = fe.Public, fe.Err // the kind's safe sentence; its detail for operators
	}
	log.Warn("publish failed", "err", redact.Error(err))
	p.failRun(context.WithoutCancel(ctx), r, reason, cause)
	return err
}

// resultError marks a result that cannot be published as it is: no retry
// can fix it, and the run fails saying so.
func resultError(err error) error {
	return fault.New(fault.Invalid, reasonResult, err)
}

// failRun fails the run with a safe reason and redacted detail. The
// worker's finisher completes its check run with that reason (wakeup.TopicFinish).
func (p *Publisher) failRun(ctx context.Context, r *ent.Run, reason string, cause error) {
	log := logging.From(ctx)
	if err := runstate.Fail(ctx, p.cfg.DB.Client, r.ID, reason, cause.Error()); err != nil && !errors.Is(err, runstate.ErrConflict) {
		log.Warn("fail run", "err", redact.Error(err))
	}
}

// Writer is what publishing writes to GitHub.
type Writer interface {
	CreateReview(ctx context.Context, r ghwrite.Repo, pr int, req *github.PullRequestReviewRequest, mine ghwrite.Mine) (*github.PullRequestReview, error)
	Reply(ctx context.Context, r ghwrite.Repo, pr int, root int64, body string, mine ghwrite.Mine, lookFirst bool) (*github.PullRequestComment, error)
	ResolveThread(ctx context.Context, r ghwrite.Repo, threadID string) error
	CompleteCheck(ctx context.Context, c ghwrite.Check, conclusion string, at time.Time, t ghwrite.Text) error
	RemoveReviewRequest(ctx context.Context, r ghwrite.Repo, pr int, target string) error
}

var _ Writer = (*ghwrite.Port)(nil)

// prState is what publishing learns of the PR on GitHub.
type prState struct {
	diff    *diffmap.Map
	threads []Thread
	// ownReview is the review this run already posted (a retry after a crash).
	ownReview *github.PullRequestReview
	// onPR is what earlier runs posted: hidden IDs, and the findings still open.
	onPR OnPR
}

func (p *Publisher) publishReview(ctx context.Context, r *ent.Run) error {
	log := logging.From(ctx)
	repo, rv := r.Edges.Repository, r.Edges.Reviewer
	res, cov, err := storedReview(r)
	if err != nil {
		return err
	}
	cfg := reviewerconfig.FromEnt(rv)
	rules := Rules{MinSeverity: cfg.MinSeverity, MaxFindings: cfg.MaxFindings}
	demoted, err := p.demotions(ctx, rv.ID, cfg)
	if err != nil {
		return err
	}
	for _, d := range demoted {
		if rules.CategoryMin == nil {
			rules.CategoryMin = map[string]findings.Severity{}
		}
		rules.CategoryMin[d.Category] = d.Floor
		log.Info("category demoted by demote_below_acceptance", "category", d.Category, "acceptance", d.Rate,
			"decided", d.Decided, "threshold", cfg.DemoteBelowAcceptance, "floor", d.Floor)
	}
	inst, err := p.cfg.GitHub.Installation(repo.Edges.Installation.GithubID)
	if err != nil {
		return fmt.Errorf("installation client: %w", err)
	}
	pr := repoRef{owner: repo.Owner, name: repo.Name, number: r.PrNumber}

	st, err := p.readPR(ctx, inst, r, pr)
	if err != nil {
		return err
	}
	ev, err := p.checkEvidence(ctx, inst.REST, r, pr, res.Findings, st.diff)
	if err != nil {
		return err
	}
	res.Findings = ev.kept // a dropped finding did not come back (tidy)
	plan := PlanOn(res.Findings, rules, st.onPR, st.diff)
	reported := plan.reported() // before the dropped: they did not come back
	plan.Items = append(plan.Items, ev.dropped...)
	rows, err := p.saveFindings(ctx, r.ID, &plan)
	if err != nil {
		return err
	}
	learned, err := p.learnings(ctx, r.LearningsUsed)
	if err != nil {
		return err
	}
	checked := findings.Checked{Files: filesRead(res, cov), Skills: dedupe(res.Checked.Skills)}
	in := ReviewInput{
		RunID: r.ID, Reviewer: rv.Name, RunURL: p.runURL(r.ID), Summary: res.Summary, Checked: checked,
		Plan: &plan, Rules: rules, Reported: len(res.Findings), IncrementalSince: r.IncrementalSince,
		BehindBy: r.BehindBy, BaseRef: r.BaseRef, CostUSD: r.CostUsd, Turns: r.Turns, Learnings: learned,
		Coverage: Coverage{PRFiles: st.diff.Len(), Read: len(checked.Files), Filtered: len(r.FilteredFiles), Skipped: len(st.diff.Skipped())},
	}
	in.EvidenceDropped, in.EvidenceMoved, in.EvidenceUnchecked = len(ev.dropped), ev.moved, ev.unchecked
	if ev := cov.Evidence; ev != nil {
		in.EvidenceDropped += max(0, ev.Dropped)
		in.EvidenceMoved += max(0, ev.Moved)
	}

	review := st.ownReview
	if review == nil {
		review, err = p.createReview(ctx, r, pr, &plan, &in, st.diff)
		if err != nil {
			return err
		}
	} else {
		log.Info("review already posted by an earlier attempt", "review_id", review.GetID())
	}
	if err := p.cfg.DB.Run.UpdateOneID(r.ID).SetReviewID(review.GetID()).Exec(ctx); err != nil {
		return fmt.Errorf("record review id: %w", err)
	}

	// What actually went out: the review body's markers and the threads of
	// this run's inline comments. The threads read before posting are the
	// PR's list, for the tidy and the outcomes (and, on a retry, hold this
	// run's threads); a review just posted with inline comments needs only
	// the threads it opened.
	opened := st.threads
	if n := len(plan.Inline()); st.ownReview == nil && n > 0 {
		if opened, err = p.openedThreads(ctx, inst, r, pr, n); err != nil {
			return err
		}
	}
	posted := p.reconcile(r, &plan, review, opened)

	resolved := p.tidy(ctx, inst, r, reported, st.threads)
	p.readOutcomes(ctx, inst, r, reported, res.Findings, st.threads)

	standing := standingItems(&plan)
	conclusion := "success"
	if failOn := findings.Severity(cfg.FailCheckOn); failOn.Valid() {
		for _, it := range standing {
			if it.Severity.AtLeast(failOn) {
				conclusion = "failure"
			}
		}
	}
	now := p.cfg.Now()
	duration := durationOf(r, now)
	if r.CheckRunID != 0 {
		title, summary := RenderCheck(CheckInput{
			RunID: r.ID, RunURL: p.runURL(r.ID), ReviewURL: review.GetHTMLURL(), Standing: standing,
			Posted: len(plan.Posted()), OnPR: plan.OnPR, Dropped: plan.BelowMin + plan.LeftOut,
			FailOn: cfg.FailCheckOn, CostUSD: r.CostUsd, Duration: duration, Samples: samplesOf(cov),
			Demoted: demoted, DemoteBelow: cfg.DemoteBelowAcceptance,
		})
		if err := ghwrite.CompleteRunCheck(ctx, p.cfg.Write, r, conclusion, now, ghwrite.Text{Title: title, Summary: summary}); err != nil {
			return err
		}
	}
	p.removeRequest(ctx, r)

	return p.finish(ctx, r, finishInput{
		plan: &plan, rows: rows, posted: posted, standing: standing, resolved: resolved,
		duration: duration, reviewURL: review.GetHTMLURL(),
	})
}

// readPR reads the PR's files (as the job stored them), reviews and threads and collects the hidden
// IDs already on it: from the database (earlier runs' posted findings) and
// from the markers of Chakshu's review bodies and thread comments, so a lost
// row does not cause a repost.
func (p *Publisher) readPR(ctx context.Context, inst *gh.Installation, r *ent.Run, pr repoRef) (*prState, error) {
	files, err := prFiles(ctx, inst.REST, r, pr)
	if err != nil {
		return nil, err
	}
	st := &prState{diff: diffmap.New(files), onPR: OnPR{IDs: map[string]bool{}}}
	reviews, err := listReviews(ctx, inst.REST, pr)
	if err != nil {
		return nil, err
	}
	reviewedBefore := false
	for _, rv := range reviews {
		if !p.isChakshu(rv.GetUser().GetLogin(), rv.GetUser().GetType() == "Bot") {
			continue
		}
		reviewedBefore = true
		m := ParseMarkers(rv.GetBody())
		if m.Run == r.ID {
			st.ownReview = rv
			continue
		}
		for _, id := range m.Findings {
			st.onPR.IDs[id] = true
		}
	}
	// Every review comment belongs to a review (GitHub's REST reference:
	// a review comment carries its pull_request_review_id), so a PR with no
	// review of Chakshu's has no thread of Chakshu's to tidy, to read
	// outcomes of or to find markers in: the threads are not read (one
	// GraphQL query fewer for a PR's first review).
	if reviewedBefore {
		if st.threads, err = listThreads(ctx, inst.GraphQL, pr); err != nil {
			return nil, err
		}
	}
	for _, t := range st.threads {
		if !p.isChakshu(t.RootAuthor, t.RootAuthorBot) {
			continue
		}
		if m := ParseMarkers(t.RootBody); m.Run != r.ID {
			for _, id := range m.Findings {
				st.onPR.IDs[id] = true
			}
		}
	}
	rows, err := p.cfg.DB.Finding.Query().Where(
		finding.Posted(true),
		finding.HasRunWith(run.PrNumber(r.PrNumber), run.IDNEQ(r.ID),
			run.HasRepositoryWith(repository.ID(r.Edges.Repository.ID))),
	).Order(ent.Asc(finding.FieldID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("findings already posted: %w", err)
	}
	resolved := map[int64]bool{}
	for _, t := range st.threads {
		if t.IsResolved {
			resolved[t.RootID] = true
		}
	}
	for _, f := range rows {
		st.onPR.IDs[f.HiddenID] = true
		if f.Resolved || (f.CommentID != 0 && resolved[f.CommentID]) {
			continue // a closed thread: the finding may be raised again
		}
		st.onPR.Open = append(st.onPR.Open, Earlier{HiddenID: f.HiddenID, Finding: runstate.Finding(f)})
	}
	return st, nil
}

// saveFindings replaces the run's Finding rows with the plan (nothing posted
// yet), so every finding is visible even if posting fails. It returns the
// rows in plan order.
func (p *Publisher) saveFindings(ctx context.Context, runID int, plan *Plan) ([]*ent.Finding, error) {
	var rows []*ent.Finding
	err := p.cfg.DB.WithTx(ctx, func(tx *ent.Tx) error {
		if _, err := tx.Finding.Delete().Where(finding.HasRunWith(run.ID(runID))).Exec(ctx); err != nil {
			return err
		}
		if len(plan.Items) == 0 {
			return nil
		}
		creates := make([]*ent.FindingCreate, len(plan.Items))
		for i, it := range plan.Items {
			c := tx.Finding.Create().SetRunID(runID).SetHiddenID(it.HiddenID).SetPath(it.Path).
				SetLine(it.Line).SetStartLine(it.StartLine).SetSide(it.Side).SetSeverity(finding.Severity(it.Severity)).
				SetCategory(it.Category).SetTitle(it.Title).SetBody(it.Body).
				SetPlacement(finding.Placement(it.Placement)).SetDroppedReason(it.Dropped).
				SetEvidence(it.Evidence).SetEvidenceMovedFrom(it.EvidenceMovedFrom)
			if it.Suggestion != nil {
				c.SetSuggestion(*it.Suggestion)
			}
			creates[i] = c
		}
		var err error
		rows, err = tx.Finding.CreateBulk(creates...).Save(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("save findings: %w", err)
	}
	return rows, nil
}

// learnings loads the learnings the run used, for the review body.
func (p *Publisher) learnings(ctx context.Context, ids []int) ([]Learning, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	ls, err := p.cfg.DB.ReviewLearning.Query().Where(reviewlearning.IDIn(ids...)).Order(ent.Asc(reviewlearning.FieldID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("load learnings: %w", err)
	}
	out := make([]Learning, 0, len(ls))
	for _, l := range ls {
		out = append(out, Learning{Glob: l.Glob, Directive: l.Directive})
	}
	return out, nil
}

// createReview posts the run's one review. GitHub asking to wait (a rate
// limit, or its anti-spam 422) is returned for the caller to wait (gh.WaitFor). If GitHub refuses the inline
// comments' lines (another 422), the refused findings move to the body and the
// review is sent once more. If GitHub still refuses it (the reviewed commit
// is gone from the PR after a force push), it goes out once more on the PR's
// current head, with every finding in the body; a further refusal fails the run.
func (p *Publisher) createReview(ctx context.Context, r *ent.Run, pr repoRef, plan *Plan, in *ReviewInput, diff *diffmap.Map) (*github.PullRequestReview, error) {
	log := logging.From(ctx)
	mine := func(body string) bool { return ParseMarkers(body).Run == r.ID }
	onHead := true
	for attempt := 0; ; attempt++ {
		req := &github.PullRequestReviewRequest{
			Event: github.Ptr("COMMENT"),
			Body:  github.Ptr(RenderReview(*in)),
		}
		if onHead {
			req.CommitID = github.Ptr(r.HeadSha)
		}
		for _, it := range plan.Inline() {
			dc := &github.DraftReviewComment{
				Path: github.Ptr(it.Path), Line: github.Ptr(it.Line), Side: github.Ptr(it.Side),
				Body: github.Ptr(RenderComment(it, r.ID, r.Edges.Reviewer.Name)),
			}
			if it.StartLine > 0 && it.StartLine < it.Line {
				dc.StartLine, dc.StartSide = github.Ptr(it.StartLine), github.Ptr(it.Side)
			}
			req.Comments = append(req.Comments, dc)
		}
		review, err := p.cfg.Write.CreateReview(ctx, ghwrite.RepoOf(r.Edges.Repository), pr.number, req, mine)
		if err == nil {
			return review, nil
		}
		if _, wait := gh.WaitFor(err, p.cfg.Now()); wait {
			// A rate limit, or GitHub's anti-spam 422 ("was submitted too
			// quickly"): the same review goes through later, comments and
			// all. The run goes back to the queue until then.
			return nil, fmt.Errorf("create review: %w", err)
		}
		switch {
		case !isUnprocessable(err) || attempt >= 2:
			return nil, fmt.Errorf("create review: %w", err)
		case len(req.Comments) > 0:
			moved := plan.demote(diff)
			log.Warn("GitHub refused inline comments; moving them to the review body", "moved", moved, "err", redact.Error(err))
		case onHead:
			onHead = false
			log.Warn("GitHub refused the review on the reviewed commit; posting it on the PR's head", "err", redact.Error(err))
		default:
			return nil, fmt.Errorf("create review: %w", err)
		}
	}
}

// openedThreads are the n threads the run's review just opened, with ids
// (GitHub's answer to the review names none): the PR's newest n threads, in
// one call, or its whole list when a thread opened meanwhile pushed some of
// them out.
func (p *Publisher) openedThreads(ctx context.Context, inst *gh.Installation, r *ent.Run, pr repoRef, n int) ([]Thread, error) {
	if n <= perPage {
		ts, err := newestThreads(ctx, inst.GraphQL, pr, n)
		if err != nil {
			return nil, err
		}
		mine := 0
		for _, t := range ts {
			if p.ofRun(r, t) {
				mine++
			}
		}
		if mine == n {
			return ts, nil
		}
	}
	return listThreads(ctx, inst.GraphQL, pr)
}

// ofRun says whether Chakshu started thread t for run r.
func (p *Publisher) ofRun(r *ent.Run, t Thread) bool {
	return p.isChakshu(t.RootAuthor, t.RootAuthorBot) && ParseMarkers(t.RootBody).Run == r.ID
}

// reconcile sets each posted item's placement from what is on GitHub: the
// threads whose first comment carries this run's marker, and the review
// body's markers. It returns comment and thread ids by hidden ID.
func (p *Publisher) reconcile(r *ent.Run, plan *Plan, review *github.PullRequestReview, threads []Thread) map[string]Thread {
	inline := map[string]Thread{}
	for _, t := range threads {
		if p.ofRun(r, t) {
			for _, id := range ParseMarkers(t.RootBody).Findings {
				inline[id] = t
			}
		}
	}
	body := map[string]bool{}
	for _, id := range ParseMarkers(review.GetBody()).Findings {
		body[id] = true
	}
	for i := range plan.Items {
		it := &plan.Items[i]
		if !it.Posted() {
			continue
		}
		switch {
		case inline[it.HiddenID].ID != "":
			it.Placement = PlaceInline
		case body[it.HiddenID]:
			it.Placement = PlaceBody
		default:
			it.Placement, it.Dropped = PlaceNone, DropNotOnGitHub
		}
	}
	return inline
}

// tidy resolves the outdated, unresolved threads this reviewer started whose
// finding did not come back in this run. Threads people started, threads of
// other reviewers and current threads are never touched. Failures are logged:
// the review is out, and the next run tidies again.
func (p *Publisher) tidy(ctx context.Context, inst *gh.Installation, r *ent.Run, back map[string]bool, threads []Thread) []string {
	log := logging.From(ctx)
	reviewer := safeName(r.Edges.Reviewer.Name)
	var resolved []string
	for _, t := range threads {
		if t.IsResolved || !t.IsOutdated || !p.isChakshu(t.RootAuthor, t.RootAuthorBot) {
			continue
		}
		m := ParseMarkers(t.RootBody)
		if len(m.Findings) == 0 || m.Reviewer != reviewer || m.Run == r.ID {
			continue
		}
		came := false
		for _, id := range m.Findings {
			came = came || back[id]
		}
		if came {
			continue
		}
		if err := p.resolve(ctx, r.Edges.Repository, t.ID); err != nil {
			if _, ok := err.(errResolveForbidden); ok {
				p.resolveRefused(ctx, r, err) // the other threads would be refused alike
				return resolved
			}
			if until, wait := gh.WaitFor(err, p.cfg.Now()); wait {
				// A rate limit (REST or GraphQL), recorded on the installation
				// by the write port: the other threads would wait alike.
				log.Info("tidy: GitHub asked to wait; outdated threads stay open for now", "until", until, "err", redact.Error(err))
				return resolved
			}
			log.Warn("tidy: resolve thread", "thread", t.ID, "err", redact.Error(err))
			continue
		}
		if len(resolved) == 0 {
			p.resolveWorked(ctx, r)
		}
		resolved = append(resolved, t.ID)
	}
	return resolved
}

// readOutcomes decides what became of the PR's earlier findings now that a
// later review is out, from the threads just read (no new read) and one
// compare. Failures are logged: the next review or the PR's closing reads again.
func (p *Publisher) readOutcomes(ctx context.Context, inst *gh.Installation, r *ent.Run, back map[string]bool, fs []findings.Finding, threads []Thread) {
	log := logging.From(ctx)
	full := make([]outcomes.Thread, len(threads))
	for i, t := range threads {
		full[i] = t.full
	}
	reported := make([]string, 0, len(back))
	for id := range back {
		reported = append(reported, id)
	}
	slices.Sort(reported)
	if err := p.outcomes.AtReview(ctx, outcomes.Review{Run: r, Reported: reported, Findings: fs, Threads: full, REST: inst.REST}); err != nil {
		log.Warn("outcomes: read at review", "err", redact.Error(err))
	}
}

// standingItems are the findings on the PR after this run: posted now, or
// already posted by an earlier run and reported again. The check run judges
// these, so a blocker that stands keeps failing the check on later runs.
func standingItems(plan *Plan) []*Item {
	var out []*Item
	for i := range plan.Items {
		it := &plan.Items[i]
		if it.Posted() || it.Dropped == DropOnPR {
			out = append(out, it)
		}
	}
	return out
}

func durationOf(r *ent.Run, now time.Time) time.Duration {
	start := r.CreatedAt
	if r.StartedAt != nil {
		start = *r.StartedAt
	}
	if d := now.Sub(start); d > 0 {
		return d
	}
	return 0
}

// removeRequest clears the pending review request that triggered the run
// (best effort: GitHub may have cleared it already).
func (p *Publisher) removeRequest(ctx context.Context, r *ent.Run) {
	log := logging.From(ctx)
	if r.Trigger != run.TriggerReviewRequest || r.RequestTarget == "" {
		return
	}
	if err := p.cfg.Write.RemoveReviewRequest(ctx, ghwrite.RepoOf(r.Edges.Repository), r.PrNumber, r.RequestTarget); err != nil {
		log.Warn("remove review request", "target", r.RequestTarget, "err", redact.Error(err))
	}
}

type finishInput struct {
	plan      *Plan
	rows      []*ent.Finding
	posted    map[string]Thread
	standing  []*Item
	resolved  []string
	duration  time.Duration
	reviewURL string
	// message replaces the timeline's "Published: …" line.
	message string
}

// finish records everything in one transaction: the findings' placement and
// GitHub ids, tidied threads, the run's figures, the learnings' use, and the
// move to succeeded.
func (p *Publisher) finish(ctx context.Context, r *ent.Run, in finishInput) error {
	now := p.cfg.Now()
	bySev := map[findings.Severity]int{}
	for _, it := range in.standing {
		bySev[it.Severity]++
	}
	postedN := len(in.plan.Posted())
	inlineN := len(in.plan.Inline())
	err := p.cfg.DB.WithTx(ctx, func(tx *ent.Tx) error {
		for i, it := range in.plan.Items {
			u := tx.Finding.UpdateOne(in.rows[i]).SetPosted(it.Posted()).
				SetPlacement(finding.Placement(it.Placement)).SetDroppedReason(it.Dropped)
			if t, ok := in.posted[it.HiddenID]; ok && it.Placement == PlaceInline {
				u.SetCommentID(t.RootID).SetThreadID(t.ID)
				if r.PrURL != "" && t.RootID != 0 {
					u.SetCommentURL(fmt.Sprintf("%s#discussion_r%d", r.PrURL, t.RootID))
				}
			} else if it.Placement == PlaceBody && in.reviewURL != "" {
				u.SetCommentURL(in.reviewURL)
			}
			if err := u.Exec(ctx); err != nil {
				return fmt.Errorf("record finding: %w", err)
			}
		}
		if len(in.resolved) > 0 {
			err := tx.Finding.Update().Where(finding.ThreadIDIn(in.resolved...),
				finding.HasRunWith(run.HasRepositoryWith(repository.ID(r.Edges.Repository.ID)))).
				SetResolved(true).Exec(ctx)
			if err != nil {
				return fmt.Errorf("record resolved threads: %w", err)
			}
		}
		if len(r.LearningsUsed) > 0 && !r.Shadow { // a backtest's replay is not a use
			err := tx.ReviewLearning.Update().Where(reviewlearning.IDIn(r.LearningsUsed...)).
				AddUseCount(1).SetLastUsedAt(now).Exec(ctx)
			if err != nil {
				return fmt.Errorf("bump learnings: %w", err)
			}
		}
		msg := in.message
		if msg == "" {
			msg = fmt.Sprintf("Published: %d %s (%d inline, %d in the review body).", postedN, plural(postedN, "finding", "findings"), inlineN, postedN-inlineN)
		}
		if len(in.resolved) > 0 {
			msg += fmt.Sprintf(" Resolved %d outdated %s.", len(in.resolved), plural(len(in.resolved), "thread", "threads"))
		}
		return runstate.Transition(ctx, tx.Client(), r.ID, runstate.Change{
			From: []run.Status{run.StatusPublishing}, To: run.StatusSucceeded, Message: msg,
			Set: func(u *ent.RunUpdate) {
				u.SetFindingsBlocker(bySev[findings.Blocker]).SetFindingsMajor(bySev[findings.Major]).
					SetFindingsMinor(bySev[findings.Minor]).SetFindingsNit(bySev[findings.Nit]).
					SetFindingsPosted(postedN).SetFindingsDropped(len(in.plan.Items) - postedN).
					SetCheckCompleted(r.CheckRunID != 0)
				if r.DurationMs == 0 {
					u.SetDurationMs(in.duration.Milliseconds())
				}
			},
		})
	})
	if errors.Is(err, runstate.ErrConflict) {
		return nil // another worker finished it
	}
	if err != nil {
		return fmt.Errorf("finish run: %w", err)
	}
	return nil
}

// filesRead is what the reviewer says it read, or else what the runner saw
// it read (recorded with the result by the runner API).
func filesRead(res *findings.Result, cov *findings.Coverage) []string {
	if fs := dedupe(res.Checked.Files); len(fs) > 0 {
		return fs
	}
	return dedupe(cov.FilesRead)
}

// storedReview is review run r's result as the runner API stored it
// (parsed, validated and redacted then) and what the run looked at (never
// nil).
func storedReview(r *ent.Run) (*findings.Result, *findings.Coverage, error) {
	st, err := runstate.Result(r)
	if err == nil && st.Review == nil {
		err = errors.New("the stored result is not a review's")
	}
	if err != nil {
		return nil, nil, resultError(fmt.Errorf("stored result: %w", err))
	}
	cov := st.Checked
	if cov == nil {
		cov = &findings.Coverage{}
	}
	return st.Review, cov, nil
}

// samplesOf is the figures of a review in several passes, or nil.
func samplesOf(cov *findings.Coverage) *findings.Samples {
	if cov == nil {
		return nil
	}
	return cov.Samples
}

// demotions are the categories the reviewer's demote_below_acceptance
// demotes now: their acceptance over the last 90 days (the Quality page's
// counts) is below it with enough decided findings. None when it is off.
func (p *Publisher) demotions(ctx context.Context, reviewerID int, cfg reviewerconfig.Config) ([]reviewerconfig.Demotion, error) {
	if cfg.DemoteBelowAcceptance <= 0 {
		return nil, nil
	}
	counts, err := runstats.CategoryAcceptance(ctx, p.cfg.DB, reviewerID, p.cfg.Now())
	if err != nil {
		return nil, fmt.Errorf("demote_below_acceptance: %w", err)
	}
	by := make(map[string]reviewerconfig.Acceptance, len(counts))
	for cat, c := range counts {
		by[cat] = reviewerconfig.Acceptance{Accepted: c.Accepted(), Decided: c.Decided()}
	}
	return cfg.Demotions(by), nil
}
