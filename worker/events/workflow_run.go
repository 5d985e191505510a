package events

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// workflowPath is the review workflow Chakshu dispatches.
const workflowPath = ".github/workflows/chakshu.yml"

// runNameRE finds the run id in the workflow's run-name ("Chakshu run 42 (PR #7)"),
// for a GitHub that did not return the Actions run id at dispatch.
var runNameRE = regexp.MustCompile(`\bChakshu run ([0-9]{1,18})\b`)

// workflowRun fails the run whose Actions run ended without reporting a result.
func (h *handler) workflowRun(ctx context.Context) error {
	var e workflowRunEvent
	if err := h.decode(&e); err != nil {
		return err
	}
	switch e.Action {
	case "completed":
		return h.workflowCompleted(ctx, &e)
	default:
		return nil
	}
}

func (h *handler) workflowCompleted(ctx context.Context, e *workflowRunEvent) error {
	wr := &e.WorkflowRun
	if p := wr.Path; p != "" && !strings.HasPrefix(p, workflowPath) {
		return nil // another workflow of the repository
	}
	if e.Repository == nil {
		return nil
	}
	r, err := h.runOfWorkflow(ctx, e.Repository.ID, wr.ID, wr.DisplayTitle, wr.TriggeringActor.Login)
	if err != nil || r == nil {
		return err
	}
	if r.Status == run.StatusQueued && r.ActionsRunID == 0 {
		// The Actions run ended before the dispatcher recorded starting it
		// (a runner that fails at once): retried, by when the run is
		// dispatched and can be failed; dropped here, it would wait for the
		// 45-minute sweep.
		return fmt.Errorf("run %d: Actions run %d ended before its dispatch was recorded", r.ID, wr.ID)
	}
	ctx = logging.Add(ctx, "run_id", r.ID, "pr", r.PrNumber)
	conclusion := wr.Conclusion
	reason := actionsEndReason(conclusion)
	err = runstate.Transition(ctx, h.cfg.DB.Client, r.ID, runstate.Change{
		From: []run.Status{run.StatusDispatched, run.StatusRunning}, To: run.StatusFailed,
		Message: reason, Detail: fmt.Sprintf("workflow_run %d completed with conclusion %q", wr.ID, conclusion),
		Set: func(u *ent.RunUpdate) {
			u.SetFailureReason(reason).SetFailureDetail(fmt.Sprintf("Actions conclusion: %s", clip(conclusion, 50)))
			if r.ActionsRunID == 0 {
				u.SetActionsRunID(wr.ID).SetActionsRunURL(wr.HTMLURL)
			}
		},
	})
	if errors.Is(err, runstate.ErrConflict) {
		return nil // it reported (or was settled) first
	}
	if err != nil {
		return err
	}
	logging.From(ctx).Info("run failed: the Actions run ended without a result", "conclusion", conclusion)
	if h.cfg.Bus != nil {
		h.cfg.Bus.Notify(ctx, wakeup.TopicFinish) //nolint:errcheck // the finisher also polls; it completes the check run once
	}
	return nil
}

// runOfWorkflow finds the run an Actions run belongs to, in the same
// repository: the run that recorded it, else (a dispatch that could not
// return the run's id) the run its run-name names, if the App dispatched it
// (actor): someone dispatching the workflow by hand with run_id=N names run
// N too, and must not end it.
func (h *handler) runOfWorkflow(ctx context.Context, repoGithubID, actionsRunID int64, title, actor string) (*ent.Run, error) {
	inRepo := run.HasRepositoryWith(repository.GithubID(repoGithubID))
	r, err := h.cfg.DB.Run.Query().Where(run.ActionsRunID(actionsRunID), inRepo).First(ctx)
	if err == nil || !ent.IsNotFound(err) {
		return r, err
	}
	m := runNameRE.FindStringSubmatch(title)
	if m == nil || !strings.EqualFold(actor, h.cfg.AppSlug+"[bot]") {
		return nil, nil
	}
	id, _ := strconv.Atoi(m[1])
	r, err = h.cfg.DB.Run.Query().Where(run.ID(id), inRepo, run.ActionsRunIDIn(0, actionsRunID)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return r, err
}

// actionsEndReason is the safe sentence for an Actions run that ended without a result.
func actionsEndReason(conclusion string) string {
	switch conclusion {
	case "success":
		return "The Actions run finished without sending a result."
	case "cancelled":
		return "The Actions run was cancelled before it sent a result."
	case "timed_out":
		return "The Actions run timed out before it sent a result."
	case "failure":
		return "The Actions run failed without sending a result; its log says why."
	case "startup_failure":
		return "The Actions run could not start; check the workflow file on the default branch."
	case "action_required":
		return "The Actions run is waiting for approval, so the review could not run."
	case "":
		return "The Actions run ended without sending a result."
	default:
		return fmt.Sprintf("The Actions run ended (%s) without sending a result.", clip(safeMarker(conclusion), 40))
	}
}
