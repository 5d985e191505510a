package runner

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/action/agent"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

// fakeChakshu is a small, strict implementation of the runner API contract
// (internal/runnerproto) in front of the scripted model: it verifies the
// simulator-issued OIDC token, moves the run dispatched → running once,
// issues a run token and checks it on every later call, meters the model
// gateway's cost with a cap, proxies connector tools, and validates the
// reported result with findings.ParseResult/ParseReply.
type fakeChakshu struct {
	t        *testing.T
	srv      *httptest.Server
	sim      *ghsim.Sim
	verifier *oidc.IDTokenVerifier
	model    http.Handler

	mu           sync.Mutex
	job          runnerproto.Job
	actionsRunID int64
	state        string
	runToken     string
	spentUSD     float64
	capRefused   bool // the gateway refused a request at the cap
	finalUsed    bool // the one request allowed after that was used
	refuseFinal  bool // test hook: refuse the final request too
	modelCalls   int  // requests that reached the gateway
	modelBodies  []string
	reports      []runnerproto.Report
	resultFaults int   // answer 503 to this many result posts first
	jobFaults    []int // answer these statuses to the first job fetches, in order
	onModelCall  func()
	toolCalls    []string
}

type ghRun struct {
	sim *ghsim.Sim
	run ghsim.WorkflowRun
}

// dispatch creates a repository in the simulator and dispatches chakshu.yml,
// returning the simulated Actions run (with its OIDC request URL and token).
func dispatch(t *testing.T, runID int64) ghRun {
	t.Helper()
	sim := ghsimtest.New(t)
	appID, _ := sim.CreateApp("chakshu")
	sim.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n", ".github/workflows/chakshu.yml": action.WorkflowTemplate})
	inst := sim.Install(appID, "acme", nil, nil)
	got := make(chan ghsim.WorkflowRun, 1)
	sim.OnDispatch(func(r ghsim.WorkflowRun) { got <- r })
	body, _ := json.Marshal(map[string]any{"ref": "main", "return_run_details": true,
		"inputs": map[string]string{"run_id": strconv.FormatInt(runID, 10), "pr_number": "1", "head_sha": strings.Repeat("a", 40)}})
	req, _ := http.NewRequest(http.MethodPost, sim.URL()+"repos/acme/widget/actions/workflows/chakshu.yml/dispatches", bytes.NewReader(body))
	req.Header.Set("Authorization", "token "+sim.InstallationToken(inst))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("dispatch: %d", resp.StatusCode)
	}
	return ghRun{sim: sim, run: <-got}
}

func newFakeChakshu(t *testing.T, gh ghRun, job runnerproto.Job, model http.Handler) *fakeChakshu {
	t.Helper()
	f := &fakeChakshu{t: t, sim: gh.sim, job: job, actionsRunID: gh.run.ID, state: "dispatched", model: model}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+runnerproto.PathJob, f.handleJob)
	mux.HandleFunc("POST /api/runner/v1/runs/{id}/model/v1/messages", f.handleModel)
	mux.HandleFunc("POST /api/runner/v1/runs/{id}/tools/{tool}", f.handleTool)
	mux.HandleFunc("POST /api/runner/v1/runs/{id}/result", f.handleResult)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	provider, err := oidc.NewProvider(context.Background(), gh.sim.IssuerURL())
	if err != nil {
		t.Fatal(err)
	}
	f.verifier = provider.Verifier(&oidc.Config{ClientID: f.srv.URL})
	return f
}

func writeErr(w http.ResponseWriter, status int, code, msg string) {
	var e runnerproto.Error
	e.Error.Code, e.Error.Message = code, msg
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(e)
}

func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return h[7:]
	}
	return ""
}

func (f *fakeChakshu) handleJob(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	if len(f.jobFaults) > 0 {
		status := f.jobFaults[0]
		f.jobFaults = f.jobFaults[1:]
		f.mu.Unlock()
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "1")
		}
		writeErr(w, status, "busy", "try again")
		return
	}
	f.mu.Unlock()
	tok, err := f.verifier.Verify(r.Context(), bearer(r))
	if err != nil {
		writeErr(w, http.StatusUnauthorized, "unauthorized", "unable to verify bearer token")
		return
	}
	var claims struct {
		RunID      string `json:"run_id"`
		Repository string `json:"repository"`
		EventName  string `json:"event_name"`
	}
	if err := tok.Claims(&claims); err != nil || claims.RunID != strconv.FormatInt(f.actionsRunID, 10) || claims.Repository != "acme/widget" || claims.EventName != "workflow_dispatch" {
		writeErr(w, http.StatusForbidden, "forbidden", "the token is not for this run")
		return
	}
	var req runnerproto.JobRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil || req.RunID != f.job.RunID {
		writeErr(w, http.StatusBadRequest, "invalid", "bad job request")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.state != "dispatched" {
		writeErr(w, http.StatusConflict, "conflict", "the run is not waiting for a runner")
		return
	}
	f.state = "running"
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	f.runToken = "chkr_" + hex.EncodeToString(b)
	job := f.job
	job.RunToken = f.runToken
	base := fmt.Sprintf("%s/api/runner/v1/runs/%d", f.srv.URL, job.RunID)
	job.ResultURL, job.ToolURL, job.ModelURL = base+"/result", base+"/tools/{tool}", base+"/model"
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(job)
}

