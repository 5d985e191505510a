package gh

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v88/github"
)

// The transport retries what GitHub asks to be retried, 3 attempts in all,
// waits what the server asked (capped), replays the body, and leaves other
// answers alone.
func TestRetryTransport(t *testing.T) {
	cases := []struct {
		name      string
		answers   []func(w http.ResponseWriter)
		wantCalls int
		wantCode  int
		wantWaits []time.Duration
	}{
		{"5xx then ok", []func(http.ResponseWriter){status(502, nil), status(200, nil)}, 2, 200, []time.Duration{10 * time.Millisecond}},
		{"429 honours Retry-After", []func(http.ResponseWriter){status(429, map[string]string{"Retry-After": "2"}), status(200, nil)}, 2, 200, []time.Duration{2 * time.Second}},
		{"secondary rate limit", []func(http.ResponseWriter){status(403, map[string]string{"Retry-After": "1"}), status(201, nil)}, 2, 201, []time.Duration{time.Second}},
		{"primary rate limit past a few seconds goes back to the caller", []func(http.ResponseWriter){status(403, map[string]string{"X-Ratelimit-Remaining": "0",
			"X-Ratelimit-Reset": strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)}), status(200, nil)}, 1, 403, nil},
		{"5xx with a short Retry-After is slept", []func(http.ResponseWriter){status(503, map[string]string{"Retry-After": "3"}), status(200, nil)}, 2, 200, []time.Duration{3 * time.Second}},
		{"5xx with a long Retry-After goes back to the caller", []func(http.ResponseWriter){status(503, map[string]string{"Retry-After": "120"}), status(200, nil)}, 1, 503, nil},
		{"gives up after 3", []func(http.ResponseWriter){status(500, nil), status(500, nil), status(503, nil), status(200, nil)}, 3, 503, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}},
		{"plain 403 is final", []func(http.ResponseWriter){status(403, nil), status(200, nil)}, 1, 403, nil},
		{"404 is final", []func(http.ResponseWriter){status(404, nil)}, 1, 404, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				if string(b) != `{"a":1}` {
					t.Errorf("attempt %d got body %q", calls.Load()+1, b)
				}
				n := int(calls.Add(1)) - 1
				tc.answers[n](w)
			}))
			defer srv.Close()
			var waits []time.Duration
			tr := &RetryTransport{Base: http.DefaultTransport,
				Policy: RetryPolicy{BaseDelay: 10 * time.Millisecond, MaxDelay: 5 * time.Second},
				Sleep:  func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"a":1}`))
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.wantCode || int(calls.Load()) != tc.wantCalls {
				t.Fatalf("status %d after %d calls, want %d after %d", resp.StatusCode, calls.Load(), tc.wantCode, tc.wantCalls)
			}
			if len(waits) != len(tc.wantWaits) {
				t.Fatalf("waits %v, want %v", waits, tc.wantWaits)
			}
			for i, w := range waits {
				if w != tc.wantWaits[i] {
					t.Fatalf("wait %d = %v, want %v", i, w, tc.wantWaits[i])
				}
			}
		})
	}
}

func TestRetryOnConnectionErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	url := srv.URL
	srv.Close() // nothing listens: every attempt is a network error
	var waits int
	tr := &RetryTransport{Base: http.DefaultTransport, Policy: RetryPolicy{BaseDelay: time.Millisecond},
		Sleep: func(context.Context, time.Duration) error { waits++; return nil }}
	req, _ := http.NewRequest("GET", url, nil)
	if _, err := tr.RoundTrip(req); err == nil {
		t.Fatal("no error from a closed server")
	}
	if waits != 2 {
		t.Fatalf("%d retries, want 2 (3 attempts in all)", waits)
	}
}

func status(code int, h map[string]string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for k, v := range h {
			w.Header().Set(k, v)
		}
		w.WriteHeader(code)
	}
}

// A content-creating POST answered 5xx (or not at all) is not resent by the
// transport: GitHub may have created it (prontolabs/pronto#302); the write
// port looks for it first. A rate-limit refusal was not performed: resent.
func TestContentCreatingPostNotResentAfter5xx(t *testing.T) {
	for _, tc := range []struct {
		path      string
		status    int
		wantCalls int32
	}{
		{"/repos/o/r/issues/1/comments", 502, 1},
		{"/repos/o/r/pulls/1/reviews", 500, 1},
		{"/repos/o/r/pulls/1/comments/9/replies", 503, 1},
		{"/repos/o/r/check-runs", 502, 1},
		{"/repos/o/r/issues/1/comments", 429, 1}, // no Retry-After: a minute at least, back to the caller
		{"/repos/o/r/actions/workflows/chakshu.yml/dispatches", 502, 3},
	} {
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			w.WriteHeader(tc.status)
		}))
		tr := &RetryTransport{Base: http.DefaultTransport, Sleep: func(context.Context, time.Duration) error { return nil }}
		req, _ := http.NewRequest("POST", srv.URL+tc.path, strings.NewReader(`{}`))
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		srv.Close()
		if calls.Load() != tc.wantCalls {
			t.Errorf("POST %s answered %d: %d calls, want %d", tc.path, tc.status, calls.Load(), tc.wantCalls)
		}
	}
}

// GitHub's rules for a rate-limit answer ("Rate limits for the REST API",
// "Best practices for using the REST API"): Retry-After when present; a
// primary limit until x-ratelimit-reset; any other secondary limit at least a
// minute, growing while they last. A wait up to InlineWait is slept (5 s
// passes, 6 s goes back to the caller with its Retry-After).
func TestRateLimitAnswers(t *testing.T) {
	secondary := `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`
	var answer func(w http.ResponseWriter)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1); answer(w) }))
	defer srv.Close()
	var waits []time.Duration
	tr := &RetryTransport{Base: http.DefaultTransport, Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	do := func(auth string) *http.Response {
		t.Helper()
		calls.Store(0)
		waits = nil
		req, _ := http.NewRequest("GET", srv.URL+"/repos/o/r/pulls/1", nil)
		req.Header.Set("Authorization", auth)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	once := func(code int, h map[string]string, body string) {
		n := 0
		answer = func(w http.ResponseWriter) {
			n++
			if n > 1 {
				w.WriteHeader(200)
				return
			}
			for k, v := range h {
				w.Header().Set(k, v)
			}
			w.WriteHeader(code)
			io.WriteString(w, body)
		}
	}
	once(429, map[string]string{"Retry-After": "5"}, "")
	if resp := do("a"); resp.StatusCode != 200 || calls.Load() != 2 || len(waits) != 1 || waits[0] != 5*time.Second {
		t.Fatalf("Retry-After 5: %d after %d calls, waits %v; want slept and retried", resp.StatusCode, calls.Load(), waits)
	}
	once(429, map[string]string{"Retry-After": "6"}, "")
	if resp := do("a"); resp.StatusCode != 429 || calls.Load() != 1 || len(waits) != 0 || resp.Header.Get("Retry-After") != "6" {
		t.Fatalf("Retry-After 6: %d after %d calls, waits %v", resp.StatusCode, calls.Load(), waits)
	}
	// A secondary limit without Retry-After: a minute, then two, per credential.
	answer = func(w http.ResponseWriter) { w.WriteHeader(403); io.WriteString(w, secondary) }
	for i, want := range []string{"60", "120", "240"} {
		if resp := do("token A"); resp.StatusCode != 403 || calls.Load() != 1 || resp.Header.Get("Retry-After") != want {
			t.Fatalf("secondary %d: %d after %d calls, Retry-After %q, want %s", i+1, resp.StatusCode, calls.Load(), resp.Header.Get("Retry-After"), want)
		}
	}
	if resp := do("token B"); resp.Header.Get("Retry-After") != "60" {
		t.Fatalf("another credential's first secondary limit: Retry-After %q, want 60", resp.Header.Get("Retry-After"))
	}
	// An answer that is not limited ends the run of them.
	answer = func(w http.ResponseWriter) { w.WriteHeader(200) }
	do("token A")
	answer = func(w http.ResponseWriter) { w.WriteHeader(429) }
	if resp := do("token A"); resp.Header.Get("Retry-After") != "60" || calls.Load() != 1 {
		t.Fatalf("429 without Retry-After after a success: Retry-After %q after %d calls, want 60 after 1", resp.Header.Get("Retry-After"), calls.Load())
	}
	// A plain 403 (permission) is no rate limit: no Retry-After invented.
	answer = func(w http.ResponseWriter) {
		w.WriteHeader(403)
		io.WriteString(w, `{"message":"Resource not accessible by integration"}`)
	}
	if resp := do("token C"); resp.Header.Get("Retry-After") != "" || calls.Load() != 1 {
		t.Fatalf("permission 403: Retry-After %q after %d calls", resp.Header.Get("Retry-After"), calls.Load())
	}
}

// GitHub's 422 is either a validation failure (the request must change) or
// its anti-spam refusal ("was submitted too quickly"), a secondary limit:
// only the second is a wait, given back to the caller (at least a minute).
func TestUnprocessableSpamIsAWait(t *testing.T) {
	cases := []struct {
		name, body string
		wait       bool
	}{
		{"submitted too quickly", `{"message":"Unprocessable Entity","errors":["was submitted too quickly"]}`, true},
		{"endpoint spammed", `{"message":"Validation failed, or the endpoint has been spammed."}`, true},
		{"lines not in the diff", `{"message":"Unprocessable Entity","errors":["Pull request review thread line must be part of the diff"]}`, false},
		{"one pending review", `{"message":"Unprocessable Entity","errors":["User can only have one pending review per pull request"]}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(422)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			tr := &RetryTransport{Base: http.DefaultTransport, Sleep: func(context.Context, time.Duration) error { t.Error("slept"); return nil }}
			c := NewREST(&http.Client{Transport: tr}, srv.URL)
			_, _, err := c.PullRequests.CreateReview(context.Background(), "o", "r", 1, &github.PullRequestReviewRequest{})
			now := time.Now()
			until, wait := WaitFor(err, now)
			if wait != tc.wait || calls.Load() != 1 {
				t.Fatalf("wait %v after %d calls (%v), want %v after 1", wait, calls.Load(), err, tc.wait)
			}
			if wait && until.Before(now.Add(time.Minute)) {
				t.Fatalf("waits until %v, want at least a minute", until.Sub(now))
			}
		})
	}
}

