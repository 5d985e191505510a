package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/fault"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/models"
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
type Dispatcher struct{ cfg DispatchConfig }

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
	return &Dispatcher{cfg: cfg}, nil
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

// Dispatch handles one claimed run to its next state.
func (d *Dispatcher) Dispatch(ctx context.Context, id int) {
	log := d.cfg.Log.With(logging.KeyRun, id)
	r, err := d.cfg.DB.Run.Query().Where(run.ID(id)).
		WithRepository(func(q *ent.RepositoryQuery) { q.WithInstallation() }).WithReviewer().Only(ctx)
	if err != nil {
		log.Error("dispatch: load run", "err", err)
		queue.Release(ctx, d.cfg.DB, queue.QueuedRuns, id, d.cfg.WorkerID, time.Now().Add(5*time.Second)) //nolint:errcheck
		return
	}
	repo, rv := r.Edges.Repository, r.Edges.Reviewer
	log = log.With("repo", repo.FullName, "pr", r.PrNumber, "reviewer", rv.Name)
	ctx = ghwrite.ForRun(ctx, r) // a backtest's replay: the port refuses any write on the PR
	if r.Shadow {
		log = log.With("shadow", true, "backtest_id", r.BacktestID)
	}
	ctx = logging.With(ctx, log)
	if d.holdForCap(ctx, r, repo.Edges.Installation.ID) {
		return
	}
	if err := d.dispatch(ctx, r, repo, rv); err != nil {
		if until, ok := gh.WaitFor(err, time.Now()); ok {
			if gh.Paced(err) {
				// Every new run of the installation would meet the same
				// budget: claims go to other installations meanwhile.
				if herr := queue.HoldStarts(ctx, d.cfg.DB, repo.Edges.Installation.ID, until); herr != nil {
					log.Warn("dispatch: hold the installation's starts", "err", herr)
				}
			}
			d.waitForGitHub(ctx, id, until, err)
			return
		}
		reason, detail := "Chakshu could not start the review: GitHub did not answer as expected. Ask again later.", err.Error()
		if fe, ok := fault.As(err); ok && fe.Err != nil {
			reason, detail = fe.Public, fe.Err.Error() // the check run's text is the kind's safe sentence
		}
		log.Warn("dispatch failed", "reason", reason, "err", detail)
		if ferr := runstate.Fail(ctx, d.cfg.DB.Client, id, reason, detail); ferr != nil && !errors.Is(ferr, runstate.ErrConflict) {
			log.Error("dispatch: fail run", "err", ferr)
		}
		d.cfg.Bus.Notify(ctx, wakeup.TopicFinish) //nolint:errcheck
	}
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
		cfg, err := reviewerconfig.FromEnt(used)
		if err != nil {
			return nil // the job fetch reports a broken config
		}
		model = cfg.Model
	}
	if err := reviewerconfig.CheckModel(d.cfg.Models, model, time.Now()); err != nil {
		return fault.New(fault.Invalid, fmt.Sprintf("The reviewer %s cannot run: its %s. Set `model:` in reviewers/%s/reviewer.yaml of the reviewers repository to an active model and ask again.", rv.Name, err, rv.Name), err)
	}
	return nil
}

// CheckName is the check run's name for a run.
func CheckName(reviewer string, kind run.Kind) string {
	return ghwrite.CheckName(reviewer, kind == run.KindReply)
}

func (d *Dispatcher) portalURL(id int) string {
	return fmt.Sprintf("%s/runs/%d", strings.TrimRight(d.cfg.PublicURL, "/"), id)
}

func (d *Dispatcher) dispatch(ctx context.Context, r *ent.Run, repo *ent.Repository, rv *ent.Reviewer) error {
	log := logging.From(ctx)
	inst, err := d.cfg.GitHub.Installation(repo.Edges.Installation.GithubID)
	if err != nil {
		return err
	}
	c := inst.REST

	// A shadow run (a backtest) reviews a commit of a PR reviewed before,
	// on purpose: the PR may have moved on, merged or closed since. It opens
	// no check run on the PR; the workflow_dispatch run it starts is on the
	// default branch's head, not the PR's (GitHub lists no pull request for
	// it), so nothing of it shows on the PR either.
	check, started := ghwrite.CheckOf(r), false
	held := heldLine(r, repo.Edges.Installation)
	if ghwrite.WritesOnPR(ctx) {
		if check, started, err = d.ensureCheck(ctx, r, held); err != nil {
			return fmt.Errorf("create check run: %w", err)
		}
	}
	if err := d.checkModel(r, rv); err != nil {
		return err
	}
	if err := d.checkBudget(ctx, repo.Edges.Installation, repo); err != nil {
		return err
	}
	// A shadow run reviews a commit the PR has left, on purpose. A run on
	// its first attempt, queued moments ago from an event that read the PR,
	// is not read again: a push since then cancels it by its own webhook
	// (runstate.CancelSuperseded), and the job reads the PR before reviewing.
	if !r.Shadow && waited(r, time.Now()) {
		if moved, err := d.moved(ctx, c, r, repo); moved || err != nil {
			return err
		}
	}
	if !started && ghwrite.WritesOnPR(ctx) {
		if err := d.cfg.Write.StartCheck(ctx, check, withLine(startText(d.portalURL(r.ID)), held)); err != nil {
			return err
		}
	}

	ref := repo.DefaultBranch
	details, err := d.cfg.Write.Dispatch(ctx, check.Repo, WorkflowFile, ref, DispatchInputs(r))
	if err != nil {
		if _, wait := gh.WaitFor(err, time.Now()); wait {
			return err // a rate limit, not a refusal: Dispatch puts the run back
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

	var actionsID int64
	var actionsURL string
	if details != nil {
		actionsID, actionsURL = details.GetWorkflowRunID(), details.GetHTMLURL()
	}
	err = runstate.Transition(ctx, d.cfg.DB.Client, r.ID, runstate.Change{
		From: []run.Status{run.StatusQueued}, To: run.StatusDispatched,
		Message: "Started the review workflow in GitHub Actions.",
		Set: func(u *ent.RunUpdate) {
			u.SetActionsRunID(actionsID).SetActionsRunURL(actionsURL).SetLeaseOwner("")
		},
	})
	if err != nil {
		return err
	}
	log.Info("run dispatched", "actions_run_id", actionsID)
	// The check run's Details link stays on the run's portal page, which
	// links the Actions run: pointing it at the Actions run would be one
	// more GitHub call per review (docs/architecture.md).
	return nil
}

// DispatchInputs are the workflow_dispatch inputs that start run r: exactly
// those the workflow template declares (GitHub refuses any other with 422
// "Unexpected inputs provided").
func DispatchInputs(r *ent.Run) map[string]any {
	return map[string]any{
		"run_id":    strconv.Itoa(r.ID),
		"pr_number": strconv.Itoa(r.PrNumber),
		"head_sha":  r.HeadSha,
	}
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
func (d *Dispatcher) moved(ctx context.Context, c *github.Client, r *ent.Run, repo *ent.Repository) (bool, error) {
	log := logging.From(ctx)
	pr, _, err := c.PullRequests.Get(ctx, repo.Owner, repo.Name, r.PrNumber)
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
