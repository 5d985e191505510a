package runnerapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/chakshu-dev/chakshu/internal/connectors"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/server"
)

const maxToolRequest = 64 << 10

func (a *API) handleTool(w http.ResponseWriter, r *http.Request) {
	rn, _ := a.authRun(w, r, false)
	if rn == nil {
		return
	}
	name := r.PathValue("tool")
	log := a.log.With("run_id", rn.ID, "tool", name)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxToolRequest))
	if err != nil {
		server.WriteError(w, http.StatusRequestEntityTooLarge, codeTooLarge, "the tool request is larger than 64 KiB")
		return
	}
	var req runnerproto.ToolRequest
	if err := json.Unmarshal(body, &req); err != nil {
		server.WriteError(w, http.StatusBadRequest, codeBadRequest, "the body must be {\"input\": {…}}")
		return
	}
	cfg := reviewerconfig.FromEnt(rn.Edges.Reviewer)
	repo := rn.Edges.Repository
	scope := connectors.Scope{InstallationID: repo.Edges.Installation.ID, GitHubInstallationID: repo.Edges.Installation.GithubID,
		Repo: repo.FullName, Config: cfg}
	resp, err := a.tools.Call(r.Context(), scope, name, req.Input)
	if errors.Is(err, connectors.ErrNotDeclared) {
		log.Warn("tool: not declared by the reviewer")
		server.WriteError(w, http.StatusForbidden, codeNotDeclared, "the reviewer does not declare this tool")
		return
	}
	if err != nil {
		log.Error("tool", "err", redact.Error(err))
		server.WriteError(w, http.StatusInternalServerError, codeInternal, "internal error")
		return
	}
	log.Info("tool called", "error", resp.Error != "", "truncated", resp.Truncated, "bytes", len(resp.Output))
	server.WriteJSON(w, http.StatusOK, resp)
}

func (a *API) handleModel(w http.ResponseWriter, r *http.Request) {
	rn, _ := a.authRun(w, r, false)
	if rn == nil {
		return
	}
	a.gateway.Serve(w, r, rn)
}