func TestWaitFor(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	ra := 90 * time.Second
	if until, ok := WaitFor(&github.AbuseRateLimitError{RetryAfter: &ra}, now); !ok || !until.Equal(now.Add(ra)) {
		t.Fatalf("secondary: %v %v", until, ok)
	}
	reset := now.Add(10 * time.Minute)
	if until, ok := WaitFor(&github.RateLimitError{Rate: github.Rate{Reset: github.Timestamp{Time: reset}}}, now); !ok || !until.Equal(reset.Add(time.Second)) {
		t.Fatalf("primary: %v %v", until, ok)
	}
	if _, ok := WaitFor(&github.ErrorResponse{Response: &http.Response{StatusCode: 502}}, now); ok {
		t.Fatal("a 502 taken for a wait")
	}
	later := http.Header{"Retry-After": []string{"300"}}
	if until, ok := WaitFor(&github.ErrorResponse{Response: &http.Response{StatusCode: 503, Header: later}}, now); !ok || !until.Equal(now.Add(5*time.Minute)) {
		t.Fatalf("503 with Retry-After: %v %v, want a wait of 5 minutes", until, ok)
	}
	h := http.Header{"Retry-After": []string{"120"}}
	if until, ok := WaitFor(&github.ErrorResponse{Response: &http.Response{StatusCode: 429, Header: h}}, now); !ok || !until.Equal(now.Add(2*time.Minute)) {
		t.Fatalf("429: %v %v", until, ok)
	}
}

