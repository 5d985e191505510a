package events

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/textcut"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// workflowPath is the review workflow Chakshu dispatches.
const workflowPath = ".github/workflows/chakshu.yml"

// runNameRE finds the run ids in the workflow's run-name ("Chakshu run 42 (PR #7)",
// or "Chakshu run 42,43,44 (PR #7)" for reviewers sharing the run), for a
// GitHub that did not return the Actions run id at dispatch.
var runNameRE = regexp.MustCompile(`\bChakshu run ([0-9]{1,18}(?:,[0-9]{1,18}){0,24})\b`)

// workflowRun fails the runs whose Actions run ended without reporting a result.
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

// workflowCompleted fails each run of the ended Actions run that has no
// result yet; runs of it that reported (publishing or done) are left alone:
// several reviewers may share one Actions run (DESIGN §2.3).
func (h *handler) workflowCompleted(ctx context.Context, e *workflowRunEvent) error {
	wr := &e.WorkflowRun
	if p := wr.Path; p != "" && !strings.HasPrefix(p, workflowPath) {
		return nil // another workflow of the repository
	}
	if e.Repository == nil {
		return nil
	}
	rs, err := h.runsOfWorkflow(ctx, e.Repository.ID, wr.ID, wr.DisplayTitle, wr.TriggeringActor.Login)
	if err != nil {
		return err
	}
	var early error
	failed := 0
	for _, r := range rs {
		if r.Status == run.StatusQueued && r.ActionsRunID == 0 {
			// The Actions run ended before the dispatcher recorded starting it
			// (a runner that fails at once): retried, by when the run is
			// dispatched and can be failed; dropped here, it would wait for the
			// 45-minute sweep.
			early = fmt.Errorf("run %d: Actions run %d ended before its dispatch was recorded", r.ID, wr.ID)
			continue
		}
		ok, err := h.failEnded(ctx, r, wr)
		if err != nil {
			return err
		}
		if ok {
			failed++
		}
	}
	if failed > 0 && h.cfg.Bus != nil {
		h.cfg.Bus.Notify(ctx, wakeup.TopicFinish) //nolint:errcheck // the finisher also polls; it completes the check run once
	}
	return early
}

// failEnded fails run r, whose Actions run wr ended, unless it reported (or
// was settled) first.
func (h *handler) failEnded(ctx context.Context, r *ent.Run, wr *workflowRunPayload) (bool, error) {
	ctx = logging.Add(ctx, "run_id", r.ID, "pr", r.PrNumber)
	conclusion := wr.Conclusion
	reason := actionsEndReason(conclusion)
	err := runstate.Transition(ctx, h.cfg.DB.Client, r.ID, runstate.Change{
		From: []run.Status{run.StatusDispatched, run.StatusRunning}, To: run.StatusFailed,
		Message: reason, Detail: fmt.Sprintf("workflow_run %d completed with conclusion %q", wr.ID, conclusion),
		Set: func(u *ent.RunUpdate) {
			u.SetFailureReason(reason).SetFailureDetail(fmt.Sprintf("Actions conclusion: %s", textcut.Bytes(conclusion, 50)))
			if r.ActionsRunID == 0 {
				u.SetActionsRunID(wr.ID).SetActionsRunURL(wr.HTMLURL)
			}
		},
	})
	if errors.Is(err, runstate.ErrConflict) {
		return false, nil // it reported (or was settled) first
	}
	if err != nil {
		return false, err
	}
	logging.From(ctx).Info("run failed: the Actions run ended without a result", "conclusion", conclusion)
	return true, nil
}

// runsOfWorkflow finds the runs an Actions run belongs to, in the same
// repository: the runs that recorded it, and (a dispatch that could not
// return the run's id) the runs its run-name names, if the App dispatched it
// (actor): someone dispatching the workflow by hand with run_id=N names run
// N too, and must not end it.
func (h *handler) runsOfWorkflow(ctx context.Context, repoGithubID, actionsRunID int64, title, actor string) ([]*ent.Run, error) {
	inRepo := run.HasRepositoryWith(repository.GithubID(repoGithubID))
	rs, err := h.cfg.DB.Run.Query().Where(run.ActionsRunID(actionsRunID), inRepo).Order(ent.Asc(run.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	m := runNameRE.FindStringSubmatch(title)
	if m == nil || !strings.EqualFold(actor, h.cfg.AppSlug+"[bot]") {
		return rs, nil
	}
	var named []int
	for _, p := range strings.Split(m[1], ",") {
		id, _ := strconv.Atoi(p)
		if !slices.ContainsFunc(rs, func(r *ent.Run) bool { return r.ID == id }) {
			named = append(named, id)
		}
	}
	if len(named) == 0 {
		return rs, nil
	}
	more, err := h.cfg.DB.Run.Query().Where(run.IDIn(named...), inRepo, run.ActionsRunIDIn(0, actionsRunID)).Order(ent.Asc(run.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	return append(rs, more...), nil
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
		return fmt.Sprintf("The Actions run ended (%s) without sending a result.", textcut.Bytes(safeMarker(conclusion), 40))
	}
}
