// Package job is the "build a job" use case (DESIGN §2.5): everything a
// runner is handed for one run. Build gathers a dispatched run's facts from
// GitHub and the database (the PR, its files and the diff to review, the
// repository's .github/chakshu.yml, the thread of a reply, learnings, tools)
// and switches the run to running; Assemble turns those facts into the job
// (path filters, diff cut, model and forced tool choice from the catalogue,
// cost, turn and wall-time limits, samples, prompts). `chakshu eval` calls
// Assemble with a corpus case's facts, so both edges hand out the same job
// for the same reviewer. The runner API (server/runnerapi) keeps OIDC,
// claims and the HTTP mapping of this package's fault errors.
package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/connectors"
	"github.com/chakshu-dev/chakshu/internal/diffmap"
	"github.com/chakshu-dev/chakshu/internal/fault"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/learnings"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/reviewrequest"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/textcut"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// GitHub hands out installation clients for the job's reads; *gh.Apps
// satisfies it. A job only reads: the client is narrowed to gh.ScopeRead.
type GitHub interface {
	InstallationFor(id int64, scope gh.Scope) (*gh.Installation, error)
}

var _ GitHub = (*gh.Apps)(nil)

// Tools lists the connector tools a reviewer may call; *connectors.Registry
// satisfies it.
type Tools interface {
	Tools(s connectors.Scope) []runnerproto.ToolDef
}

var _ Tools = (*connectors.Registry)(nil)

// Limits are the settings that bound a job besides the reviewer's own
// config. Zero values take the defaults.
type Limits struct {
	// ReplyMaxCostUSD and ReplyMaxTurns cap reply runs; 0 means $0.50 and 12 turns.
	ReplyMaxCostUSD float64
	ReplyMaxTurns   int
	// ReviewWallSeconds and ReplyWallSeconds bound the agent's wall time; 0 means 25 and 8 minutes.
	ReviewWallSeconds, ReplyWallSeconds int
	// ModelRetryHorizon goes in every job as its retry_seconds
	// (CHAKSHU_MODEL_RETRY_HORIZON); 0 leaves the runner's default.
	ModelRetryHorizon time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.ReplyMaxCostUSD <= 0 {
		l.ReplyMaxCostUSD = 0.5
	}
	if l.ReplyMaxTurns <= 0 {
		l.ReplyMaxTurns = 12
	}
	if l.ReviewWallSeconds <= 0 {
		l.ReviewWallSeconds = 25 * 60
	}
	if l.ReplyWallSeconds <= 0 {
		l.ReplyWallSeconds = 8 * 60
	}
	return l
}

// Config builds a Builder. Assemble needs only Models and Limits; Build
// needs DB and GitHub too.
type Config struct {
	DB *ent.Client
	// GitHub reads pull requests; building a job never writes to GitHub.
	GitHub GitHub
	// Tools are the connector tools; nil means none.
	Tools Tools
	// Models is the model catalogue; nil means the built-in one.
	Models *models.Source
	// Bus wakes the worker's finisher when a run is cancelled here; nil
	// leaves it to its sweep.
	Bus wakeup.Bus
	// AppSlug is the App's slug, for "@<slug> review" in texts.
	AppSlug string
	Limits  Limits
}

// Builder builds jobs.
type Builder struct {
	cfg Config
}

// New returns a Builder; cfg's zero fields take their defaults.
func New(cfg Config) *Builder {
	if cfg.Models == nil {
		cfg.Models = models.Static(models.Builtin())
	}
	if cfg.AppSlug == "" {
		cfg.AppSlug = "chakshu"
	}
	cfg.Limits = cfg.Limits.withDefaults()
	return &Builder{cfg: cfg}
}

// Reviewer is the reviewer version a job is of.
type Reviewer struct {
	Name     string
	ClaudeMD string
	Skills   []runnerproto.Skill
	Config   reviewerconfig.Config
}

// Changes are what a review works on: the PR's files and the diff to review.
type Changes struct {
	// Files are every file the PR touches, before path filters.
	Files []string
	// Diff is the unified diff to review, before path filters.
	Diff string
	// Since is the last reviewed commit of a follow-up review; Reason why a
	// full review was done; Note what the diff lacks, for the agent.
	Since, Reason, Note string
}

