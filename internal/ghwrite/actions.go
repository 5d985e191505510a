package ghwrite

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/internal/logging"
)

// Dispatch starts workflow file on ref with inputs, asking GitHub to return
// the run it started. The answer's status (for naming the fix of a 404, 403
// or 422) is in the error, see StatusOf. The transport resends it after a
// 5xx: a duplicate Actions run that may start is refused at job fetch, which
// takes only the stored Actions run id.
func (p *Port) Dispatch(ctx context.Context, r Repo, file, ref string, inputs map[string]any) (*github.WorkflowDispatchRunDetails, error) {
	gc, err := p.rest(r)
	if err != nil {
		return nil, err
	}
	// Ask for the run it started, unless this host refused to say; a first
	// refusal dispatches again without the key (nothing was started: GitHub
	// validates the body before it dispatches).
	return written(ctx, p, r, startNew, func() (*github.WorkflowDispatchRunDetails, error) {
		return p.dispatch(ctx, gc, r, file, ref, inputs)
	})
}

func (p *Port) dispatch(ctx context.Context, gc *github.Client, r Repo, file, ref string, inputs map[string]any) (*github.WorkflowDispatchRunDetails, error) {
	req := github.CreateWorkflowDispatchEventRequest{Ref: ref, Inputs: inputs}
	host := hostOf(gc)
	if !p.runDetails.refuses(host) {
		req.ReturnRunDetails = github.Ptr(true)
		details, resp, err := gc.Actions.CreateWorkflowDispatchEventByFileName(ctx, r.Owner, r.Name, file, req)
		if !refusesRunDetails(resp, err) {
			return details, err
		}
		p.runDetails.remember(host)
		logging.From(ctx).Info("dispatch: this GitHub refuses return_run_details (Enterprise Server); runs are found by their run-name", "host", host)
		req.ReturnRunDetails = nil
	}
	details, _, err := gc.Actions.CreateWorkflowDispatchEventByFileName(ctx, r.Owner, r.Name, file, req)
	return details, err
}

// CancelOutcome is what cancelling an Actions run found.
type CancelOutcome int

const (
	// Cancelled: GitHub accepted the cancel.
	Cancelled CancelOutcome = iota + 1
	// AlreadyFinished: the run had completed on its own (409).
	AlreadyFinished
)

// CancelActionsRun cancels Actions run id.
func (p *Port) CancelActionsRun(ctx context.Context, r Repo, id int64) (CancelOutcome, error) {
	gc, err := p.rest(r)
	if err != nil {
		return 0, err
	}
	if _, err := p.gate(ctx, r.Installation, update); err != nil {
		return 0, err
	}
	resp, err := gc.Actions.CancelWorkflowRunByID(ctx, r.Owner, r.Name, id)
	var accepted *github.AcceptedError
	switch {
	case err == nil || errors.As(err, &accepted):
		return Cancelled, nil
	case resp != nil && resp.StatusCode == http.StatusConflict:
		return AlreadyFinished, nil
	}
	return 0, fmt.Errorf("cancel Actions run %d: %w", id, p.settle(ctx, r.Installation, 0, err))
}
