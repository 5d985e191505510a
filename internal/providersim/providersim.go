// Package providersim simulates the model providers Chakshu's gateway can
// send runs to, each in front of the same scripted model
// (internal/scriptedmodel), so the same review comes out whichever provider
// carries it. Each simulator checks a request the way its service does
// (Bedrock: a SigV4 signature recomputed with the same algorithm from the
// simulated credentials; Vertex: an OAuth access token it issued itself for
// a service account's signed JWT) and answers in the provider's own wire
// format (Bedrock's binary event stream of base64 chunks; Vertex's
// server-sent events). Sources are cited beside each behaviour.
package providersim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"

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
