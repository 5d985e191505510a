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

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/notify"
	"github.com/chakshu-dev/chakshu/internal/reviewers"
	"github.com/chakshu-dev/chakshu/internal/runs"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// WorkflowFile is the workflow Chakshu starts in each repository.
const WorkflowFile = "chakshu.yml"

// GitHub gives the installation clients the worker acts with.
type GitHub interface {
	Installation(id int64) (*gh.Installation, error)
}

var _ GitHub = (*gh.Apps)(nil)

// DispatchConfig builds a Dispatcher.
type DispatchConfig struct {
	DB       *store.DB
	Log      *slog.Logger
	Bus      notify.Bus
	GitHub   GitHub
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
	return &Dispatcher{cfg: cfg}, nil
}

// Name implements Loop.
func (d *Dispatcher) Name() string { return "dispatch" }

// Run implements Loop.
func (d *Dispatcher) Run(ctx context.Context) error {
	wake, stop := d.cfg.Bus.Subscribe(notify.TopicRuns)
	defer stop()
	for {
		for ctx.Err() == nil {
			id, err := ClaimRun(ctx, d.cfg.DB, d.cfg.WorkerID, string(run.StatusQueued), time.Now())
			if err != nil {
				d.cfg.Log.Warn("dispatch: claim", "err", err)
				break
			}
			if id == 0 {
				break
			}
			d.Dispatch(ctx, id)
		}
		if !Wait(ctx, wake, d.cfg.PollInterval) {
			return nil
		}
	}
}

// Dispatch handles one claimed run to its next state.
func (d *Dispatcher) Dispatch(ctx context.Context, id int) {
	log := d.cfg.Log.With("run_id", id)
	r, err := d.cfg.DB.Run.Query().Where(run.ID(id)).
		WithRepository(func(q *ent.RepositoryQuery) { q.WithInstallation() }).WithReviewer().Only(ctx)
	if err != nil {
		log.Error("dispatch: load run", "err", err)
		Release(ctx, d.cfg.DB, id, d.cfg.WorkerID, 5*time.Second) //nolint:errcheck
		return
	}
	repo, rv := r.Edges.Repository, r.Edges.Reviewer
	log = log.With("repo", repo.FullName, "pr", r.PrNumber, "reviewer", rv.Name)
	if err := d.dispatch(ctx, log, r, repo, rv); err != nil {
		var df *dispatchFailure
		if !errors.As(err, &df) {
			df = &dispatchFailure{reason: "Chakshu could not start the review: GitHub did not answer as expected. Ask again later.", detail: err.Error()}
		}
		log.Warn("dispatch failed", "reason", df.reason, "err", df.detail)
		if ferr := runs.Fail(ctx, d.cfg.DB.Client, id, df.reason, df.detail); ferr != nil && !errors.Is(ferr, runs.ErrConflict) {
			log.Error("dispatch: fail run", "err", ferr)
		}
		d.cfg.Bus.Notify(ctx, notify.TopicFinish) //nolint:errcheck
	}
}

// checkModel fails a run whose model cannot be used now (unknown, retired)
// before any workflow starts: the check run names the fix.
func (d *Dispatcher) checkModel(r *ent.Run, rv *ent.Reviewer) error {
	model := r.Model
	if model == "" {
		cfg, err := reviewers.FromEnt(rv)
		if err != nil {
			return nil // the job fetch reports a broken config
		}
		model = cfg.Model
	}
	if err := reviewers.CheckModel(d.cfg.Models, model, time.Now()); err != nil {
		return &dispatchFailure{
			reason: fmt.Sprintf("The reviewer %s cannot run: its %s. Set `model:` in reviewers/%s/reviewer.yaml of the reviewers repository to an active model and ask again.", rv.Name, err, rv.Name),
			detail: err.Error(),
		}
	}
	return nil
}

type dispatchFailure struct{ reason, detail string }

func (f *dispatchFailure) Error() string { return f.reason + ": " + f.detail }

// CheckName is the check run's name for a run.
func CheckName(reviewer string, kind run.Kind) string {
	if kind == run.KindReply {
		return "Chakshu · " + reviewer + " · reply"
	}
	return "Chakshu · " + reviewer
}

func (d *Dispatcher) portalURL(id int) string {
	return fmt.Sprintf("%s/runs/%d", strings.TrimRight(d.cfg.PublicURL, "/"), id)
}

