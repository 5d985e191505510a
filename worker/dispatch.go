package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/fault"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/queue"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// WorkflowFile is the workflow Chakshu starts in each repository.
const WorkflowFile = "chakshu.yml"

// GitHub gives the installation clients the worker acts with.
type GitHub interface {
	Installation(id int64) (*gh.Installation, error)
	// InstallationFor is a token narrowed to scope (the write port resolves
	// threads with gh.ScopeResolve).
	InstallationFor(id int64, scope gh.Scope) (*gh.Installation, error)
}

var _ GitHub = (*gh.Apps)(nil)

// DispatchWriter is what the dispatcher writes to GitHub.
type DispatchWriter interface {
	OpenCheck(ctx context.Context, c ghwrite.Check, detailsURL string, t ghwrite.Text) (int64, bool, error)
	StartCheck(ctx context.Context, c ghwrite.Check, t ghwrite.Text) error
	NoteCheck(ctx context.Context, c ghwrite.Check, t ghwrite.Text) error
	Dispatch(ctx context.Context, r ghwrite.Repo, file, ref string, inputs map[string]any) (*github.WorkflowDispatchRunDetails, error)
}

var _ DispatchWriter = (*ghwrite.Port)(nil)

// DispatchConfig builds a Dispatcher.
type DispatchConfig struct {
	DB     *store.DB
	Log    *slog.Logger
	Bus    wakeup.Bus
	GitHub GitHub
	// Write is the GitHub write port; nil builds one on GitHub.
	Write    DispatchWriter
	WorkerID string
	// PublicURL links check runs to the portal.
	PublicURL string
	// AppSlug is named in the check text ("@<slug> review").
	AppSlug string
	// PollInterval is the safety-net poll; wake-ups come from the bus.
	PollInterval time.Duration
	// Models is the model catalogue; a run whose model is unknown or
	// retired fails at once. Nil means the built-in catalogue.
	Models *models.Source
	// MaxConcurrentRuns caps the runs of one installation in flight; runs
	// over it stay queued (limits.go). 0: no cap.
	MaxConcurrentRuns int
}

// Dispatcher claims queued runs, opens their check runs and starts the
// workflow (DESIGN §2.3–§2.4).
type Dispatcher struct {
	cfg DispatchConfig
	// oneRunEach remembers, per repository id, when its workflow file
	// refused the run_ids input (an older copy of the template): its
	// reviewers get one Actions run each until then plus oneRunFor.
	mu         sync.Mutex
	oneRunEach map[int]time.Time
}

var _ Loop = (*Dispatcher)(nil)

