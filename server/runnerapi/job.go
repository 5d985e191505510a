package runnerapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/connectors"
	"github.com/chakshu-dev/chakshu/internal/fault"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/learnings"
	"github.com/chakshu-dev/chakshu/internal/notify"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/review"
	"github.com/chakshu-dev/chakshu/internal/reviewers"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/runs"
	"github.com/chakshu-dev/chakshu/server"
)

const (
	maxJobRequest = 4 << 10
	maxPRFiles    = 3000
)

// jobCtx is what building one job needs.
type jobCtx struct {
	rn          *ent.Run
	repo        *ent.Repository
	inst        *ent.Installation
	rv          *ent.Reviewer
	cfg         reviewers.Config
	gh          *github.Client
	owner, name string
	log         *slog.Logger
}

func (a *API) handleJob(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	// Each unknown key id in a token makes the verifier refetch the issuer's
	// keys: bound how often one client can ask.
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil && !a.jobLimits.allow(host) {
		w.Header().Set("Retry-After", "1")
		server.WriteError(w, http.StatusTooManyRequests, codeRateLimited, "too many job requests; retry in a moment")
		return
	}
	// The token is asked for before the body is read: a caller without one
	// learns nothing of the API, not even the body's shape.
	h := r.Header.Get("Authorization")
	if len(h) < 8 || !strings.EqualFold(h[:7], "bearer ") {
		server.WriteError(w, http.StatusUnauthorized, codeUnauthorized, "an Actions OIDC token is required as the bearer")
		return
	}
	var req runnerproto.JobRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxJobRequest))
	if err != nil || json.Unmarshal(body, &req) != nil || req.RunID <= 0 {
		server.WriteError(w, http.StatusBadRequest, codeBadRequest, "the body must be {\"run_id\": <id>}")
		return
	}
	log := a.log.With("run_id", req.RunID)
	raw := strings.TrimSpace(h[7:])
	v, err := a.oidcVerifier(ctx)
	if err != nil {
		log.Error("job: oidc issuer unavailable", "err", redact.Error(err))
		server.WriteError(w, http.StatusServiceUnavailable, "oidc_unavailable", "Chakshu cannot verify Actions tokens right now; retry later")
		return
	}
	forbid := func(reason string, args ...any) {
		log.Warn("job: token refused", append([]any{"reason", reason}, args...)...)
		server.WriteError(w, http.StatusForbidden, codeForbidden, "the token is not valid for this run")
	}
	tok, err := v.Verify(ctx, raw)
	if err != nil {
		forbid("verify", "err", redact.Error(err))
		return
	}
	var claims actionsClaims
	if err := tok.Claims(&claims); err != nil {
		forbid("claims", "err", err)
		return
	}
	load := func() (*ent.Run, error) {
		return a.cfg.DB.Run.Query().Where(run.ID(int(req.RunID))).WithReviewer().
			WithRepository(func(q *ent.RepositoryQuery) { q.WithInstallation() }).Only(ctx)
	}
	rn, err := load()
	if err != nil {
		forbid("run", "err", err)
		return
	}
	repo := rn.Edges.Repository
	log = log.With("repo", repo.FullName, "pr", rn.PrNumber, "reviewer", rn.Edges.Reviewer.Name)
	// A fast runner can ask before the dispatcher recorded the Actions run it
	// started: once everything but run_id matches, wait for the record.
	if rn.Status == run.StatusQueued && rn.ActionsRunID == 0 && checkRepoClaims(claims, repo) == nil {
		deadline := time.Now().Add(a.cfg.DispatchWait)
		for rn.Status == run.StatusQueued && rn.ActionsRunID == 0 && time.Now().Before(deadline) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			if rn, err = load(); err != nil {
				forbid("run", "err", err)
				return
			}
		}
		repo = rn.Edges.Repository
	}
	if err := checkClaims(claims, rn, repo); err != nil {
		log.Warn("job: token refused", "reason", "claims", "claim", err.Error())
		server.WriteError(w, http.StatusForbidden, codeForbidden, "the token is not valid for this run")
		return
	}
	if !runnerCompatible(req, a.cfg.Version) {
		a.refuseVersion(w, log, req)
		return
	}
	if rn.Status != run.StatusDispatched {
		log.Warn("job: run not waiting for a runner", "status", rn.Status)
		writeFault(w, errNotWaiting())
		return
	}
	job, err := a.buildJob(ctx, rn, log)
	if err != nil {
		if fe, ok := fault.As(err); ok && fe.Kind != fault.Internal {
			if fe.Err != nil {
				log.Warn("job: refused", "code", fe.Code, "err", redact.Error(fe.Err))
			}
			writeFault(w, fe)
			return
		}
		log.Error("job: build", "err", redact.Error(err))
		server.WriteError(w, http.StatusInternalServerError, codeInternal, "internal error")
		return
	}
	log.Info("job handed to runner", "kind", job.Kind, "incremental_since", job.IncrementalSince, "files", len(job.Files))
	server.WriteJSON(w, http.StatusOK, job)
}

