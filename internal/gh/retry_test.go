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
		{"primary rate limit waits for reset, capped", []func(http.ResponseWriter){status(403, map[string]string{"X-Ratelimit-Remaining": "0",
			"X-Ratelimit-Reset": strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)}), status(200, nil)}, 2, 200, []time.Duration{5 * time.Second}},
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
		{"/repos/o/r/issues/1/comments", 429, 3},
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
