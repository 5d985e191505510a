package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
)

// recording keeps every request body and answer usage of the model.
type recording struct {
	h      http.Handler
	bodies []string
	usage  []Usage
}

func (r *recording) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var body bytes.Buffer
	_, _ = body.ReadFrom(req.Body)
	r.bodies = append(r.bodies, body.String())
	rec := httptest.NewRecorder()
	req.Body = io.NopCloser(bytes.NewReader(body.Bytes()))
	r.h.ServeHTTP(rec, req)
	var msg anthropic.Message
	_ = json.Unmarshal(rec.Body.Bytes(), &msg)
	u := msg.Usage
	r.usage = append(r.usage, Usage{u.InputTokens, u.OutputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens})
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// budgetRun runs a dawdling model (it searches until asked for its result)
// with a pass budget and returns the outcome and what the model saw.
func budgetRun(t *testing.T, model scriptedmodel.Config, budget float64) (*Outcome, *recording) {
	t.Helper()
	cfg, _, _ := setup(t, model, runnerproto.Job{MaxTurns: 10})
	rec := &recording{h: scriptedmodel.New(scriptedmodel.Config{APIKey: "chkr_token", Dawdle: model.Dawdle, NeverSubmit: model.NeverSubmit})}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	cfg.Job.ModelURL, cfg.HTTPClient = srv.URL, srv.Client()
	cfg.CostBudgetUSD = budget
	return Run(context.Background(), cfg), rec
}

// TestPassBudget: a pass is asked for its result at the first turn whose
// running estimate has reached its budget (at the budget exactly, not a hair
// below it), and one that then does not submit fails at the cost cap.
func TestPassBudget(t *testing.T) {
	dawdle := scriptedmodel.Config{Dawdle: true}
	pout, probe := budgetRun(t, dawdle, 0) // no budget: what the first two calls cost
	if len(probe.usage) < 3 {
		t.Fatalf("probe made %d calls: %+v", len(probe.usage), pout.Failure)
	}
	u := probe.usage[0]
	u.Input += probe.usage[1].Input
	u.Output += probe.usage[1].Output
	u.CacheWrite += probe.usage[1].CacheWrite
	u.CacheRead += probe.usage[1].CacheRead
	two := EstimateCost("claude-sonnet-5-5", u)
	asked := func(body string) bool { return strings.Contains(body, fmt.Sprintf(passBudgetText, "submit_result")) }

	out, rec := budgetRun(t, dawdle, two) // reached after call 2: call 3 asks
	if out.Failure != nil || out.Result == nil || len(rec.bodies) != 3 || asked(rec.bodies[1]) || !asked(rec.bodies[2]) {
		t.Fatalf("budget at two calls' cost: %d calls, failure %+v", len(rec.bodies), out.Failure)
	}
	out, rec = budgetRun(t, dawdle, two*(1+1e-9)) // not reached after call 2: call 4 asks
	if out.Failure != nil || len(rec.bodies) != 4 || asked(rec.bodies[2]) || !asked(rec.bodies[3]) {
		t.Fatalf("budget just above two calls' cost: %d calls, failure %+v", len(rec.bodies), out.Failure)
	}
	out, rec = budgetRun(t, scriptedmodel.Config{NeverSubmit: true}, 1e-9) // asked after call 1, never submits
	if out.Failure == nil || out.Failure.Reason != ReasonCostCap || len(rec.bodies) != 2 {
		t.Fatalf("model that does not submit: %d calls, failure %+v", len(rec.bodies), out.Failure)
	}
	// Alone (no Passes), the first user turn does not name a pass.
	if strings.Contains(rec.bodies[0], "independent review pass") {
		t.Error("a single pass said which pass it is")
	}
}