// Parts are the facts a job is assembled from, wherever they came from (a
// pull request on GitHub, or a `chakshu eval` corpus case).
type Parts struct {
	Kind       run.Kind
	RunID      int
	Repository string
	PR         runnerproto.PR
	Reviewer   Reviewer
	// Model and MaxCostUSD are the run's own; "" and 0 take the reviewer's.
	Model      string
	MaxCostUSD float64
	// Instructions and PathFilters are the repository's .github/chakshu.yml.
	Instructions string
	PathFilters  []string
	// Note is the requester's note (untrusted).
	Note string
	// Changes are a review's; Reply is a reply's.
	Changes Changes
	Reply   *runnerproto.Reply
	// Learnings are the ones picked for this job; Tools the reviewer's tools.
	Learnings learnings.Selection
	Tools     []runnerproto.ToolDef
	// BaseURL is the run's URL on the runner API (…/runs/{id}): the job's
	// result, tool and model URLs are under it. RunToken authenticates them.
	BaseURL  string
	RunToken string
}

// Assembled is a job and what the run records of it besides.
type Assembled struct {
	Job *runnerproto.Job
	// Price is the model's price as the catalogue gives it ("" when the
	// model is not in it).
	Price string
}

// MaxDiff caps the diff a job carries: the runner reads at most 32 MB of
// job (a 50 MB patch made the job unreadable and the review fail without a
// reason); the prompt carries far less (maxPromptDiff), and the agent reads
// the files themselves from the checkout.
const MaxDiff = 8 << 20

// Assemble builds the job of p: the one path both the runner API (through
// Build) and `chakshu eval` take from facts to job.
func (b *Builder) Assemble(p Parts) (Assembled, error) {
	cfg, lim := p.Reviewer.Config, b.cfg.Limits
	skills := p.Reviewer.Skills
	if skills == nil {
		skills = []runnerproto.Skill{}
	}
	j := &runnerproto.Job{
		Protocol: runnerproto.Protocol,
		RunID:    int64(p.RunID), Kind: string(p.Kind), Reviewer: p.Reviewer.Name, Repository: p.Repository,
		PR: p.PR, ClaudeMD: p.Reviewer.ClaudeMD, Skills: skills, Instructions: p.Instructions,
		Reply: p.Reply, Learnings: p.Learnings.Learnings, Tools: p.Tools, RunToken: p.RunToken,
	}
	pd := promptData{Reviewer: p.Reviewer.Name, Repository: p.Repository, PR: p.PR, Instructions: p.Instructions,
		MaxFindings: cfg.MaxFindings, Learnings: p.Learnings.Learnings, LearningsMarker: p.Learnings.Marker(), Tools: p.Tools}
	if p.Kind == run.KindReply {
		if p.Reply == nil {
			return Assembled{}, errors.New("a reply job needs its thread")
		}
		pd.Reply, pd.Remember = p.Reply, p.Reply.Remember
	} else {
		c := p.Changes
		j.Files, j.FilteredFiles = filterPaths(c.Files, p.PathFilters)
		if j.Files == nil {
			j.Files = []string{}
		}
		j.Diff, j.IncrementalSince = filterDiff(c.Diff, j.FilteredFiles), c.Since
		if len(j.Diff) > MaxDiff {
			j.Diff = textcut.Bytes(j.Diff, MaxDiff)
		}
		pd.Files, pd.FilteredFiles, pd.Diff, pd.IncrementalSince, pd.FullReviewReason, pd.DiffNote = j.Files, j.FilteredFiles, j.Diff, c.Since, c.Reason, c.Note
		pd.Note = p.Note
		j.Samples, j.Agree = cfg.Samples, cfg.Agree
		j.Lenses = cfg.PassLenses()
		if cfg.Verify {
			j.Verify = &runnerproto.VerifySpec{MinConfidence: cfg.VerifyMinConfidence}
		}
	}

	j.Model = p.Model
	if j.Model == "" {
		j.Model = cfg.Model
	}
	var price string
	if cat, _ := b.cfg.Models.Catalog(); cat != nil {
		if e, err := cat.Lookup(j.Model); err == nil {
			forced := e.ForcedToolChoice
			j.ForcedToolChoice = &forced
			price = e.PriceJSON()
		}
	}
	j.MaxCostUSD = p.MaxCostUSD
	if j.MaxCostUSD <= 0 {
		j.MaxCostUSD = cfg.MaxCostUSD
	}
	j.MaxTurns, j.WallSeconds = cfg.MaxTurns, lim.ReviewWallSeconds
	j.RetrySeconds = int(lim.ModelRetryHorizon / time.Second)
	if p.Kind == run.KindReply {
		j.MaxCostUSD = min(j.MaxCostUSD, lim.ReplyMaxCostUSD)
		j.MaxTurns = min(j.MaxTurns, lim.ReplyMaxTurns)
		j.WallSeconds = lim.ReplyWallSeconds
	}
	var err error
	if j.System, j.Prompt, err = renderPrompts(string(p.Kind), pd); err != nil {
		return Assembled{}, err
	}
	base := strings.TrimRight(p.BaseURL, "/")
	j.ResultURL, j.ToolURL, j.ModelURL = base+"/result", base+"/tools/{tool}", base+"/model"
	return Assembled{Job: j, Price: price}, nil
}

