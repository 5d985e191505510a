package ghwrite

import (
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

// refusesRunDetails is GitHub's 422 naming return_run_details, or a 400
// naming it (a body key a release does not know may be answered either way).
func refusesRunDetails(resp *github.Response, err error) bool {
	return err != nil && resp != nil &&
		(resp.StatusCode == http.StatusUnprocessableEntity || resp.StatusCode == http.StatusBadRequest) &&
		strings.Contains(err.Error(), "return_run_details")
}

// hostOf is the API host a client talks to (the key runDetailsHosts keeps).
func hostOf(c *github.Client) string {
	host := c.BaseURL()
	if u, err := url.Parse(host); err == nil {
		host = u.Host
	}
	return host
}
