// Package providersim simulates the model providers Chakshu's gateway can
// send runs to, each in front of the same scripted model
// (internal/scriptedmodel), so the same review comes out whichever provider
// carries it. Each simulator checks a request the way its service does
// (Bedrock: a SigV4 signature recomputed with the same algorithm from the
// simulated credentials; Vertex: an OAuth access token it issued itself for
// a service account's signed JWT) and answers in the provider's own wire
// format (Bedrock's binary event stream of base64 chunks; Vertex's
// server-sent events; Foundry: the resource key in front of Anthropic's
// own Messages API). Sources are cited beside each behaviour.
package providersim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/tidwall/sjson"
)

// forward sends an Anthropic Messages request to the scripted model and
// returns its recorded answer.
func forward(model http.Handler, r *http.Request, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(r.Context(), http.MethodPost, "/v1/messages", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("anthropic-version", "2023-06-01")
	rec := httptest.NewRecorder()
	model.ServeHTTP(rec, req)
	return rec
}

// asMessages turns a platform request body (anthropic_version in the body,
// model in the URL) back into a Messages request for the scripted model.
func asMessages(body []byte, model string, stream bool) []byte {
	out, _ := sjson.DeleteBytes(body, "anthropic_version")
	out, _ = sjson.SetBytes(out, "model", model)
	if stream {
		out, _ = sjson.SetBytes(out, "stream", true)
	}
	return out
}

// sseEvents splits a server-sent event stream into (event, data) pairs.
func sseEvents(b []byte) [][2]string {
	var out [][2]string
	var ev, data string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data != "" {
				out = append(out, [2]string{ev, data})
			}
			ev, data = "", ""
		case strings.HasPrefix(line, "event:"):
			ev = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data += strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		}
	}
	if data != "" {
		out = append(out, [2]string{ev, data})
	}
	return out
}

func jsonError(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// SandboxModels are the model ids the simulated accounts serve, by
// provider: the provider's id of each catalogue model the sandbox's seeded
// reviewers use. (Simulated ids in each provider's format; a deployment's
// own ids go in its catalogue file.)
var SandboxModels = map[string]map[string]string{
	"bedrock": {"claude-sonnet-5-5": "global.anthropic.claude-sonnet-5-5-v1:0", "claude-haiku-4-5-20251001": "global.anthropic.claude-haiku-4-5-20251001-v1:0"},
	"vertex":  {"claude-sonnet-5-5": "claude-sonnet-5-5@sandbox", "claude-haiku-4-5-20251001": "claude-haiku-4-5@20251001"},
	"openai":  {"claude-sonnet-5-5": "sandbox/claude-sonnet-5-5", "claude-haiku-4-5-20251001": "sandbox/claude-haiku-4-5"},
	"foundry": {"claude-sonnet-5-5": "sandbox-claude-sonnet-5-5", "claude-haiku-4-5-20251001": "sandbox-claude-haiku-4-5"},
}

// VertexProject and VertexRegion are the simulated Vertex AI project.
const (
	VertexProject = "sim-project"
	VertexRegion  = "us-east5"
)

// Sim is one provider's simulator in front of a scripted model.
type Sim struct {
	Handler http.Handler
	// Calls counts the requests that reached the model through the
	// simulator (nil for anthropic: the scripted model is served directly).
	Calls func() int
	// Vertex is set for the vertex provider (its key file needs the address).
	Vertex *Vertex
}

// New builds the simulator of provider in front of model, serving
// SandboxModels[provider]; "" or "anthropic" is the scripted model itself.
func New(provider string, model http.Handler) (*Sim, error) {
	served := map[string]string{}
	for catalogID, id := range SandboxModels[provider] {
		served[id] = catalogID
	}
	switch provider {
	case "", "anthropic":
		return &Sim{Handler: model}, nil
	case "bedrock":
		b := &Bedrock{Model: model, Models: served}
		return &Sim{Handler: b, Calls: b.Calls}, nil
	case "vertex":
		v := &Vertex{Model: model, Project: VertexProject, Region: VertexRegion, Models: served}
		return &Sim{Handler: v, Vertex: v, Calls: v.Calls}, nil
	case "openai":
		o := &OpenAI{Model: model, Models: served}
		return &Sim{Handler: o, Calls: o.Calls}, nil
	case "foundry":
		f := &Foundry{Model: model, Deployments: served}
		return &Sim{Handler: f, Calls: f.Calls}, nil
	}
	return nil, fmt.Errorf("providersim: no simulator for provider %q", provider)
}

// meter counts the calls that reach a provider's model, and refuses the next
// n when armed: Bedrock's throttling, Vertex's exhausted quota, OpenAI's rate
// limit. The zero meter counts and refuses nothing.
type meter struct {
	mu            sync.Mutex
	refuse, calls int
}

// arm makes the next n calls refused.
func (m *meter) arm(n int) { m.mu.Lock(); m.refuse = n; m.mu.Unlock() }

// count is how many calls reached the model.
func (m *meter) count() int { m.mu.Lock(); defer m.mu.Unlock(); return m.calls }

// take counts a call through to the model, or spends one armed refusal and
// returns false: the caller answers the provider's refusal.
func (m *meter) take() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.refuse > 0 {
		m.refuse--
		return false
	}
	m.calls++
	return true
}
