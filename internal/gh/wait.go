package gh

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v88/github"
)

// InlineWait is the longest a request waits for GitHub inside its own
// timeout. GitHub asking for longer goes back to the caller, which puts its
// work item back with a due time and frees the worker (DESIGN §3).
const InlineWait = 5 * time.Second

// Secondary limits without Retry-After: GitHub asks for at least a minute,
// then exponentially longer while the limit keeps answering ("Rate limits
// for the REST API", "Best practices for using the REST API").
const (
	secondaryFirst = time.Minute
	secondaryMax   = 32 * time.Minute
)

// askedWait is how long GitHub's rate-limit answer asks to wait, following
// GitHub's documented rules: Retry-After when present; x-ratelimit-remaining
// 0 means until x-ratelimit-reset; any other secondary limit (a 429, or a 403
// saying so) at least a minute, growing with each consecutive one (hits, 1
// for the first). ok is false for an answer that is not a rate limit.
func askedWait(resp *http.Response, body []byte, hits int, now time.Time) (d time.Duration, secondary, ok bool) {
	if resp.StatusCode == http.StatusUnprocessableEntity {
		if !Spammed(body) {
			return 0, false, false // a validation failure
		}
		return growing(hits), true, true
	}
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusForbidden {
		return 0, false, false
	}
	if v := resp.Header.Get("Retry-After"); v != "" {
		if s, err := strconv.Atoi(v); err == nil && s >= 0 {
			return time.Duration(s) * time.Second, false, true
		}
	}
	if resp.Header.Get("X-Ratelimit-Remaining") == "0" {
		if v, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64); err == nil {
			return max(0, time.Unix(v, 0).Sub(now)+time.Second), false, true
		}
	}
	if resp.StatusCode == http.StatusForbidden && !strings.Contains(strings.ToLower(string(body)), "secondary rate limit") {
		return 0, false, false // a permission refusal
	}
	return growing(hits), true, true
}

func growing(hits int) time.Duration {
	if hits < 1 {
		hits = 1
	}
	d := time.Duration(float64(secondaryFirst) * math.Pow(2, float64(hits-1)))
	return min(d, secondaryMax)
}

// secondaryHits counts consecutive secondary limits without Retry-After per
// request (an installation's token, method and path), so the wait grows
// while that request keeps failing ("wait for an exponentially increasing
// amount of time between retries").
type secondaryHits struct {
	mu sync.Mutex
	n  map[string]int
}

func (h *secondaryHits) hit(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == nil {
		h.n = map[string]int{}
	}
	h.n[key]++
	return h.n[key]
}

func (h *secondaryHits) clear(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.n, key)
}

