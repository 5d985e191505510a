package gh

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy shapes retries of GitHub calls (DESIGN §3): 5xx, 429, secondary
// rate limits and network errors, 3 attempts in all, honouring Retry-After and
// x-ratelimit-reset.
type RetryPolicy struct {
	// Attempts in all, including the first; default 3.
	Attempts int
	// BaseDelay before the second attempt, doubling after; default 1s.
	BaseDelay time.Duration
	// MaxDelay caps any single wait, including a server-asked one; default 60s.
	MaxDelay time.Duration
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Attempts <= 0 {
		p.Attempts = 3
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = time.Second
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 60 * time.Second
	}
	return p
}

// RetryTransport retries what GitHub asks to be retried. A rate-limit
// answer, or a 5xx with a Retry-After, asking to wait longer than
// InlineWait is returned at once, with
// the wait GitHub's rules give as its Retry-After (see askedWait), so the
// caller can put its work back with a due time (WaitFor): a request never
// sleeps past its own timeout.
type RetryTransport struct {
	Base   http.RoundTripper
	Policy RetryPolicy
	// Sleep waits; tests may replace it. nil means a context-aware timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	hits secondaryHits
}

// RoundTrip implements http.RoundTripper.
func (t *RetryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	p := t.Policy.withDefaults()
	var body []byte
	if req.Body != nil && req.GetBody == nil {
		b, err := io.ReadAll(io.LimitReader(req.Body, 64<<20))
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	var resp *http.Response
	var err error
	for attempt := 1; ; attempt++ {
		r := req.Clone(req.Context())
		switch {
		case body != nil:
			r.Body = io.NopCloser(bytes.NewReader(body))
		case req.GetBody != nil && attempt > 1:
			if r.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		resp, err = t.Base.RoundTrip(r)
		// Consecutive secondary limits of one request (credential, method,
		// path) wait longer each time; its success ends the run of them.
		key := req.Header.Get("Authorization") + " " + req.Method + " " + req.URL.Path
		if err == nil && isGraphQL(req) {
			// GraphQL's rate limits come as a 200 with an error, or a 403.
			if lim := t.graphQLLimited(resp, key, t.now()); lim != nil {
				resp.Body.Close()
				d := lim.Until.Sub(t.now())
				if d > InlineWait || attempt >= p.Attempts {
					return nil, lim
				}
				if serr := t.sleep(req.Context(), min(max(d, 0), p.MaxDelay)); serr != nil {
					return nil, serr
				}
				continue
			}
		}
		if err == nil && resp.StatusCode < 400 {
			t.hits.clear(key)
		}
		if err == nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusForbidden ||
			resp.StatusCode == http.StatusUnprocessableEntity) {
			d, limited := t.rateLimited(resp, key)
			if !limited {
				return resp, nil // a permission refusal or a validation failure
			}
			if d > InlineWait || attempt >= p.Attempts {
				return resp, nil
			}
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) //nolint:errcheck
			resp.Body.Close()
			if serr := t.sleep(req.Context(), min(d, p.MaxDelay)); serr != nil {
				return nil, serr
			}
			continue
		}
		if err == nil && resp.StatusCode >= 500 && serverAsked(resp) > InlineWait {
			// GitHub asks to come back later than a request may wait
			// inside its timeout: the caller puts its work back (WaitFor).
			return resp, nil
		}
		wait, retry := t.shouldRetry(resp, err, attempt, p)
		if retry && CreatesContent(req) && mayHaveLanded(resp, err) {
			// GitHub may have created it and still failed the answer
			// (prontolabs/pronto#302): the write port looks before resending.
			retry = false
		}
		if !retry || attempt >= p.Attempts {
			return resp, err
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) //nolint:errcheck
			resp.Body.Close()
		}
		if serr := t.sleep(req.Context(), wait); serr != nil {
			return nil, serr
		}
	}
}

func (t *RetryTransport) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func (t *RetryTransport) sleep(ctx context.Context, d time.Duration) error {
	if t.Sleep != nil {
		return t.Sleep(ctx, d)
	}
	return Sleep(ctx, d)
}

// rateLimited reads a 403 or 429: whether it is a rate limit and the wait
// GitHub's rules ask for, which it also sets as the answer's Retry-After
// (a secondary limit without one waits a minute, doubling while that
// request keeps meeting them).
func (t *RetryTransport) rateLimited(resp *http.Response, key string) (time.Duration, bool) {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	now := time.Now()
	if t.Now != nil {
		now = t.Now()
	}
	d, secondary, ok := askedWait(resp, body, 1, now)
	if !ok {
		return 0, false
	}
	if secondary {
		d = growing(t.hits.hit(key))
	}
	if resp.Header.Get("Retry-After") == "" {
		resp.Header.Set("Retry-After", strconv.Itoa(int((d+time.Second-1)/time.Second)))
		if secondary {
			resp.Header.Set(SyntheticRetryAfter, "1")
		}
	}
	return d, true
}

func (t *RetryTransport) shouldRetry(resp *http.Response, err error, attempt int, p RetryPolicy) (time.Duration, bool) {
	backoff := p.BaseDelay << (attempt - 1)
	if backoff > p.MaxDelay {
		backoff = p.MaxDelay
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return 0, false
		}
		return backoff, true
	}
	switch {
	case resp.StatusCode >= 500:
		return serverWait(resp, backoff, p.MaxDelay), true
	case resp.StatusCode == http.StatusTooManyRequests:
		return serverWait(resp, backoff, p.MaxDelay), true
	case resp.StatusCode == http.StatusForbidden &&
		(resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-Ratelimit-Remaining") == "0"):
		return serverWait(resp, backoff, p.MaxDelay), true
	}
	return 0, false
}

// CreatesContent reports a content-creating POST (a review, an issue or
// review comment, a reply, a check run): sent twice, it posts twice.
func CreatesContent(req *http.Request) bool {
	if req.Method != http.MethodPost {
		return false
	}
	p := strings.TrimSuffix(req.URL.Path, "/")
	for _, s := range []string{"/reviews", "/comments", "/replies", "/check-runs"} {
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	return false
}

// mayHaveLanded: a 5xx or no answer at all may follow a performed write; a
// rate-limit refusal (429, 403) was not performed.
func mayHaveLanded(resp *http.Response, err error) bool {
	return err != nil || resp.StatusCode >= 500
}

// serverAsked is the answer's Retry-After in seconds; 0 without one.
func serverAsked(resp *http.Response) time.Duration {
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 0
}

// serverWait is what the server asked for (Retry-After seconds, or the
// rate-limit reset time), else the backoff; capped at max.
func serverWait(resp *http.Response, backoff, max time.Duration) time.Duration {
	d := backoff
	if v := resp.Header.Get("Retry-After"); v != "" {
		if s, err := strconv.Atoi(v); err == nil && s >= 0 {
			d = time.Duration(s) * time.Second
		}
	} else if resp.Header.Get("X-Ratelimit-Remaining") == "0" {
		if v, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64); err == nil {
			d = time.Until(time.Unix(v, 0)) + time.Second
		}
	}
	if d < 0 {
		d = 0
	}
	if d > max {
		d = max
	}
	return d
}

// Sleep waits d, or until ctx ends (its error is returned then).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
