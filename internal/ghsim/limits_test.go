package ghsim_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
)

type limitsWorld struct {
	sim        *ghsim.Sim
	tok, other string
	now        time.Time
	mu         sync.Mutex
}

func (w *limitsWorld) clock() time.Time { w.mu.Lock(); defer w.mu.Unlock(); return w.now }
func (w *limitsWorld) add(d time.Duration) {
	w.mu.Lock()
	w.now = w.now.Add(d)
	w.mu.Unlock()
}

// newLimitsWorld: two installations (acme with a PR, globex) under l.
func newLimitsWorld(t *testing.T, l ghsim.Limits) *limitsWorld {
	t.Helper()
	w := &limitsWorld{now: time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)}
	w.sim = ghsimtest.New(t, ghsim.Options{Now: w.clock, Limits: &l})
	appID, _ := w.sim.CreateApp("chakshu")
	w.sim.CreateOrg("acme")
	w.sim.CreateOrg("globex")
	w.sim.CreateUser("alice")
	w.sim.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n"})
	w.sim.CreateRepo("globex", "gadget", map[string]string{"main.go": "package main\n"})
	w.sim.CreateBranch("acme/widget", "feature", "main")
	w.sim.Commit("acme/widget", "feature", map[string]string{"main.go": "package main\n\nfunc f() {}\n"}, "f")
	w.sim.OpenPR("acme/widget", "feature", "main", "F", "", "alice", false)
	w.tok = w.sim.InstallationToken(w.sim.Install(appID, "acme", nil, nil))
	w.other = w.sim.InstallationToken(w.sim.Install(appID, "globex", nil, nil))
	return w
}

func (w *limitsWorld) do(t *testing.T, tok, method, path, body string) (*http.Response, string) {
	t.Helper()
	return send(t, tok, method, w.sim.URL()+path, body)
}

// send makes one request with an installation token and reads the answer.
func send(t *testing.T, tok, method, url, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "token "+tok)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func (w *limitsWorld) comment(t *testing.T) (*http.Response, string) {
	return w.do(t, w.tok, "POST", "repos/acme/widget/issues/1/comments", `{"body":"x"}`)
}

// The primary quota: GitHub's headers on every answer, 403 with remaining 0
// one past it, per installation, until the hour's reset.
func TestRealisticPrimaryQuota(t *testing.T) {
	w := newLimitsWorld(t, ghsim.Limits{Primary: 3})
	for i, want := range []string{"2", "1", "0"} {
		resp, _ := w.do(t, w.tok, "GET", "repos/acme/widget", "")
		h := resp.Header
		if resp.StatusCode != 200 || h.Get("X-RateLimit-Limit") != "3" || h.Get("X-RateLimit-Remaining") != want ||
			h.Get("X-RateLimit-Used") != string(rune('1'+i)) || h.Get("X-RateLimit-Resource") != "core" || h.Get("X-RateLimit-Reset") == "" {
			t.Fatalf("request %d: %d %v", i+1, resp.StatusCode, h)
		}
	}
	resp, body := w.do(t, w.tok, "GET", "repos/acme/widget", "")
	if resp.StatusCode != 403 || resp.Header.Get("X-RateLimit-Remaining") != "0" || !strings.Contains(body, "API rate limit exceeded for installation ID") {
		t.Fatalf("request 4: %d %s", resp.StatusCode, body)
	}
	if resp, _ := w.do(t, w.other, "GET", "repos/globex/gadget", ""); resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "2" {
		t.Fatalf("another installation's quota: %d remaining %s", resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"))
	}
	w.add(time.Hour)
	if resp, _ := w.do(t, w.tok, "GET", "repos/acme/widget", ""); resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "2" {
		t.Fatalf("after the reset: %d", resp.StatusCode)
	}
	if got := w.sim.Refused(); got.Primary != 1 || got.Secondary != 0 {
		t.Fatalf("refusals %+v", got)
	}
}

// Content creation: N a minute pass, N+1 is a secondary limit (403 without
// Retry-After, or 429 with one), reads are not counted, and the minute
// slides.
func TestRealisticContentLimit(t *testing.T) {
	cases := []struct {
		name       string
		status     int
		retryAfter int
	}{{"403 without Retry-After", 0, 0}, {"429 with Retry-After", 429, 30}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newLimitsWorld(t, ghsim.Limits{ContentPerMinute: 2, ContentPerHour: 3, Status: tc.status, RetryAfter: tc.retryAfter})
			for i := range 2 {
				if resp, body := w.comment(t); resp.StatusCode != 201 {
					t.Fatalf("comment %d: %d %s", i+1, resp.StatusCode, body)
				}
				w.do(t, w.tok, "GET", "repos/acme/widget/issues/1/comments", "") // reads are not content
			}
			resp, body := w.comment(t)
			want := 403
			if tc.status != 0 {
				want = tc.status
			}
			if resp.StatusCode != want || !strings.Contains(body, "temporarily blocked from content creation") {
				t.Fatalf("comment 3: %d %s", resp.StatusCode, body)
			}
			if got := resp.Header.Get("Retry-After"); (tc.retryAfter == 0) != (got == "") {
				t.Fatalf("Retry-After %q, want one only when set", got)
			}
			// Another installation has its own budget.
			if resp, _ := w.do(t, w.other, "GET", "repos/globex/gadget", ""); resp.StatusCode != 200 {
				t.Fatal("another installation was limited")
			}
			w.add(time.Minute)
			if resp, _ := w.comment(t); resp.StatusCode != 201 {
				t.Fatalf("a minute later: %d", resp.StatusCode)
			}
			// 3 an hour: the fourth in the hour is refused though the minute is clear.
			w.add(time.Minute)
			if resp, _ := w.comment(t); resp.StatusCode != want {
				t.Fatalf("fourth in the hour: %d", resp.StatusCode)
			}
			if got := w.sim.Refused(); got.Secondary != 2 {
				t.Fatalf("refusals %+v, want 2 secondary", got)
			}
		})
	}
}