func (d *Dispatcher) dispatch(ctx context.Context, log *slog.Logger, r *ent.Run, repo *ent.Repository, rv *ent.Reviewer) error {
	inst, err := d.cfg.GitHub.Installation(repo.Edges.Installation.GithubID)
	if err != nil {
		return err
	}
	c := inst.REST
	owner, name := repo.Owner, repo.Name

	checkID, err := d.ensureCheck(ctx, c, r, owner, name, rv.Name)
	if err != nil {
		return fmt.Errorf("create check run: %w", err)
	}
	if err := d.checkModel(r, rv); err != nil {
		return err
	}

	pr, _, err := c.PullRequests.Get(ctx, owner, name, r.PrNumber)
	if err != nil {
		return fmt.Errorf("get pull request: %w", err)
	}
	short := func(s string) string {
		if len(s) > 7 {
			return s[:7]
		}
		return s
	}
	if pr.GetState() != "open" || pr.GetHead().GetSHA() != r.HeadSha {
		reason := fmt.Sprintf("The pull request moved to %s before the review started, so this review of %s was cancelled. Comment `@%s review` to review the new commit.",
			short(pr.GetHead().GetSHA()), short(r.HeadSha), d.cfg.AppSlug)
		if pr.GetState() != "open" {
			reason = "The pull request was closed before the review started, so the review was cancelled."
		}
		err := runs.Transition(ctx, d.cfg.DB.Client, r.ID, runs.Change{
			From: []run.Status{run.StatusQueued}, To: run.StatusCancelled, Message: reason,
			Set: func(u *ent.RunUpdate) { u.SetFailureReason(reason) },
		})
		if err != nil && !errors.Is(err, runs.ErrConflict) {
			return err
		}
		d.cfg.Bus.Notify(ctx, notify.TopicFinish) //nolint:errcheck
		log.Info("run cancelled: pull request moved", "head", pr.GetHead().GetSHA())
		return nil
	}

	inProgress := "in_progress"
	if _, _, err := c.Checks.UpdateCheckRun(ctx, owner, name, checkID, github.UpdateCheckRunOptions{
		Name: CheckName(rv.Name, r.Kind), Status: &inProgress,
		Output: &github.CheckRunOutput{Title: github.Ptr("Starting the review"), Summary: github.Ptr("Chakshu is starting a GitHub Actions run for this review.")},
	}); err != nil {
		return fmt.Errorf("update check run: %w", err)
	}

	ref := repo.DefaultBranch
	details, resp, err := c.Actions.CreateWorkflowDispatchEventByFileName(ctx, owner, name, WorkflowFile, github.CreateWorkflowDispatchEventRequest{
		Ref: ref,
		Inputs: map[string]any{
			"run_id":    strconv.Itoa(r.ID),
			"pr_number": strconv.Itoa(r.PrNumber),
			"head_sha":  r.HeadSha,
		},
		ReturnRunDetails: github.Ptr(true),
	})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		switch status {
		case http.StatusNotFound:
			return &dispatchFailure{
				reason: fmt.Sprintf("This repository has no Chakshu workflow on its default branch (%s). Add `.github/workflows/%s` from Chakshu's workflow template (`chakshu workflow print`, or action/workflow/chakshu.yml in Chakshu's repository) and ask again.", ref, WorkflowFile),
				detail: err.Error(),
			}
		case http.StatusForbidden:
			return &dispatchFailure{
				reason: "The Chakshu app may not start workflows in this repository. Grant the app the \"Actions: Read and write\" repository permission, accept it on the installation, and ask again.",
				detail: err.Error(),
			}
		case http.StatusUnprocessableEntity:
			return &dispatchFailure{
				reason: fmt.Sprintf("GitHub refused to start `.github/workflows/%s`: it must have a `workflow_dispatch` trigger with the inputs run_id, pr_number and head_sha. Update it from Chakshu's workflow template and ask again.", WorkflowFile),
				detail: err.Error(),
			}
		}
		return &dispatchFailure{
			reason: "GitHub did not start the review workflow after 3 attempts. Ask again later.",
			detail: err.Error(),
		}
	}

	var actionsID int64
	var actionsURL string
	if details != nil {
		actionsID, actionsURL = details.GetWorkflowRunID(), details.GetHTMLURL()
	}
	err = runs.Transition(ctx, d.cfg.DB.Client, r.ID, runs.Change{
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
	if actionsURL != "" {
		if _, _, err := c.Checks.UpdateCheckRun(ctx, owner, name, checkID, github.UpdateCheckRunOptions{
			Name: CheckName(rv.Name, r.Kind), DetailsURL: &actionsURL,
			Output: &github.CheckRunOutput{Title: github.Ptr("Reviewing"), Summary: github.Ptr(fmt.Sprintf("The review is running in [GitHub Actions](%s). Follow it in the [Chakshu portal](%s).", actionsURL, d.portalURL(r.ID)))},
		}); err != nil {
			log.Warn("dispatch: point check run at the Actions run", "err", err) // not worth failing the run
		}
	}
	return nil
}

// ensureCheck returns the run's check run, creating it once. A crash between
// creating and recording it is covered by looking the check up by its
// external id before creating another.
func (d *Dispatcher) ensureCheck(ctx context.Context, c *github.Client, r *ent.Run, owner, name, reviewer string) (int64, error) {
	if r.CheckRunID != 0 {
		return r.CheckRunID, nil
	}
	ext := strconv.Itoa(r.ID)
	checkName := CheckName(reviewer, r.Kind)
	list, _, err := c.Checks.ListCheckRunsForRef(ctx, owner, name, r.HeadSha, &github.ListCheckRunsOptions{CheckName: &checkName, ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		return 0, err
	}
	var id int64
	for _, cr := range list.CheckRuns {
		if cr.GetExternalID() == ext {
			id = cr.GetID()
		}
	}
	if id == 0 {
		cr, _, err := c.Checks.CreateCheckRun(ctx, owner, name, github.CreateCheckRunOptions{
			Name: checkName, HeadSHA: r.HeadSha, ExternalID: &ext, Status: github.Ptr("queued"),
			DetailsURL: github.Ptr(d.portalURL(r.ID)),
			Output:     &github.CheckRunOutput{Title: github.Ptr("Queued"), Summary: github.Ptr("Chakshu queued this review.")},
		})
		if err != nil {
			return 0, err
		}
		id = cr.GetID()
	}
	if err := d.cfg.DB.Run.UpdateOneID(r.ID).SetCheckRunID(id).Exec(ctx); err != nil {
		return 0, err
	}
	return id, nil
}
