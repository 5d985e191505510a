package agent

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// DefaultRetryHorizon is how long the agent keeps asking again after a
// transient refusal (429 rate limit, 529 overloaded, 5xx) before the run fails.
const DefaultRetryHorizon = 2 * time.Minute

// ReasonOverloaded is the run's failure when the model stayed unavailable.
const ReasonOverloaded = "the model stayed overloaded or rate limited; try again later"

// retrier retries one Messages request while the answer is transient, for
// up to horizon from the first attempt, waiting what the server advises.
// It follows the advice the API and the SDKs use (anthropic-sdk-go v2.15.0
// internal/requestconfig; docs "Errors": 529 overloaded_error is transient):
// x-should-retry: false never retries, true always does; otherwise 408, 409,
// 429 and 5xx (529 included) do. The wait is retry-after-ms, else
// retry-after (seconds or an HTTP date), else a jittered exponential backoff
// from 0.5 s to 8 s; a wait that would pass the horizon ends the retries.
type retrier struct {
	horizon time.Duration
	now     func() time.Time
	sleep   func(req *http.Request, d time.Duration) bool
	// attempts counts requests sent, for tests and the log.
	attempts int
}

func newRetrier(horizon time.Duration) *retrier {
	if horizon <= 0 {
		horizon = DefaultRetryHorizon
	}
	return &retrier{horizon: horizon, now: time.Now, sleep: func(req *http.Request, d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-req.Context().Done():
			return false
		}
	}}
}

// transient says whether resp is worth asking again.
func transient(resp *http.Response) bool {
	switch resp.Header.Get("x-should-retry") {
	case "false":
		return false
	case "true":
		return true
	}
	c := resp.StatusCode
	return c == http.StatusRequestTimeout || c == http.StatusConflict || c == http.StatusTooManyRequests || c >= 500
}

// advice is the wait resp asks for, if it asks.
func advice(resp *http.Response, now time.Time) (time.Duration, bool) {
	if v := resp.Header.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	if v := resp.Header.Get("retry-after"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
			return time.Duration(s * float64(time.Second)), true
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(0, t.Sub(now)), true
		}
	}
	return 0, false
}

// minWait is the shortest wait between two attempts.
const minWait = 50 * time.Millisecond

func backoff(n int) time.Duration {
	d := min(8*time.Second, time.Duration(float64(500*time.Millisecond)*float64(int(1)<<min(n, 5))))
	return d - time.Duration(rand.Int64N(int64(d/4)+1))
}

// middleware is the SDK middleware (outermost, so it sees the cost-cap mark).
func (rt *retrier) middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	start := rt.now()
	for n := 0; ; n++ {
		attempt := req.Clone(req.Context())
		if body != nil {
			attempt.Body = io.NopCloser(bytes.NewReader(body))
			attempt.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		rt.attempts++
		resp, err := next(attempt)
		if err != nil || !transient(resp) {
			return resp, err
		}
		wait, ok := advice(resp, rt.now())
		if !ok {
			wait = backoff(n)
		}
		wait = max(wait, minWait) // "retry-after: 0" from a server that stays down must not spin
		if rt.now().Add(wait).Sub(start) > rt.horizon {
			resp.Header.Set("x-should-retry", "false") // the SDK must not retry on its own either
			return resp, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) //nolint:errcheck
		resp.Body.Close()
		if !rt.sleep(req, wait) {
			return nil, req.Context().Err()
		}
	}
}