func ghUnavailable(err error) error {
	return fault.New(fault.Unavailable, "GitHub could not be reached; retry later", err).WithCode(codeUnavailable)
}

// buildJob gathers everything the runner needs and switches the run to
// running with a fresh run token (compare-and-set).
func (a *API) buildJob(ctx context.Context, rn *ent.Run, log *slog.Logger) (*runnerproto.Job, error) {
	jc := &jobCtx{rn: rn, repo: rn.Edges.Repository, rv: rn.Edges.Reviewer, log: log}
	jc.inst = jc.repo.Edges.Installation
	if jc.inst == nil {
		return nil, errors.New("run's repository has no installation")
	}
	jc.owner, jc.name = jc.repo.Owner, jc.repo.Name
	// A shadow run reviews with the reviewer version its backtest replays
	// (rules, skills, reviewer.yaml), not the one in force.
	var err error
	if jc.rv, err = reviewers.ForRun(rn, jc.rv); err != nil {
		return nil, err
	}
	if jc.cfg, err = reviewers.FromEnt(jc.rv); err != nil {
		return nil, err
	}
	if rn.Shadow && rn.Kind != run.KindReview {
		return nil, fault.Newf(fault.Invalid, "a shadow run can only be a review").WithCode(codeBadRequest)
	}
	in, err := a.cfg.GitHub.InstallationFor(jc.inst.GithubID, gh.ScopeRead) // the job only reads
	if err != nil {
		return nil, fmt.Errorf("installation client: %w", err)
	}
	jc.gh = in.REST

	pr, _, err := jc.gh.PullRequests.Get(ctx, jc.owner, jc.name, rn.PrNumber)
	if err != nil {
		return nil, ghUnavailable(fmt.Errorf("get pull request: %w", err))
	}
	// A shadow run replays a commit reviewed before: the PR may have moved
	// on or closed since, and the job is of that commit and base.
	if head := pr.GetHead().GetSHA(); !rn.Shadow && (head != rn.HeadSha || pr.GetState() != "open") {
		return nil, a.cancelMoved(ctx, jc, pr)
	}
	loaded, err := review.LoadRepoConfig(ctx, jc.gh, jc.repo)
	if err != nil {
		return nil, ghUnavailable(err)
	}
	if loaded.Invalid != nil {
		log.Warn("job: .github/chakshu.yml does not parse; using defaults", "err", loaded.Invalid)
	}
	rc := loaded.RepoConfig

	job := &runnerproto.Job{
		Protocol: runnerproto.Protocol,
		RunID:    int64(rn.ID), Kind: string(rn.Kind), Reviewer: jc.rv.Name, Repository: jc.repo.FullName,
		PR: runnerproto.PR{Number: rn.PrNumber, Title: pr.GetTitle(), Body: pr.GetBody(), URL: pr.GetHTMLURL(),
			Author: pr.GetUser().GetLogin(), HeadSHA: pr.GetHead().GetSHA(), BaseSHA: pr.GetBase().GetSHA(),
			HeadRef: pr.GetHead().GetRef(), BaseRef: pr.GetBase().GetRef()},
		ClaudeMD: jc.rv.ClaudeMd, Skills: skillsOf(jc.rv), Instructions: rc.Instructions,
	}
	if rn.Shadow {
		job.PR.HeadSHA = rn.HeadSha
		if rn.BaseSha != "" {
			job.PR.BaseSHA = rn.BaseSha
		}
	}
	pd := promptData{Reviewer: jc.rv.Name, Repository: jc.repo.FullName, PR: job.PR, Instructions: rc.Instructions,
		MaxFindings: jc.cfg.MaxFindings}

	stats := func(u *ent.RunUpdate) {}
	var learningFiles []string
	if rn.Kind == run.KindReply {
		reply, err := a.replyParts(ctx, jc, pr)
		if err != nil {
			return nil, err
		}
		job.Reply = reply
		pd.Reply, pd.Remember = reply, reply.Remember
		learningFiles = []string{reply.Path}
	} else {
		var prFiles []*github.CommitFile
		var shadow *github.CommitsComparison
		if rn.Shadow {
			shadow, err = compareShadow(ctx, jc, job.PR.BaseSHA)
			if shadow != nil {
				prFiles = shadow.Files
			}
		} else {
			prFiles, err = listFiles(ctx, jc)
		}
		if err != nil {
			return nil, ghUnavailable(err)
		}
		all := make([]string, len(prFiles))
		for i, f := range prFiles {
			all[i] = f.GetFilename()
		}
		job.Files, job.FilteredFiles = filterPaths(all, rc.PathFilters)
		if job.Files == nil {
			job.Files = []string{}
		}
		var rd reviewDiff
		if shadow != nil {
			rd = shadowDiff(shadow)
		} else if rd, err = a.diffFor(ctx, jc, pr, prFiles); err != nil {
			return nil, ghUnavailable(err)
		}
		since, reason := rd.since, rd.reason
		job.Diff, job.IncrementalSince = filterDiff(rd.text, job.FilteredFiles), since
		if len(job.Diff) > maxJobDiff {
			// The runner reads at most 32 MB of job (a 50 MB patch made the
			// job unreadable and the review fail without a reason); the
			// prompt carries far less (maxPromptDiff), and the agent reads
			// the files themselves from the checkout.
			job.Diff = truncateUTF8(job.Diff, maxJobDiff)
		}
		pd.Files, pd.FilteredFiles, pd.Diff, pd.IncrementalSince, pd.FullReviewReason, pd.DiffNote = job.Files, job.FilteredFiles, job.Diff, since, reason, rd.note
		pd.Note = rn.Note
		learningFiles = all
		behind, ahead := 0, 0
		if shadow != nil {
			behind, ahead = shadow.GetBehindBy(), shadow.GetAheadBy()
		} else if cmp, _, err := jc.gh.Repositories.CompareCommits(ctx, jc.owner, jc.name, pr.GetBase().GetRef(), rn.HeadSha, &github.ListOptions{PerPage: 1}); err == nil {
			behind, ahead = cmp.GetBehindBy(), cmp.GetAheadBy()
		} else {
			log.Warn("job: compare with base", "err", redact.Error(err))
		}
		fromFork := pr.GetHead().GetRepo() == nil || !strings.EqualFold(pr.GetHead().GetRepo().GetFullName(), jc.repo.FullName)
		filtered := make([]string, len(job.FilteredFiles))
		for i, f := range job.FilteredFiles {
			filtered[i] = runs.Text(f)
		}
		stats = func(u *ent.RunUpdate) {
			u.SetIncrementalSince(since).SetFullReviewReason(reason).
				SetChangedFiles(pr.GetChangedFiles()).SetAdditions(pr.GetAdditions()).SetDeletions(pr.GetDeletions()).
				SetBehindBy(behind).SetAheadBy(ahead).SetFromFork(fromFork).SetFilteredFiles(filtered)
		}
	}

	sel, err := learnings.Select(ctx, a.cfg.DB.Client, jc.inst.ID, jc.repo.ID, learningFiles, learnings.Caps{})
	if err != nil {
		return nil, err
	}
	job.Learnings = sel.Learnings
	pd.Learnings, pd.LearningsMarker = sel.Learnings, sel.Marker()
	job.Tools = a.tools.Tools(connectors.Scope{InstallationID: jc.inst.ID, GitHubInstallationID: jc.inst.GithubID,
		Repo: jc.repo.FullName, Config: jc.cfg})
	pd.Tools = job.Tools

	job.Model = rn.Model
	if job.Model == "" {
		job.Model = jc.cfg.Model
	}
	price := ""
	if cat, _ := a.cfg.Models.Catalog(); cat != nil {
		if e, err := cat.Lookup(job.Model); err == nil {
			forced := e.ForcedToolChoice
			job.ForcedToolChoice = &forced
			price = e.PriceJSON()
		}
	}
	job.MaxCostUSD = rn.MaxCostUsd
	if job.MaxCostUSD <= 0 {
		job.MaxCostUSD = jc.cfg.MaxCostUSD
	}
	job.MaxTurns, job.WallSeconds = jc.cfg.MaxTurns, a.cfg.ReviewWallSeconds
	job.RetrySeconds = int(a.cfg.ModelRetryHorizon / time.Second)
	if rn.Kind == run.KindReview {
		job.Samples, job.Agree = jc.cfg.Samples, jc.cfg.Agree
	}
	if rn.Kind == run.KindReply {
		job.MaxCostUSD = min(job.MaxCostUSD, a.cfg.ReplyMaxCostUSD)
		job.MaxTurns = min(job.MaxTurns, a.cfg.ReplyMaxTurns)
		job.WallSeconds = a.cfg.ReplyWallSeconds
	}
	if job.System, job.Prompt, err = renderPrompts(string(rn.Kind), pd); err != nil {
		return nil, err
	}
	token, hash, err := newRunToken()
	if err != nil {
		return nil, err
	}
	job.RunToken = token
	base := fmt.Sprintf("%s/api/runner/v1/runs/%d", a.public, rn.ID)
	job.ResultURL, job.ToolURL, job.ModelURL = base+"/result", base+"/tools/{tool}", base+"/model"

	ids := make([]int, len(job.Learnings))
	for i, l := range job.Learnings {
		ids[i] = l.ID
	}
	msg := "The runner fetched the job; the review started."
	if job.IncrementalSince != "" {
		msg = fmt.Sprintf("The runner fetched the job; reviewing only the changes since %s.", short(job.IncrementalSince))
	}
	err = runs.Transition(ctx, a.cfg.DB.Client, rn.ID, runs.Change{
		From: []run.Status{run.StatusDispatched}, To: run.StatusRunning, Message: msg,
		Set: func(u *ent.RunUpdate) {
			u.SetRunTokenHash(hash).SetModel(job.Model).SetModelPrice(price).SetMaxCostUsd(job.MaxCostUSD).SetLearningsUsed(ids).
				SetPrTitle(runs.Text(job.PR.Title))
			stats(u)
		},
	})
	if errors.Is(err, runs.ErrConflict) {
		return nil, errNotWaiting()
	}
	if err != nil {
		return nil, err
	}
	return job, nil
}