// NewDispatcher validates cfg.
func NewDispatcher(cfg DispatchConfig) (*Dispatcher, error) {
	if cfg.DB == nil || cfg.Log == nil || cfg.Bus == nil || cfg.GitHub == nil || cfg.WorkerID == "" {
		return nil, errors.New("dispatcher: DB, Log, Bus, GitHub and WorkerID are required")
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.Write == nil {
		cfg.Write = ghwrite.New(cfg.GitHub, cfg.AppSlug)
	}
	return &Dispatcher{cfg: cfg, oneRunEach: map[int]time.Time{}}, nil
}

// Name implements Loop.
func (d *Dispatcher) Name() string { return "dispatch" }

// Run implements Loop.
func (d *Dispatcher) Run(ctx context.Context) error {
	wake, stop := d.cfg.Bus.Subscribe(wakeup.TopicRuns)
	defer stop()
	return Repeat(logging.With(ctx, d.cfg.Log), "dispatch: claim", wake, d.cfg.PollInterval, func(ctx context.Context) error {
		for ctx.Err() == nil {
			id, err := queue.Claim(ctx, d.cfg.DB, queue.QueuedRuns, d.cfg.WorkerID, time.Now(), 0)
			if err != nil || id == 0 {
				return err
			}
			d.Dispatch(ctx, id)
		}
		return nil
	})
}

// Dispatch handles one claimed run to its next state, with the other runs
// of its pull request and commit waiting for dispatch: it claims them too, and
// one workflow dispatch starts one Actions run that reviews for all of them
// (DESIGN §2.3). Each keeps its own check run, state and failures.
func (d *Dispatcher) Dispatch(ctx context.Context, id int) {
	r, err := d.load(ctx, id)
	if err != nil {
		d.cfg.Log.Error("dispatch: load run", logging.KeyRun, id, "err", err)
		queue.Release(ctx, d.cfg.DB, queue.QueuedRuns, id, d.cfg.WorkerID, time.Now().Add(5*time.Second)) //nolint:errcheck
		return
	}
	repo := r.Edges.Repository
	room, held := d.holdForCap(d.runContext(ctx, r), r, repo.Edges.Installation.ID)
	if held {
		return
	}
	group := []*ent.Run{r}
	if d.mayShare(repo.ID, time.Now()) {
		ids, err := claimCompanions(ctx, d.cfg.DB, r, repo.ID, d.cfg.WorkerID, time.Now(), min(room, MaxShared-1))
		if err != nil {
			d.cfg.Log.Warn("dispatch: claim the runs that would share the Actions run", logging.KeyRun, id, "err", err)
		}
		for _, cid := range ids {
			c, err := d.load(ctx, cid)
			if err != nil {
				d.cfg.Log.Error("dispatch: load run", logging.KeyRun, cid, "err", err)
				queue.Release(ctx, d.cfg.DB, queue.QueuedRuns, cid, d.cfg.WorkerID, time.Now().Add(5*time.Second)) //nolint:errcheck
				continue
			}
			group = append(group, c)
		}
	}
	d.dispatchGroup(ctx, group)
}

// load reads a run with what dispatching it needs.
func (d *Dispatcher) load(ctx context.Context, id int) (*ent.Run, error) {
	return d.cfg.DB.Run.Query().Where(run.ID(id)).
		WithRepository(func(q *ent.RepositoryQuery) { q.WithInstallation() }).WithReviewer().Only(ctx)
}

// runContext is ctx with run r's log keys, and the write port's view of r
// (a backtest's replay: the port refuses any write on the PR).
func (d *Dispatcher) runContext(ctx context.Context, r *ent.Run) context.Context {
	log := d.cfg.Log.With(logging.KeyRun, r.ID, "repo", r.Edges.Repository.FullName, "pr", r.PrNumber, "reviewer", r.Edges.Reviewer.Name)
	if r.Shadow {
		log = log.With("shadow", true, "backtest_id", r.BacktestID)
	}
	return logging.With(ghwrite.ForRun(ctx, r), log)
}

// oneRunFor is how long a repository whose workflow refused run_ids gets one
// Actions run per reviewer before sharing is tried again (its owner may have
// updated the file).
const oneRunFor = time.Hour

// mayShare says whether runs of repository repo may share an Actions run.
func (d *Dispatcher) mayShare(repo int, now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	until, ok := d.oneRunEach[repo]
	return !ok || now.After(until)
}

func (d *Dispatcher) rememberOneRunEach(repo int, now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.oneRunEach[repo] = now.Add(oneRunFor)
}

// settle puts run r back when GitHub asked to wait (err), or fails it with
// err's safe sentence.
func (d *Dispatcher) settle(ctx context.Context, r *ent.Run, err error) {
	log := logging.From(ctx)
	if until, ok := gh.WaitFor(err, time.Now()); ok {
		if gh.Paced(err) {
			// Every new run of the installation would meet the same
			// budget: claims go to other installations meanwhile.
			if herr := queue.HoldStarts(ctx, d.cfg.DB, r.Edges.Repository.Edges.Installation.ID, until); herr != nil {
				log.Warn("dispatch: hold the installation's starts", "err", herr)
			}
		}
		d.waitForGitHub(ctx, r.ID, until, err)
		return
	}
	reason, detail := "Chakshu could not start the review: GitHub did not answer as expected. Ask again later.", err.Error()
	if fe, ok := fault.As(err); ok && fe.Err != nil {
		reason, detail = fe.Public, fe.Err.Error() // the check run's text is the kind's safe sentence
	}
	log.Warn("dispatch failed", "reason", reason, "err", detail)
	if ferr := runstate.Fail(ctx, d.cfg.DB.Client, r.ID, reason, detail); ferr != nil && !errors.Is(ferr, runstate.ErrConflict) {
		log.Error("dispatch: fail run", "err", ferr)
	}
	d.cfg.Bus.Notify(ctx, wakeup.TopicFinish) //nolint:errcheck
}

// waitForGitHub puts a run GitHub asked to wait for back in the queue, due
// at until, frees the worker, and says so on the timeline and the check run.
func (d *Dispatcher) waitForGitHub(ctx context.Context, id int, until time.Time, cause error) {
	log := logging.From(ctx)
	text := waitingText(cause, until)
	log.Info("dispatch: GitHub asked to wait", "until", until, "err", cause)
	if _, err := queue.Release(ctx, d.cfg.DB, queue.QueuedRuns, id, d.cfg.WorkerID, until); err != nil {
		log.Error("dispatch: put the run back", "err", err)
	}
	if err := runstate.Note(ctx, d.cfg.DB.Client, id, text, cause.Error()); err != nil {
		log.Warn("dispatch: record the wait", "err", err)
	}
	noteWait(ctx, d.cfg.DB, d.cfg.Write, id, until, cause)
}

// WaitingText is what a run waiting for GitHub's rate limit says, with the
// time it goes on.
func WaitingText(until time.Time) string {
	return fmt.Sprintf("GitHub asked Chakshu to slow down (rate limit); the review goes on at %s UTC.", until.UTC().Format("15:04:05"))
}

// PacedText is what a run held back by its installation's content budget
// says, with the time it goes on.
func PacedText(until time.Time) string {
	return fmt.Sprintf("Chakshu paces this organisation's reviews under GitHub's content limits; this one goes on at %s UTC.", until.UTC().Format("15:04:05"))
}

func waitingText(cause error, until time.Time) string {
	if gh.Paced(cause) {
		return PacedText(until)
	}
	return WaitingText(until)
}

// checkModel fails a run whose model cannot be used now (unknown, retired)
// before any workflow starts: the check run names the fix.
func (d *Dispatcher) checkModel(r *ent.Run, rv *ent.Reviewer) error {
	model := r.Model
	if model == "" {
		used, err := reviewerconfig.ForRun(r, rv)
		if err != nil {
			return fault.New(fault.Invalid, "The reviewer version this backtest replays cannot be read.", err)
		}
		model = reviewerconfig.FromEnt(used).Model
	}
	if err := reviewerconfig.CheckModel(d.cfg.Models, model, time.Now()); err != nil {
		return fault.New(fault.Invalid, fmt.Sprintf("The reviewer %s cannot run: its %s. Set `model:` in reviewers/%s/reviewer.yaml of the reviewers repository to an active model and ask again.", rv.Name, err, rv.Name), err)
	}
	return nil
}

func (d *Dispatcher) portalURL(id int) string {
	return fmt.Sprintf("%s/runs/%d", strings.TrimRight(d.cfg.PublicURL, "/"), id)
}

// member is a run of a dispatch, ready to start: its context and check run.
type member struct {
	ctx   context.Context
	r     *ent.Run
	check ghwrite.Check
}

// dispatchGroup opens the check run of each run of group (runs of one pull
// request and commit, the first the one claimed first), checks each may
// start, and starts one Actions run for those that may.
func (d *Dispatcher) dispatchGroup(ctx context.Context, group []*ent.Run) {
	repo := group[0].Edges.Repository
	inst, err := d.cfg.GitHub.Installation(repo.Edges.Installation.GithubID)
	if err != nil {
		for _, r := range group {
			d.settle(d.runContext(ctx, r), r, err)
		}
		return
	}
	pr := &prRead{c: inst.REST, repo: repo}
	var ready []member
	for i, r := range group {
		m := member{ctx: d.runContext(ctx, r), r: r}
		check, ok, err := d.prepare(m.ctx, r, pr)
		if _, wait := gh.WaitFor(err, time.Now()); wait {
			// GitHub (or the pacing of its limits) asks to wait: the runs
			// not prepared yet would meet the same wait, so they wait too.
			// Those ready go on.
			for _, rest := range group[i:] {
				d.settle(d.runContext(ctx, rest), rest, err)
			}
			break
		}
		if err != nil {
			d.settle(m.ctx, r, err)
			continue
		}
		if ok {
			m.check = check
			ready = append(ready, m)
		}
	}
	if len(ready) > 0 {
		d.start(ctx, ready)
	}
}

// prRead reads a pull request at most once for all the runs of a dispatch.
type prRead struct {
	c    *github.Client
	repo *ent.Repository
	pr   *github.PullRequest
	err  error
	done bool
}

func (p *prRead) get(ctx context.Context, number int) (*github.PullRequest, error) {
	if !p.done {
		p.pr, _, p.err = p.c.PullRequests.Get(ctx, p.repo.Owner, p.repo.Name, number)
		p.done = true
	}
	return p.pr, p.err
}

// prepare opens run r's check run and checks r may start (its model, the
// spend budgets, its PR still at its commit); ok is false when r was
// cancelled because its PR moved.
func (d *Dispatcher) prepare(ctx context.Context, r *ent.Run, pr *prRead) (check ghwrite.Check, ok bool, err error) {
	repo, rv := r.Edges.Repository, r.Edges.Reviewer
	// A shadow run (a backtest) reviews a commit of a PR reviewed before,
	// on purpose: the PR may have moved on, merged or closed since. It opens
	// no check run on the PR; the workflow_dispatch run it starts is on the
	// default branch's head, not the PR's (GitHub lists no pull request for
	// it), so nothing of it shows on the PR either.
	check, started := ghwrite.CheckOf(r), false
	held := heldLine(r, repo.Edges.Installation)
	if ghwrite.WritesOnPR(ctx) {
		if check, started, err = d.ensureCheck(ctx, r, held); err != nil {
			return check, false, fmt.Errorf("create check run: %w", err)
		}
	}
	if err := d.checkModel(r, rv); err != nil {
		return check, false, err
	}
	if err := d.checkBudget(ctx, repo.Edges.Installation, repo); err != nil {
		return check, false, err
	}
	// A shadow run reviews a commit the PR has left, on purpose. A run on
	// its first attempt, queued moments ago from an event that read the PR,
	// is not read again: a push since then cancels it by its own webhook
	// (runstate.CancelSuperseded), and the job reads the PR before reviewing.
	if !r.Shadow && waited(r, time.Now()) {
		if moved, err := d.moved(ctx, pr, r); moved || err != nil {
			return check, false, err
		}
	}
	if !started && ghwrite.WritesOnPR(ctx) {
		if err := d.cfg.Write.StartCheck(ctx, check, withLine(startText(d.portalURL(r.ID)), held)); err != nil {
			return check, false, err
		}
	}
	return check, true, nil
}

// start makes one workflow dispatch for the runs of ready and records the
// Actions run on each. A workflow file older than run_ids refuses it: each
// run then gets an Actions run of its own.
func (d *Dispatcher) start(ctx context.Context, ready []member) {
	lead := ready[0]
	repo := lead.r.Edges.Repository
	ref := repo.DefaultBranch
	rs := make([]*ent.Run, len(ready))
	for i, m := range ready {
		rs[i] = m.r
	}
	details, err := d.cfg.Write.Dispatch(lead.ctx, lead.check.Repo, WorkflowFile, ref, DispatchInputs(rs...))
	if err != nil && len(ready) > 1 && refusesRunIDs(err) {
		logging.From(lead.ctx).Info("dispatch: the workflow file has no run_ids input (an older template); one Actions run per reviewer", "runs", len(ready))
		d.rememberOneRunEach(repo.ID, time.Now())
		for _, m := range ready {
			d.start(ctx, []member{m})
		}
		return
	}
	if err != nil {
		err = dispatchFault(err, ref)
		for _, m := range ready {
			d.settle(m.ctx, m.r, err)
		}
		return
	}
	var actionsID int64
	var actionsURL string
	if details != nil {
		actionsID, actionsURL = details.GetWorkflowRunID(), details.GetHTMLURL()
	}
	msg := "Started the review workflow in GitHub Actions."
	if len(ready) > 1 {
		msg = fmt.Sprintf("Started the review workflow in GitHub Actions, shared with %d other reviewers of this commit.", len(ready)-1)
	}
	for _, m := range ready {
		err := runstate.Transition(m.ctx, d.cfg.DB.Client, m.r.ID, runstate.Change{
			From: []run.Status{run.StatusQueued}, To: run.StatusDispatched, Message: msg,
			Set: func(u *ent.RunUpdate) {
				u.SetActionsRunID(actionsID).SetActionsRunURL(actionsURL).SetLeaseOwner("")
			},
		})
		if errors.Is(err, runstate.ErrConflict) {
			// It moved on meanwhile: cancelled by a push, or taken over by
			// another worker while this one was silent (its own dispatch
			// stands; the Actions run started here is refused at job fetch).
			logging.From(m.ctx).Warn("dispatch: the run moved on meanwhile; its Actions run is not recorded", "actions_run_id", actionsID)
			continue
		}
		if err != nil {
			d.settle(m.ctx, m.r, err)
			continue
		}
		logging.From(m.ctx).Info("run dispatched", "actions_run_id", actionsID, "shared", len(ready))
	}
	// The check run's Details link stays on the run's portal page, which
	// links the Actions run: pointing it at the Actions run would be one
	// more GitHub call per review (docs/architecture.md).
}

// dispatchFault is the refusal of a workflow dispatch as a fault naming the
// fix; a rate limit is returned as is (the run waits and goes on).
func dispatchFault(err error, ref string) error {
	if _, wait := gh.WaitFor(err, time.Now()); wait {
		return err
	}
	switch ghwrite.StatusOf(err) {
	case http.StatusNotFound:
		return fault.New(fault.NotFound, fmt.Sprintf("This repository has no Chakshu workflow on its default branch (%s). Add `.github/workflows/%s` from Chakshu's workflow template (`chakshu workflow print`, or action/workflow/chakshu.yml in Chakshu's repository) and ask again.", ref, WorkflowFile), err)
	case http.StatusForbidden:
		return fault.New(fault.Forbidden, "The Chakshu app may not start workflows in this repository. Grant the app the \"Actions: Read and write\" repository permission, accept it on the installation, and ask again.", err)
	case http.StatusUnprocessableEntity:
		return fault.New(fault.Invalid, fmt.Sprintf("GitHub refused to start `.github/workflows/%s`: it must have a `workflow_dispatch` trigger with the inputs run_id, pr_number and head_sha. Update it from Chakshu's workflow template and ask again.", WorkflowFile), err)
	}
	return fault.New(fault.Unavailable, "GitHub did not start the review workflow after 3 attempts. Ask again later.", err)
}

// refusesRunIDs is GitHub's 422 to a run_ids input the workflow file does
// not declare ("Unexpected inputs provided: [\"run_ids\"]", internal/ghsim/API.md).
func refusesRunIDs(err error) bool {
	return ghwrite.StatusOf(err) == http.StatusUnprocessableEntity && strings.Contains(err.Error(), "run_ids")
}

// DispatchInputs are the workflow_dispatch inputs that start runs rs (of one
// pull request and commit; rs[0] leads): exactly inputs the workflow
// template declares (GitHub refuses any other with 422 "Unexpected inputs
// provided"). run_ids, the ids of all of them, is sent only when there are
// several, so an older workflow file without it still starts a single run.
func DispatchInputs(rs ...*ent.Run) map[string]any {
	in := map[string]any{
		"run_id":    strconv.Itoa(rs[0].ID),
		"pr_number": strconv.Itoa(rs[0].PrNumber),
		"head_sha":  rs[0].HeadSha,
	}
	if len(rs) > 1 {
		ids := make([]string, len(rs))
		for i, r := range rs {
			ids[i] = strconv.Itoa(r.ID)
		}
		in["run_ids"] = strings.Join(ids, ",")
	}
	return in
}

// freshFor is how long after it was queued a run on its first attempt is
// dispatched without reading its PR again.
const freshFor = 30 * time.Second

// waited says run r may have waited long enough for its PR to move unseen:
// an earlier attempt was held back, put back or taken over, or the run
// queued longer than freshFor.
func waited(r *ent.Run, now time.Time) bool {
	return r.Attempts > 1 || now.Sub(r.CreatedAt) > freshFor
}

// moved cancels a run whose PR moved on or closed before its review started,
// and says so.
func (d *Dispatcher) moved(ctx context.Context, read *prRead, r *ent.Run) (bool, error) {
	log := logging.From(ctx)
	pr, err := read.get(ctx, r.PrNumber)
	if err != nil {
		return false, fmt.Errorf("get pull request: %w", err)
	}
	if pr.GetState() == "open" && pr.GetHead().GetSHA() == r.HeadSha {
		return false, nil
	}
	err = runstate.CancelMoved(ctx, d.cfg.DB.Client, r.ID, run.StatusQueued, r.HeadSha, pr.GetHead().GetSHA(), pr.GetState() != "open", d.cfg.AppSlug)
	if err != nil && !errors.Is(err, runstate.ErrConflict) {
		return true, err
	}
	d.cfg.Bus.Notify(ctx, wakeup.TopicFinish) //nolint:errcheck
	log.Info("run cancelled: pull request moved", "head", pr.GetHead().GetSHA())
	return true, nil
}

// startText is the check's text from its opening to its completion: the
// check is not updated when the workflow starts (one call fewer), so the
// text says where to follow the review.
func startText(portalURL string) ghwrite.Text {
	return ghwrite.Text{Title: "Reviewing", Summary: fmt.Sprintf("Chakshu is reviewing this pull request in GitHub Actions. Follow it in the [Chakshu portal](%s).", portalURL)}
}

// HeldText is the line a review's check run carries when Chakshu's pacing
// of its installation's content-creating writes held the review back before
// it started: the check run opens only once the review starts, so the wait
// is said then, with the time it ended.
func HeldText(until time.Time) string {
	return fmt.Sprintf("This review waited until %s UTC for GitHub's content limits: Chakshu paces this organisation's writes to GitHub to stay within them.", until.UTC().Format("15:04:05"))
}

// heldLine is HeldText for run r when its installation's new reviews were
// held (queue.HoldStarts) after r was asked for, and "" otherwise.
func heldLine(r *ent.Run, inst *ent.Installation) string {
	if inst == nil || inst.StartsHeldUntil == nil || !inst.StartsHeldUntil.After(r.CreatedAt) {
		return ""
	}
	return HeldText(*inst.StartsHeldUntil)
}

// withLine adds line ("" for none) to t's summary as its own paragraph.
func withLine(t ghwrite.Text, line string) ghwrite.Text {
	if line != "" {
		t.Summary += "\n\n" + line
	}
	return t
}

// ensureCheck returns the run's check run, opening it (in progress, with the
// line held, if any) once;
// started says it was opened now. The port finds one a crash left
// unrecorded by its external id; that one, like one already recorded, is
// started by the caller.
func (d *Dispatcher) ensureCheck(ctx context.Context, r *ent.Run, held string) (ghwrite.Check, bool, error) {
	c := ghwrite.CheckOf(r)
	if c.ID != 0 {
		return c, false, nil
	}
	// The claim counted this attempt: on the first, no crash or failed
	// create of an earlier one can have left a check run to find.
	c.FirstTry = r.Attempts <= 1
	id, created, err := d.cfg.Write.OpenCheck(ctx, c, d.portalURL(r.ID), withLine(startText(d.portalURL(r.ID)), held))
	if err != nil {
		return c, false, err
	}
	if err := d.cfg.DB.Run.UpdateOneID(r.ID).SetCheckRunID(id).Exec(ctx); err != nil {
		return c, false, err
	}
	c.ID = id
	return c, created, nil
}
