package worker

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/google/go-github/v88/github"
)

// runDetailsHosts remembers, per GitHub host, that workflow dispatch refused
// return_run_details. github.com accepts it since 2026-02-19 (changelog
// "Workflow dispatch API now returns run IDs"); GitHub Enterprise Server
// answers 422 `"return_run_details" is not a permitted key.`
// (benc-uk/workflow-dispatch#86, GHES 3.19; its OpenAPI description has no
// such key). There the run is found by its run-name, as after a 204.
type runDetailsHosts struct {
	mu      sync.Mutex
	refused map[string]bool
}

func (h *runDetailsHosts) refuses(host string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.refused[host]
}

func (h *runDetailsHosts) remember(host string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.refused == nil {
		h.refused = map[string]bool{}
	}
	h.refused[host] = true
}

// refusesRunDetails is GitHub's 422 naming return_run_details.
func refusesRunDetails(resp *github.Response, err error) bool {
	return err != nil && resp != nil && resp.StatusCode == http.StatusUnprocessableEntity &&
		strings.Contains(err.Error(), "return_run_details")
}

// dispatchWorkflow starts the workflow asking for the run it started, unless
// this host refused to say; a first refusal dispatches again without the key
// (nothing was started: GitHub validates the body before it dispatches).
func (d *Dispatcher) dispatchWorkflow(ctx context.Context, c *github.Client, owner, name string, req github.CreateWorkflowDispatchEventRequest) (*github.WorkflowDispatchRunDetails, *github.Response, error) {
	host := c.BaseURL()
	if u, err := url.Parse(host); err == nil {
		host = u.Host
	}
	if !d.runDetails.refuses(host) {
		req.ReturnRunDetails = github.Ptr(true)
		details, resp, err := c.Actions.CreateWorkflowDispatchEventByFileName(ctx, owner, name, WorkflowFile, req)
		if !refusesRunDetails(resp, err) {
			return details, resp, err
		}
		d.runDetails.remember(host)
		d.cfg.Log.Info("dispatch: this GitHub refuses return_run_details (Enterprise Server); runs are found by their run-name", "host", host)
	}
	req.ReturnRunDetails = nil
	return c.Actions.CreateWorkflowDispatchEventByFileName(ctx, owner, name, WorkflowFile, req)
}