// authorised checks the run token and that the run is running.
func (f *fakeChakshu) authorised(r *http.Request, token string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.runToken != "" && token == f.runToken && f.state == "running" && r.PathValue("id") == strconv.FormatInt(f.job.RunID, 10)
}

func (f *fakeChakshu) handleModel(w http.ResponseWriter, r *http.Request) {
	if !f.authorised(r, r.Header.Get("x-api-key")) {
		writeErr(w, http.StatusUnauthorized, "unauthorized", "invalid run token")
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	f.mu.Lock()
	f.modelCalls++
	hook := f.onModelCall
	if f.spentUSD >= f.job.MaxCostUSD {
		// Like Chakshu's gateway: 429 past the cap, except one request
		// flagged as the final one.
		if r.Header.Get(agent.HeaderFinal) != "1" || f.finalUsed || f.refuseFinal {
			f.capRefused = true
			f.mu.Unlock()
			writeErr(w, http.StatusTooManyRequests, agent.CodeCostCap, "the run reached its cost cap")
			return
		}
		f.finalUsed = true
	}
	f.modelBodies = append(f.modelBodies, string(body))
	f.mu.Unlock()
	if hook != nil {
		hook()
	}
	rec := httptest.NewRecorder()
	up := httptest.NewRequest(http.MethodPost, "/v1/messages", bytes.NewReader(body))
	f.model.ServeHTTP(rec, up)
	var resp struct {
		Usage struct {
			InputTokens              int64 `json:"input_tokens"`
			OutputTokens             int64 `json:"output_tokens"`
			CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
			CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		} `json:"usage"`
	}
	if rec.Code == http.StatusOK && json.Unmarshal(rec.Body.Bytes(), &resp) == nil {
		u := agent.Usage{Input: resp.Usage.InputTokens, Output: resp.Usage.OutputTokens, CacheWrite: resp.Usage.CacheCreationInputTokens, CacheRead: resp.Usage.CacheReadInputTokens}
		f.mu.Lock()
		f.spentUSD += agent.EstimateCost(f.job.Model, u)
		f.mu.Unlock()
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

func (f *fakeChakshu) handleTool(w http.ResponseWriter, r *http.Request) {
	if !f.authorised(r, bearer(r)) {
		writeErr(w, http.StatusUnauthorized, "unauthorized", "invalid run token")
		return
	}
	var req runnerproto.ToolRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		writeErr(w, http.StatusBadRequest, "invalid", "bad tool request")
		return
	}
	tool := r.PathValue("tool")
	f.mu.Lock()
	f.toolCalls = append(f.toolCalls, tool)
	f.mu.Unlock()
	if tool != "github.get_file" {
		writeErr(w, http.StatusNotFound, "not_found", "no such connector tool")
		return
	}
	_ = json.NewEncoder(w).Encode(runnerproto.ToolResponse{Output: json.RawMessage(`{"content":"shared config"}`)})
}

func (f *fakeChakshu) handleResult(w http.ResponseWriter, r *http.Request) {
	if !f.authorised(r, bearer(r)) {
		// A repeat after acceptance is acknowledged, not refused.
		f.mu.Lock()
		repeat := f.state == "publishing" && bearer(r) == f.runToken
		f.mu.Unlock()
		if repeat {
			_ = json.NewEncoder(w).Encode(runnerproto.ReportAck{Status: "already_accepted"})
			return
		}
		writeErr(w, http.StatusUnauthorized, "unauthorized", "invalid run token")
		return
	}
	f.mu.Lock()
	if f.resultFaults > 0 {
		f.resultFaults--
		f.mu.Unlock()
		writeErr(w, http.StatusServiceUnavailable, "unavailable", "try again")
		return
	}
	f.mu.Unlock()
	var rep runnerproto.Report
	dec := json.NewDecoder(io.LimitReader(r.Body, 4<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil || (rep.Result == nil) == (rep.Failure == nil) {
		writeErr(w, http.StatusBadRequest, "invalid", "a report carries exactly one of result and failure")
		return
	}
	if rep.Result != nil {
		var err error
		if f.job.Kind == "reply" {
			_, err = findings.ParseReply(rep.Result)
		} else {
			_, err = findings.ParseResult(rep.Result)
		}
		if err != nil {
			writeErr(w, http.StatusUnprocessableEntity, "invalid_result", err.Error())
			return
		}
	}
	f.mu.Lock()
	f.reports = append(f.reports, rep)
	f.state = "publishing"
	f.mu.Unlock()
	_ = json.NewEncoder(w).Encode(runnerproto.ReportAck{Status: "accepted"})
}
