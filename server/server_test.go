package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/chakshu-dev/chakshu/internal/logging"
)

func get(t *testing.T, url string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// One JSON line per request: method, the route template (not the path),
// status, duration and request id; the id is answered and reaches handlers.
func TestAccessLog(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	var seen string
	h := Handler(Config{Log: log, Routes: []Route{
		{Pattern: "GET /api/runs/{id}", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			logging.From(r.Context()).Info("inside")
			seen = r.PathValue("id")
			WriteError(w, http.StatusTeapot, "TEAPOT", "short and stout")
		})},
	}})
	srv := httptest.NewServer(h)
	defer srv.Close()

	resp, _ := get(t, srv.URL+"/api/runs/ghp_secretlooking", map[string]string{RequestIDHeader: "lb-abc.123"})
	if resp.StatusCode != http.StatusTeapot || resp.Header.Get(RequestIDHeader) != "lb-abc.123" || seen != "ghp_secretlooking" {
		t.Fatalf("status %d, id %q, seen %q", resp.StatusCode, resp.Header.Get(RequestIDHeader), seen)
	}
	resp, _ = get(t, srv.URL+"/nowhere", map[string]string{RequestIDHeader: "bad id with spaces"})
	made := resp.Header.Get(RequestIDHeader)
	if resp.StatusCode != 404 || len(made) != 16 {
		t.Fatalf("unmatched: status %d, made id %q", resp.StatusCode, made)
	}

	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %q", l)
		}
		lines = append(lines, m)
	}
	if len(lines) != 3 || lines[0]["msg"] != "inside" || lines[0]["request_id"] != "lb-abc.123" {
		t.Fatalf("log lines: %v", lines)
	}
	a := lines[1]
	if a["msg"] != "http request" || a["method"] != "GET" || a["route"] != "GET /api/runs/{id}" || a["status"] != float64(418) ||
		a["request_id"] != "lb-abc.123" || a["duration_ms"] == nil {
		t.Fatalf("access line: %v", a)
	}
	if strings.Contains(buf.String(), "ghp_secretlooking") {
		t.Fatal("the raw path reached the log")
	}
	if b := lines[2]; b["route"] != "unmatched" || b["status"] != float64(404) || b["request_id"] != made {
		t.Fatalf("unmatched line: %v", b)
	}
}

// Readiness: 503 before Start, 200 while serving and the database answers,
// 503 when it does not, and 503 for good after Drain. Liveness stays 200.
func TestHealthReadiness(t *testing.T) {
	var dbErr error
	hl := NewHealth(func(context.Context) error { return dbErr })
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "chakshu_test_total", Help: "t"}))
	srv := httptest.NewServer(Internal(InternalConfig{Health: hl, Registry: reg}))
	defer srv.Close()
	ready := func() int { r, _ := get(t, srv.URL+"/readyz", nil); return r.StatusCode }
	if c := ready(); c != 503 {
		t.Fatalf("before Start: %d", c)
	}
	hl.Start()
	if c := ready(); c != 200 {
		t.Fatalf("started: %d", c)
	}
	dbErr = errors.New("db down")
	if c := ready(); c != 503 {
		t.Fatalf("database down: %d", c)
	}
	dbErr = nil
	hl.Drain()
	if c := ready(); c != 503 {
		t.Fatalf("draining: %d", c)
	}
	if r, _ := get(t, srv.URL+"/healthz", nil); r.StatusCode != 200 {
		t.Fatalf("healthz while draining: %d", r.StatusCode)
	}
	if r, body := get(t, srv.URL+"/metrics", nil); r.StatusCode != 200 || !strings.Contains(body, "chakshu_test_total") {
		t.Fatalf("internal /metrics: %d\n%s", r.StatusCode, body)
	}
}

// The public handler serves no /metrics unless given a registry.
func TestPublicHandlerHasNoMetrics(t *testing.T) {
	srv := httptest.NewServer(Handler(Config{}))
	defer srv.Close()
	if r, _ := get(t, srv.URL+"/metrics", nil); r.StatusCode != 404 {
		t.Fatalf("/metrics on the public handler: %d, want 404", r.StatusCode)
	}
}

// After ctx ends, a request in flight finishes if it fits the drain; one
// that does not is cut at the drain timeout, and Serve returns nil both times.
func TestServeDrain(t *testing.T) {
	for _, tc := range []struct {
		name     string
		work     time.Duration
		drain    time.Duration
		complete bool
	}{
		{"fits the drain", 300 * time.Millisecond, 3 * time.Second, true},
		{"outlasts the drain", 5 * time.Second, 300 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan struct{})
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(200)
				w.(http.Flusher).Flush()
				close(started)
				select {
				case <-time.After(tc.work):
					io.WriteString(w, "done") //nolint:errcheck
				case <-r.Context().Done():
				}
			})
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() {
				served <- ServeDrain(ctx, ln, Handler(Config{Routes: []Route{{Pattern: "GET /slow", Handler: h}}}), slog.New(slog.DiscardHandler), tc.drain)
			}()
			body := make(chan string, 1)
			go func() {
				resp, err := http.Get("http://" + ln.Addr().String() + "/slow")
				if err != nil {
					body <- "error: " + err.Error()
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				body <- string(b)
			}()
			<-started
			begin := time.Now()
			cancel()
			if err := <-served; err != nil {
				t.Fatalf("Serve: %v", err)
			}
			took := time.Since(begin)
			got := <-body
			if tc.complete && (got != "done" || took < tc.work/2) {
				t.Fatalf("in-flight request: %q after %s, want it finished", got, took)
			}
			if !tc.complete && (got == "done" || took > tc.drain+2*time.Second) {
				t.Fatalf("request past the drain: %q after %s, want it cut at %s", got, took, tc.drain)
			}
			if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
				t.Fatal("still accepting after the drain")
			}
		})
	}
}