// WaitFor reports that err is GitHub asking to wait, and until when: a
// primary limit until its reset, a secondary limit as the transport
// computed it (Retry-After, set on every rate-limit answer it returns), a
// 5xx with a Retry-After until then.
func WaitFor(err error, now time.Time) (time.Time, bool) {
	var we *WaitError
	if errors.As(err, &we) {
		return we.Until, true
	}
	var gl *GraphQLRateLimitError
	if errors.As(err, &gl) {
		return gl.Until, true
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		if reset := rl.Rate.Reset.Time; !reset.IsZero() {
			return maxTime(now, reset.Add(time.Second)), true
		}
		if rl.Response != nil {
			return retryAfter(rl.Response, now), true
		}
		return now.Add(secondaryFirst), true
	}
	var arl *github.AbuseRateLimitError
	if errors.As(err, &arl) {
		if arl.RetryAfter != nil {
			return now.Add(*arl.RetryAfter), true
		}
		return now.Add(secondaryFirst), true
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && (limitAnswer(er.Response) || Unavailable(err)) {
		return retryAfter(er.Response, now), true
	}
	return time.Time{}, false
}

// Unavailable reports a 5xx that says when to come back (Retry-After): a
// wait like a rate limit's, not a failure (the transport sleeps only
// waits up to InlineWait).
func Unavailable(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode >= 500 && serverAsked(er.Response) > 0
}

// limitAnswer is a 429, or a 403 or 422 that carries a Retry-After
// (GitHub's, or the transport's for a secondary limit whose
// documentation_url go-github does not recognise, or for GitHub's
// anti-spam 422); a 403 without one is a permission refusal, a 422 a
// validation failure.
func limitAnswer(resp *http.Response) bool {
	return resp != nil && (resp.StatusCode == http.StatusTooManyRequests ||
		(resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnprocessableEntity) && resp.Header.Get("Retry-After") != "")
}

// Spammed reports GitHub's anti-spam refusal in a 422's body: content
// created too fast ("was submitted too quickly", as users report on
// reviews and comments: anc95/ChatGPT-CodeReview#201, cli/cli#4801; the
// OpenAPI description of the 422 reads "Validation failed, or the
// endpoint has been spammed"). It is a secondary rate limit, not a
// request to change: the same request goes through later.
func Spammed(body []byte) bool {
	b := strings.ToLower(string(body))
	return strings.Contains(b, "submitted too quickly") || strings.Contains(b, "endpoint has been spammed")
}

func retryAfter(resp *http.Response, now time.Time) time.Time {
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
		return now.Add(time.Duration(s) * time.Second)
	}
	return now.Add(secondaryFirst)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// WaitError is a write held back before it reached GitHub: the
// installation's content budget is spent (pacing), or GitHub asked every
// process to wait (a recorded rate limit). WaitFor reports its Until.
type WaitError struct {
	Until time.Time
	// Reason is a safe sentence for logs and the run's timeline.
	Reason string
	// Err is GitHub's answer that started the wait; nil when GitHub was
	// not asked.
	Err error
	// Paced: the installation's content budget is spent (Chakshu's own
	// pacing), not a wait GitHub asked for.
	Paced bool
}

func (e *WaitError) Error() string {
	if e.Err != nil {
		return e.Reason + ": " + e.Err.Error()
	}
	return e.Reason
}

func (e *WaitError) Unwrap() error { return e.Err }

// SyntheticRetryAfter marks an answer whose Retry-After the transport set
// itself: GitHub sent a secondary limit without one, so the wait grows with
// each consecutive limit (the write port keeps that count per installation,
// so every process honours it).
const SyntheticRetryAfter = "X-Chakshu-Retry-After"

// Secondary reports a secondary rate limit GitHub answered without a
// Retry-After (the wait is at least a minute, growing), as opposed to a
// primary limit or a secondary one naming its wait.
func Secondary(err error) (noRetryAfter, ok bool) {
	var gl *GraphQLRateLimitError
	if errors.As(err, &gl) {
		return gl.Growing, !gl.Primary
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		return false, false
	}
	var resp *http.Response
	var arl *github.AbuseRateLimitError
	var er *github.ErrorResponse
	switch {
	case errors.As(err, &arl):
		resp = arl.Response
	case errors.As(err, &er) && limitAnswer(er.Response):
		resp = er.Response
	default:
		return false, false
	}
	return resp != nil && resp.Header.Get(SyntheticRetryAfter) != "", true
}

// Primary reports GitHub's primary rate limit (x-ratelimit-remaining 0):
// nothing may be sent until its reset.
func Primary(err error) bool {
	var gl *GraphQLRateLimitError
	if errors.As(err, &gl) {
		return gl.Primary
	}
	var rl *github.RateLimitError
	return errors.As(err, &rl)
}

// Growing is the wait after the hits-th consecutive secondary limit without
// Retry-After: 60 s, 120 s, 240 s … at most 32 minutes.
func Growing(hits int) time.Duration { return growing(hits) }

// Paced reports a wait that is Chakshu's own pacing of content creation.
func Paced(err error) bool {
	var we *WaitError
	return errors.As(err, &we) && we.Paced
}