// maxJobDiff caps the diff a job carries (see buildJob).
const maxJobDiff = 8 << 20

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// cancelMoved cancels a run whose PR moved (or closed) before the review
// started. The web process does not write to GitHub: the worker's finisher
// (woken by TopicFinish) completes the check run with the run's reason.
func (a *API) cancelMoved(ctx context.Context, jc *jobCtx, pr *github.PullRequest) error {
	rn := jc.rn
	closed := pr.GetState() != "open"
	code, message := codePRMoved, "the pull request moved to a new commit; the run was cancelled"
	if closed {
		code, message = "pr_closed", "the pull request was closed; the run was cancelled"
	}
	err := runs.CancelMoved(ctx, a.cfg.DB.Client, rn.ID, run.StatusDispatched, rn.HeadSha, pr.GetHead().GetSHA(), closed, a.cfg.AppSlug)
	if errors.Is(err, runs.ErrConflict) {
		return errNotWaiting()
	}
	if err != nil {
		return err
	}
	a.notify(ctx, notify.TopicFinish)
	return fault.Newf(fault.Conflict, "%s", message).WithCode(code)
}

// writeFault answers with a fault's status, code and safe sentence: the
// runner API's one mapping of error kinds.
func writeFault(w http.ResponseWriter, fe *fault.Error) {
	server.WriteError(w, fault.HTTPStatus(fe.Kind), fe.Code, fe.Public)
}