// Start is what the edge handing the job out adds to it: the run's URL on
// its API and the run token (the run stores its hash).
type Start struct {
	BaseURL             string
	RunToken, TokenHash string
}

// The codes of a job refused because the run's PR moved on or closed
// (the runner API's error "code").
const (
	CodePRMoved  = "pr_moved"
	CodePRClosed = "pr_closed"
)

// ghUnavailable is a GitHub read that failed for now.
func ghUnavailable(err error) error {
	return fault.New(fault.Unavailable, "GitHub could not be reached; retry later", err)
}

// ErrNotWaiting answers a job fetch for a run that started or finished.
func ErrNotWaiting() *fault.Error {
	return fault.Newf(fault.Conflict, "the run is not waiting for a runner: it already started or finished")
}

// runFacts is what building one run's job reads, in one place.
type runFacts struct {
	rn          *ent.Run
	repo        *ent.Repository
	inst        *ent.Installation
	rv          *ent.Reviewer
	cfg         reviewerconfig.Config
	gh          *github.Client
	owner, name string
}

// Build gathers everything the runner needs for the dispatched run rn (its
// Reviewer and Repository with its Installation loaded) and switches it to
// running with st's run token (compare-and-set). A run whose PR moved or
// closed is cancelled (a fault.Conflict with code CodePRMoved or
// CodePRClosed); GitHub failing is a fault.Unavailable.
func (b *Builder) Build(ctx context.Context, rn *ent.Run, st Start) (*runnerproto.Job, error) {
	log := logging.From(ctx)
	f := &runFacts{rn: rn, repo: rn.Edges.Repository, rv: rn.Edges.Reviewer}
	f.inst = f.repo.Edges.Installation
	if f.inst == nil {
		return nil, errors.New("run's repository has no installation")
	}
	f.owner, f.name = f.repo.Owner, f.repo.Name
	// A shadow run reviews with the reviewer version its backtest replays
	// (rules, skills, reviewer.yaml), not the one in force.
	var err error
	if f.rv, err = reviewerconfig.ForRun(rn, f.rv); err != nil {
		return nil, err
	}
	f.cfg = reviewerconfig.FromEnt(f.rv)
	if rn.Shadow && rn.Kind != run.KindReview {
		return nil, fault.Newf(fault.Invalid, "a shadow run can only be a review")
	}
	in, err := b.cfg.GitHub.InstallationFor(f.inst.GithubID, gh.ScopeRead) // the job only reads
	if err != nil {
		return nil, fmt.Errorf("installation client: %w", err)
	}
	f.gh = in.REST

	// The PR is read again although dispatch read it: the runner may start
	// minutes later, and a PR that moved since is not reviewed.
	pr, _, err := f.gh.PullRequests.Get(ctx, f.owner, f.name, rn.PrNumber)
	if err != nil {
		return nil, ghUnavailable(fmt.Errorf("get pull request: %w", err))
	}
	// A shadow run replays a commit reviewed before: the PR may have moved
	// on or closed since, and the job is of that commit and base.
	if head := pr.GetHead().GetSHA(); !rn.Shadow && (head != rn.HeadSha || pr.GetState() != "open") {
		return nil, b.cancelMoved(ctx, rn, pr)
	}
	// .github/chakshu.yml is read once per run: at queue time when picking
	// needed it, else here; the run keeps it (runs.repo_config).
	var loaded reviewrequest.RepoConfig
	if rn.RepoConfig != nil {
		loaded, err = reviewrequest.StoredRepoConfig(*rn.RepoConfig)
	} else if loaded, err = reviewrequest.LoadRepoConfig(ctx, f.gh, f.repo); err != nil {
		err = ghUnavailable(err)
	}
	if err != nil {
		return nil, err
	}
	if loaded.Invalid != nil {
		log.Warn("job: .github/chakshu.yml does not parse; using defaults", "err", loaded.Invalid)
	}
	rc := loaded.RepoConfig

	p := Parts{Kind: rn.Kind, RunID: rn.ID, Repository: f.repo.FullName, Model: rn.Model, MaxCostUSD: rn.MaxCostUsd,
		Reviewer: Reviewer{Name: f.rv.Name, ClaudeMD: f.rv.ClaudeMd, Skills: skillsOf(f.rv), Config: f.cfg},
		PR: runnerproto.PR{Number: rn.PrNumber, Title: pr.GetTitle(), Body: pr.GetBody(), URL: pr.GetHTMLURL(),
			Author: pr.GetUser().GetLogin(), HeadSHA: pr.GetHead().GetSHA(), BaseSHA: pr.GetBase().GetSHA(),
			HeadRef: pr.GetHead().GetRef(), BaseRef: pr.GetBase().GetRef()},
		Instructions: rc.Instructions, PathFilters: rc.PathFilters, BaseURL: st.BaseURL, RunToken: st.RunToken}
	if rn.Shadow {
		p.PR.HeadSHA = rn.HeadSha
		if rn.BaseSha != "" {
			p.PR.BaseSHA = rn.BaseSha
		}
	}

	stats := func(*ent.RunUpdate, *runnerproto.Job) {}
	facts := func(u *ent.RunUpdate) { u.SetRepoConfig(loaded.Text) }
	var learningFiles []string
	if rn.Kind == run.KindReply {
		if p.Reply, err = b.replyParts(ctx, f, pr); err != nil {
			return nil, err
		}
		learningFiles = []string{p.Reply.Path}
	} else {
		var prFiles []*github.CommitFile
		var shadow *github.CommitsComparison
		if rn.Shadow {
			shadow, err = compareShadow(ctx, f, p.PR.BaseSHA)
			if shadow != nil {
				prFiles = shadow.Files
			}
		} else if rn.PrFiles != nil && len(*rn.PrFiles) > 0 {
			// The event listed them for picking, at this head: the files
			// are listed once per run.
			prFiles, err = storedFiles(*rn.PrFiles)
		} else {
			prFiles, err = listFiles(ctx, f)
		}
		if err != nil {
			return nil, ghUnavailable(err)
		}
		// What the review saw, for publishing (its diff map): the files are
		// listed once per run.
		if !rn.Shadow {
			enc, err := diffmap.EncodeFiles(diffmap.FilesOf(prFiles))
			if err != nil {
				return nil, err
			}
			facts = func(u *ent.RunUpdate) { u.SetRepoConfig(loaded.Text).SetPrFiles(enc) }
		}
		all := make([]string, len(prFiles))
		for i, cf := range prFiles {
			all[i] = cf.GetFilename()
		}
		var rd reviewDiff
		if shadow != nil {
			rd = shadowDiff(shadow)
		} else if rd, err = b.diffFor(ctx, f, pr, prFiles); err != nil {
			return nil, ghUnavailable(err)
		}
		p.Changes = Changes{Files: all, Diff: rd.text, Since: rd.since, Reason: rd.reason, Note: rd.note}
		p.Note = rn.Note
		learningFiles = all
		behind, ahead := 0, 0
		if shadow != nil {
			behind, ahead = shadow.GetBehindBy(), shadow.GetAheadBy()
		} else if cmp, _, err := f.gh.Repositories.CompareCommits(ctx, f.owner, f.name, pr.GetBase().GetRef(), rn.HeadSha, &github.ListOptions{PerPage: 1}); err == nil {
			behind, ahead = cmp.GetBehindBy(), cmp.GetAheadBy()
		} else {
			log.Warn("job: compare with base", "err", redact.Error(err))
		}
		fromFork := pr.GetHead().GetRepo() == nil || !strings.EqualFold(pr.GetHead().GetRepo().GetFullName(), f.repo.FullName)
		stats = func(u *ent.RunUpdate, j *runnerproto.Job) {
			filtered := make([]string, len(j.FilteredFiles))
			for i, d := range j.FilteredFiles {
				filtered[i] = runstate.Text(d)
			}
			u.SetIncrementalSince(rd.since).SetFullReviewReason(rd.reason).
				SetChangedFiles(pr.GetChangedFiles()).SetAdditions(pr.GetAdditions()).SetDeletions(pr.GetDeletions()).
				SetBehindBy(behind).SetAheadBy(ahead).SetFromFork(fromFork).SetFilteredFiles(filtered)
		}
	}

	if p.Learnings, err = learnings.Select(ctx, b.cfg.DB, f.inst.ID, f.repo.ID, learningFiles, learnings.Caps{}); err != nil {
		return nil, err
	}
	if b.cfg.Tools != nil {
		p.Tools = b.cfg.Tools.Tools(connectors.Scope{InstallationID: f.inst.ID, GitHubInstallationID: f.inst.GithubID,
			Repo: f.repo.FullName, Config: f.cfg})
	}
	a, err := b.Assemble(p)
	if err != nil {
		return nil, err
	}
	j := a.Job

	ids := make([]int, len(j.Learnings))
	for i, l := range j.Learnings {
		ids[i] = l.ID
	}
	msg := "The runner fetched the job; the review started."
	if j.IncrementalSince != "" {
		msg = fmt.Sprintf("The runner fetched the job; reviewing only the changes since %s.", gh.ShortSHA(j.IncrementalSince))
	}
	err = runstate.Transition(ctx, b.cfg.DB, rn.ID, runstate.Change{
		From: []run.Status{run.StatusDispatched}, To: run.StatusRunning, Message: msg,
		Set: func(u *ent.RunUpdate) {
			u.SetRunTokenHash(st.TokenHash).SetModel(j.Model).SetModelPrice(a.Price).SetMaxCostUsd(j.MaxCostUSD).SetLearningsUsed(ids).
				SetPrTitle(runstate.Text(j.PR.Title))
			stats(u, j)
			facts(u)
		},
	})
	if errors.Is(err, runstate.ErrConflict) {
		return nil, ErrNotWaiting()
	}
	if err != nil {
		return nil, err
	}
	return j, nil
}

// cancelMoved cancels a run whose PR moved (or closed) before the review
// started. The web process does not write to GitHub: the worker's finisher
// (woken by TopicFinish) completes the check run with the run's reason.
func (b *Builder) cancelMoved(ctx context.Context, rn *ent.Run, pr *github.PullRequest) error {
	closed := pr.GetState() != "open"
	code, message := CodePRMoved, "the pull request moved to a new commit; the run was cancelled"
	if closed {
		code, message = CodePRClosed, "the pull request was closed; the run was cancelled"
	}
	err := runstate.CancelMoved(ctx, b.cfg.DB, rn.ID, run.StatusDispatched, rn.HeadSha, pr.GetHead().GetSHA(), closed, b.cfg.AppSlug)
	if errors.Is(err, runstate.ErrConflict) {
		return ErrNotWaiting()
	}
	if err != nil {
		return err
	}
	if b.cfg.Bus != nil {
		if err := b.cfg.Bus.Notify(ctx, wakeup.TopicFinish); err != nil {
			logging.From(ctx).Warn("notify", "topic", wakeup.TopicFinish, "err", err)
		}
	}
	return fault.Newf(fault.Conflict, "%s", message).WithCode(code)
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