// More requests at once than MaxConcurrent: the one over it is a secondary
// limit with GitHub's message.
func TestRealisticConcurrencyCap(t *testing.T) {
	w := newLimitsWorld(t, ghsim.Limits{MaxConcurrent: 1, Latency: 300 * time.Millisecond})
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _ := w.do(t, w.tok, "GET", "repos/acme/widget", "")
			codes[i] = resp.StatusCode
		}()
		time.Sleep(50 * time.Millisecond)
	}
	wg.Wait()
	if codes[0] != 200 || codes[1] != 403 {
		t.Fatalf("codes %v, want the second refused", codes)
	}
	if got := w.sim.Refused(); got.Concurrent != 1 || got.Secondary != 1 {
		t.Fatalf("refusals %+v", got)
	}
	if resp, _ := w.do(t, w.tok, "GET", "repos/acme/widget", ""); resp.StatusCode != 200 {
		t.Fatal("a request after the first ended was refused")
	}
}

// GraphQL has its own quota, answered GitHub's GraphQL way: the headers with
// resource graphql on every answer, and past the quota 200 with a
// RATE_LIMITED error and remaining 0 (not REST's 403); REST's quota is
// untouched by it.
func TestRealisticGraphQLPrimaryQuota(t *testing.T) {
	w := newLimitsWorld(t, ghsim.Limits{Primary: 5, GraphQLPrimary: 2})
	gql := func(tok string) (*http.Response, string) {
		t.Helper()
		return send(t, tok, "POST", w.sim.GraphQLURL(), `{"query":"query { repository(owner: \"acme\", name: \"widget\") { name } }"}`)
	}
	for i, want := range []string{"1", "0"} {
		resp, body := gql(w.tok)
		h := resp.Header
		if resp.StatusCode != 200 || strings.Contains(body, `"errors"`) || h.Get("X-RateLimit-Limit") != "2" ||
			h.Get("X-RateLimit-Remaining") != want || h.Get("X-RateLimit-Resource") != "graphql" || h.Get("X-RateLimit-Reset") == "" {
			t.Fatalf("query %d: %d %v %s", i+1, resp.StatusCode, h, body)
		}
	}
	resp, body := gql(w.tok)
	if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "0" || resp.Header.Get("X-RateLimit-Resource") != "graphql" ||
		!strings.Contains(body, `"type":"RATE_LIMITED"`) || !strings.Contains(body, "API rate limit exceeded for installation ID") {
		t.Fatalf("query 3: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if resp, _ := w.do(t, w.tok, "GET", "repos/acme/widget", ""); resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "4" {
		t.Fatalf("REST after GraphQL's quota: %d remaining %s", resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"))
	}
	if resp, body := gql(w.other); resp.StatusCode != 200 || strings.Contains(body, "RATE_LIMITED") || resp.Header.Get("X-RateLimit-Remaining") != "1" {
		t.Fatalf("another installation's GraphQL: %d %s", resp.StatusCode, body)
	}
	w.add(time.Hour)
	if resp, body := gql(w.tok); resp.StatusCode != 200 || strings.Contains(body, `"errors"`) {
		t.Fatalf("after the reset: %d %s", resp.StatusCode, body)
	}
}