// errNotWaiting answers a job fetch for a run that started or finished.
func errNotWaiting() *fault.Error {
	return fault.Newf(fault.Conflict, "the run is not waiting for a runner: it already started or finished").WithCode(codeConflict)
}

// listFiles lists every file the PR touches (GitHub lists at most 3,000),
// with its patch when GitHub gives one. Patches past maxJobDiff in all are
// not kept (a job's diff is cut there anyway): such a file's patch is ""
// rather than absent, which stays GitHub's "no patch".
func listFiles(ctx context.Context, jc *jobCtx) ([]*github.CommitFile, error) {
	var out []*github.CommitFile
	kept := 0
	opt := &github.ListOptions{PerPage: 100}
	for len(out) < maxPRFiles {
		fs, resp, err := jc.gh.PullRequests.ListFiles(ctx, jc.owner, jc.name, jc.rn.PrNumber, opt)
		if err != nil {
			return nil, fmt.Errorf("list pull request files: %w", err)
		}
		for _, f := range fs {
			if kept += len(f.GetPatch()); kept > maxJobDiff && f.Patch != nil {
				f.Patch = github.Ptr("")
			}
		}
		out = append(out, fs...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	return out, nil
}

// reviewDiff is the diff a review works on.
type reviewDiff struct {
	since  string // the last reviewed commit, for a follow-up review
	reason string // why a full review was done, and what its diff lacks
	note   string // what a follow-up review's diff lacks
	text   string
}

// diffFor returns the diff to review: since the reviewer's last succeeded
// review of this PR when that commit is an ancestor of the head (DESIGN §4),
// else the whole PR with the reason a full review was done. files is the PR's
// files list: the whole diff is built from it when GitHub refuses to give it.
func (a *API) diffFor(ctx context.Context, jc *jobCtx, pr *github.PullRequest, files []*github.CommitFile) (reviewDiff, error) {
	var reason string
	head := jc.rn.HeadSha
	prev, err := a.cfg.DB.Run.Query().Where(
		run.HasRepositoryWith(repository.ID(jc.repo.ID)), run.HasReviewerWith(reviewer.ID(jc.rv.ID)),
		run.PrNumber(jc.rn.PrNumber), run.KindEQ(run.KindReview), run.StatusEQ(run.StatusSucceeded),
		run.HeadShaNEQ(head), run.IDNEQ(jc.rn.ID), run.Shadow(false),
	).Order(ent.Desc(run.FieldFinishedAt), ent.Desc(run.FieldID)).First(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return reviewDiff{}, fmt.Errorf("last review: %w", err)
	}
	if prev != nil {
		cmp, resp, err := jc.gh.Repositories.CompareCommits(ctx, jc.owner, jc.name, prev.HeadSha, head, &github.ListOptions{PerPage: 100})
		switch {
		case resp != nil && resp.StatusCode == http.StatusNotFound:
			reason = fmt.Sprintf("the last reviewed commit %s is gone (force push)", short(prev.HeadSha))
		case err != nil:
			return reviewDiff{}, fmt.Errorf("compare with last review: %w", err)
		case cmp.GetStatus() == "ahead" && len(cmp.Files) < 300:
			return reviewDiff{since: prev.HeadSha, text: diffOfFiles(cmp.Files), note: patchNote(cmp.Files)}, nil
		case cmp.GetStatus() == "ahead":
			reason = "the changes since the last review touch too many files"
		default:
			reason = fmt.Sprintf("force push: the last reviewed commit %s is no longer an ancestor of the head", short(prev.HeadSha))
		}
	}
	d, _, err := jc.gh.PullRequests.GetRaw(ctx, jc.owner, jc.name, jc.rn.PrNumber, github.RawOptions{Type: github.Diff})
	if diffTooLarge(err) {
		return reviewDiff{reason: joinReasons(reason, partialReason(pr, files)), text: diffOfFiles(files)}, nil
	}
	if err != nil {
		return reviewDiff{}, fmt.Errorf("pull request diff: %w", err)
	}
	return reviewDiff{reason: reason, text: d}, nil
}

// compareShadow compares a shadow run's base and head (three dots, as a
// PR's own diff): the files and patches of the commit reviewed back then,
// which need not be the PR's now.
func compareShadow(ctx context.Context, jc *jobCtx, base string) (*github.CommitsComparison, error) {
	cmp, _, err := jc.gh.Repositories.CompareCommits(ctx, jc.owner, jc.name, base, jc.rn.HeadSha, &github.ListOptions{PerPage: 100})
	if err != nil {
		return nil, fmt.Errorf("compare the shadow run's base and head: %w", err)
	}
	return cmp, nil
}

// shadowDiff is a shadow run's whole diff, built from its comparison. The
// prompt says nothing of a backtest: the reviewer sees the commit as a
// review of it would.
func shadowDiff(cmp *github.CommitsComparison) reviewDiff {
	rd := reviewDiff{text: diffOfFiles(cmp.Files), note: patchNote(cmp.Files)}
	if len(cmp.Files) >= 300 {
		rd.reason = "GitHub's comparison of the commit with its base lists at most 300 files, so the diff may lack some"
	}
	return rd
}

// patchNote tells the agent how many files come without hunks, or "".
func patchNote(files []*github.CommitFile) string {
	if n := withoutPatch(files); n > 0 {
		return fmt.Sprintf("%d of the changed files come without hunks: GitHub gives no patch for them (binary, or their diff is too large). Read them in the checkout", n)
	}
	return ""
}

// withoutPatch counts the files GitHub gives no patch for (binary, or their
// own diff too large); a pure rename has nothing to patch and is not counted.
func withoutPatch(files []*github.CommitFile) int {
	n := 0
	for _, f := range files {
		if f.Patch == nil && !(f.GetStatus() == "renamed" && f.GetChanges() == 0) {
			n++
		}
	}
	return n
}

// diffTooLarge tells GitHub's refusal of a whole-PR diff past 300 files or
// 20,000 lines (406, code too_large) from any other error.
func diffTooLarge(err error) bool {
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusNotAcceptable {
		return false
	}
	for _, e := range er.Errors {
		if e.Code == "too_large" {
			return true
		}
	}
	return false
}

// partialReason tells the agent (and the run page) that the diff was built
// from the files list, and what it lacks.
func partialReason(pr *github.PullRequest, files []*github.CommitFile) string {
	r := fmt.Sprintf("the pull request is too large for GitHub's diff (%d files, %d changed lines), so the diff is built from its files list",
		max(pr.GetChangedFiles(), len(files)), pr.GetAdditions()+pr.GetDeletions())
	if n := pr.GetChangedFiles(); n > len(files) {
		r += fmt.Sprintf("; GitHub lists only %d of its %d files", len(files), n)
	}
	if noPatch := withoutPatch(files); noPatch > 0 {
		r += fmt.Sprintf("; %d files whose patch GitHub does not give are listed without hunks: read them in the checkout", noPatch)
	}
	return r
}

func joinReasons(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// diffOfFiles builds a unified diff from a comparison's or a PR's per-file
// patches; a file without a patch (binary, or its diff too large for GitHub)
// still has its header, so the diff names every file.
func diffOfFiles(files []*github.CommitFile) string {
	var b strings.Builder
	for _, f := range files {
		name, old := f.GetFilename(), f.GetFilename()
		if f.GetPreviousFilename() != "" {
			old = f.GetPreviousFilename()
		}
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n", old, name)
		switch f.GetStatus() {
		case "added":
			fmt.Fprintf(&b, "--- /dev/null\n+++ b/%s\n", name)
		case "removed":
			fmt.Fprintf(&b, "--- a/%s\n+++ /dev/null\n", old)
		default:
			fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", old, name)
		}
		if p := f.GetPatch(); p != "" {
			b.WriteString(strings.TrimRight(p, "\n"))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// filterDiff drops the sections of files left out by path_filters.
func filterDiff(diff string, dropped []string) string {
	if len(dropped) == 0 {
		return diff
	}
	drop := map[string]bool{}
	for _, d := range dropped {
		drop[d] = true
	}
	var b strings.Builder
	keep := true
	for _, line := range strings.SplitAfter(diff, "\n") {
		if rest, ok := strings.CutPrefix(line, "diff --git "); ok {
			keep = true
			// The new path follows the last " b/" (a header without its a/
			// side still names its b/ path).
			if i := strings.LastIndex(" "+rest, " b/"); i >= 0 {
				keep = !drop[strings.TrimRight(rest[i+2:], "\n")]
			}
		}
		if keep {
			b.WriteString(line)
		}
	}
	return b.String()
}

// skillsOf reads the reviewer's stored skills.
func skillsOf(rv *ent.Reviewer) []runnerproto.Skill {
	out := []runnerproto.Skill{}
	for _, m := range rv.Skills {
		b, err := json.Marshal(m)
		if err != nil {
			continue
		}
		var s runnerproto.Skill
		if json.Unmarshal(b, &s) == nil && s.Name != "" {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