// GitHub's GraphQL API answers its limits otherwise than REST ("Rate limits
// and node limits for the GraphQL API"): the primary one with 200 and an
// error of type RATE_LIMITED (octokit/plugin-throttling.js) or RATE_LIMIT
// (yanyongyu/githubkit#271), x-ratelimit-remaining not always 0 on it
// (octokit/plugin-throttling.js#632): wait for x-ratelimit-reset; a
// secondary one with 200 or 403 and a message saying so. The transport
// returns them as a *GraphQLRateLimitError that WaitFor reads; a wait up to
// InlineWait is slept and the query sent again; other GraphQL errors and
// REST answers are left alone.
func TestGraphQLRateLimitAnswers(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	var answer func(w http.ResponseWriter)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1); answer(w) }))
	defer srv.Close()
	var waits []time.Duration
	tr := &RetryTransport{Base: http.DefaultTransport, Now: func() time.Time { return now },
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	do := func(path string) (*http.Response, error) {
		t.Helper()
		calls.Store(0)
		waits = nil
		req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(`{"query":"mutation { resolveReviewThread(input: {threadId: \"T\"}) { thread { id } } }"}`))
		req.Header.Set("Authorization", "bearer t")
		resp, err := tr.RoundTrip(req)
		if resp != nil {
			resp.Body.Close()
		}
		return resp, err
	}
	limited := func(status int, h map[string]string, body string) func(http.ResponseWriter) {
		n := 0
		return func(w http.ResponseWriter) {
			if n++; n > 1 {
				io.WriteString(w, `{"data":{"resolveReviewThread":{"thread":{"id":"T"}}}}`)
				return
			}
			for k, v := range h {
				w.Header().Set(k, v)
			}
			w.WriteHeader(status)
			io.WriteString(w, body)
		}
	}
	reset := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	for _, tc := range []struct {
		name       string
		status     int
		h          map[string]string
		body       string
		primary    bool
		wait       time.Duration
		retried    bool
		notLimited bool
	}{
		{name: "primary RATE_LIMITED", status: 200, h: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset(10 * time.Minute), "X-RateLimit-Resource": "graphql"},
			body: `{"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded for installation ID 7."}]}`, primary: true, wait: 10*time.Minute + time.Second},
		{name: "primary RATE_LIMIT, remaining not 0", status: 200, h: map[string]string{"X-RateLimit-Remaining": "1", "X-RateLimit-Reset": reset(20 * time.Minute)},
			body: `{"errors":[{"type":"RATE_LIMIT","code":"graphql_rate_limit","message":"API rate limit already exceeded for user ID 9."}]}`, primary: true, wait: 20*time.Minute + time.Second},
		{name: "primary resetting in 3 s: slept", status: 200, h: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset(3 * time.Second)},
			body: `{"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded for installation ID 7."}]}`, retried: true, wait: 4 * time.Second},
		{name: "secondary 403 with Retry-After", status: 403, h: map[string]string{"Retry-After": "30"},
			body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}`, wait: 30 * time.Second},
		{name: "secondary 200 without Retry-After", status: 200,
			body: `{"errors":[{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}]}`, wait: time.Minute},
		{name: "another GraphQL error", status: 200, body: `{"errors":[{"type":"NOT_FOUND","message":"Could not resolve to a node with the global id of 'T'"}]}`, notLimited: true},
		{name: "a permission refusal", status: 200, body: `{"errors":[{"type":"FORBIDDEN","message":"Resource not accessible by integration"}]}`, notLimited: true},
	} {
		answer = limited(tc.status, tc.h, tc.body)
		resp, err := do("/api/graphql")
		switch {
		case tc.notLimited:
			if err != nil || resp.StatusCode != 200 || calls.Load() != 1 {
				t.Errorf("%s: %v after %d calls, want the answer as it is", tc.name, err, calls.Load())
			}
		case tc.retried:
			if err != nil || calls.Load() != 2 || len(waits) != 1 || waits[0] != tc.wait {
				t.Errorf("%s: %v after %d calls, waits %v; want slept %v and sent again", tc.name, err, calls.Load(), waits, tc.wait)
			}
		default:
			until, ok := WaitFor(err, now)
			if !ok || until.Sub(now) != tc.wait || Primary(err) != tc.primary || calls.Load() != 1 {
				t.Errorf("%s: wait %v (ok %v), primary %v, %d calls; want %v, primary %v; err %v", tc.name, until.Sub(now), ok, Primary(err), calls.Load(), tc.wait, tc.primary, err)
			}
			if _, secondary := Secondary(err); secondary == tc.primary {
				t.Errorf("%s: Secondary says %v", tc.name, secondary)
			}
		}
	}
	// The same body on a REST path is REST's business.
	answer = limited(200, nil, `{"errors":[{"type":"RATE_LIMITED","message":"x"}]}`)
	if _, err := do("/repos/o/r/pulls/1/reviews"); err != nil || calls.Load() != 1 {
		t.Errorf("REST answer read as GraphQL: %v", err)
	}
}
