package runnerapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/fault"
	"github.com/chakshu-dev/chakshu/internal/job"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/server"
)

const maxJobRequest = 4 << 10

// handleJob hands a dispatched run's job to the Actions runner whose OIDC
// token proves it is that run's workflow; internal/job builds the job.
func (a *API) handleJob(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	// The token is checked before the body is read: a caller without a
	// valid one learns nothing of the API, not even the body's shape. What
	// verifying costs is bounded in keySet (no limit per client address,
	// which a reverse proxy makes one for everybody).
	h := r.Header.Get("Authorization")
	if len(h) < 8 || !strings.EqualFold(h[:7], "bearer ") {
		server.WriteError(w, http.StatusUnauthorized, codeUnauthorized, "an Actions OIDC token is required as the bearer")
		return
	}
	raw := strings.TrimSpace(h[7:])
	if _, err := parseJWT(raw); err != nil {
		server.WriteError(w, http.StatusUnauthorized, codeUnauthorized, "an Actions OIDC token is required as the bearer")
		return
	}
	v, err := a.oidcVerifier(ctx)
	if err != nil {
		a.log.Error("job: oidc issuer unavailable", "err", redact.Error(err))
		server.WriteError(w, http.StatusServiceUnavailable, "oidc_unavailable", "Chakshu cannot verify Actions tokens right now; retry later")
		return
	}
	var ko keyOutcome
	tok, err := v.Verify(context.WithValue(ctx, keyOutcomeKey{}, &ko), raw)
	if err != nil && ko.wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(ko.wait/time.Second)+1))
		server.WriteError(w, http.StatusTooManyRequests, codeRateLimited, "the token's key is not known yet; retry in a moment")
		return
	}
	if err != nil {
		a.log.Warn("job: token refused", "reason", "verify", "err", redact.Error(err))
		server.WriteError(w, http.StatusUnauthorized, codeUnauthorized, "the token is not a valid Actions OIDC token")
		return
	}
	var req runnerproto.JobRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxJobRequest))
	if err != nil || json.Unmarshal(body, &req) != nil || req.RunID <= 0 {
		server.WriteError(w, http.StatusBadRequest, codeBadRequest, "the body must be {\"run_id\": <id>}")
		return
	}
	log := a.log.With(logging.KeyRun, req.RunID)
	forbid := func(reason string, args ...any) {
		log.Warn("job: token refused", append([]any{"reason", reason}, args...)...)
		server.WriteError(w, http.StatusForbidden, codeForbidden, "the token is not valid for this run")
	}
	var claims actionsClaims
	if err := tok.Claims(&claims); err != nil {
		forbid("claims", "err", err)
		return
	}
	load := func() (*ent.Run, error) {
		return a.cfg.DB.Run.Query().Where(run.ID(int(req.RunID))).WithReviewer().
			WithRepository(func(q *ent.RepositoryQuery) { q.WithInstallation() }).Only(ctx)
	}
	rn, err := load()
	if err != nil {
		forbid("run", "err", err)
		return
	}
	repo := rn.Edges.Repository
	log = log.With(logging.KeyRepo, repo.FullName, logging.KeyPR, rn.PrNumber, logging.KeyReviewer, rn.Edges.Reviewer.Name)
	// A fast runner can ask before the dispatcher recorded the Actions run it
	// started: once everything but run_id matches, wait for the record.
	if rn.Status == run.StatusQueued && rn.ActionsRunID == 0 && checkRepoClaims(claims, repo) == nil {
		deadline := time.Now().Add(a.cfg.DispatchWait)
		for rn.Status == run.StatusQueued && rn.ActionsRunID == 0 && time.Now().Before(deadline) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			if rn, err = load(); err != nil {
				forbid("run", "err", err)
				return
			}
		}
		repo = rn.Edges.Repository
	}
	if rn.Status == run.StatusDispatched && rn.ActionsRunID == 0 && checkRepoClaims(claims, repo) == nil {
		// Dispatched where GitHub could not return the run's id.
		if rn, err = a.adoptActionsRun(ctx, rn, repo, claims); err != nil {
			log.Warn("job: find the Actions run", "err", redact.Error(err))
			server.WriteError(w, http.StatusServiceUnavailable, codeUnavailable, "Chakshu cannot look up this Actions run on GitHub right now; retry later")
			return
		}
		repo = rn.Edges.Repository
	}
	if err := checkClaims(claims, rn, repo); err != nil {
		log.Warn("job: token refused", "reason", "claims", "claim", err.Error())
		server.WriteError(w, http.StatusForbidden, codeForbidden, "the token is not valid for this run")
		return
	}
	if !runnerCompatible(req, a.cfg.Version) {
		a.refuseVersion(w, log, req)
		return
	}
	if rn.Status != run.StatusDispatched {
		log.Warn("job: run not waiting for a runner", "status", rn.Status)
		writeFault(w, job.ErrNotWaiting())
		return
	}
	token, hash, err := newRunToken()
	if err != nil {
		log.Error("job: run token", "err", err)
		server.WriteError(w, http.StatusInternalServerError, codeInternal, "internal error")
		return
	}
	j, err := a.jobs.Build(logging.With(ctx, log), rn, job.Start{RunToken: token, TokenHash: hash,
		BaseURL: fmt.Sprintf("%s/api/runner/v1/runs/%d", a.public, rn.ID)})
	if err != nil {
		if fe, ok := fault.As(err); ok && fe.Kind != fault.Internal {
			if fe.Err != nil {
				log.Warn("job: refused", "code", codeOf(fe), "err", redact.Error(fe.Err))
			}
			writeFault(w, fe)
			return
		}
		log.Error("job: build", "err", redact.Error(err))
		server.WriteError(w, http.StatusInternalServerError, codeInternal, "internal error")
		return
	}
	log.Info("job handed to runner", "kind", j.Kind, "incremental_since", j.IncrementalSince, "files", len(j.Files))
	server.WriteJSON(w, http.StatusOK, j)
}

// writeFault answers with a fault's status, code and safe sentence: the
// runner API's one mapping of error kinds.
func writeFault(w http.ResponseWriter, fe *fault.Error) {
	server.WriteError(w, fault.HTTPStatus(fe.Kind), codeOf(fe), fe.Public)
}

// codeOf is the API's error code of fe: its own, else the one of its kind.
func codeOf(fe *fault.Error) string {
	if fe.Code != "" {
		return fe.Code
	}
	switch fe.Kind {
	case fault.Invalid:
		return codeBadRequest
	case fault.Conflict:
		return codeConflict
	case fault.Unavailable:
		return codeUnavailable
	case fault.NotFound:
		return codeNotFound
	case fault.Unauthorized:
		return codeUnauthorized
	case fault.Forbidden:
		return codeForbidden
	}
	return codeInternal
}

// capString cuts s to n bytes and marks the cut (job.CapString).
func capString(s string, n int) (string, bool) { return job.CapString(s, n) }
