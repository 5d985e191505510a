package auth

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/chakshu-dev/chakshu/server"
)

// CodeRateLimited is the error code of a request refused by the per-token
// rate limit (HTTP 429 with Retry-After).
const CodeRateLimited = "RATE_LIMITED"

// tokenLimits is the per-API-token rate limit (CHAKSHU_API_TOKEN_RATE per
// minute, CHAKSHU_API_TOKEN_BURST at once): a token bucket per token, so a
// busy dashboard waits instead of starving the portal's sessions, which are
// not limited.
type tokenLimits struct {
	every time.Duration // one request's worth of refill; 0: unlimited
	burst int

	mu   sync.Mutex
	byID map[int]*tokenBucket
}

type tokenBucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// tokenBucketsKept bounds the map: past it, buckets idle long enough to have
// refilled are dropped (a dropped bucket comes back full, as it would be).
const tokenBucketsKept = 4096

func newTokenLimits(perMinute, burst int) *tokenLimits {
	t := &tokenLimits{burst: max(burst, 1), byID: map[int]*tokenBucket{}}
	if perMinute > 0 {
		t.every = time.Minute / time.Duration(perMinute)
	}
	return t
}

// wait reports how long token id must wait before a request at now is
// allowed; 0 means allowed now (and counted).
func (t *tokenLimits) wait(id int, now time.Time) time.Duration {
	if t == nil || t.every == 0 {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.byID[id]
	if b == nil {
		if len(t.byID) >= tokenBucketsKept {
			t.prune(now)
		}
		b = &tokenBucket{lim: rate.NewLimiter(rate.Every(t.every), t.burst)}
		t.byID[id] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now) // a refused request does not use up the token's allowance
		return d
	}
	return 0
}

// prune drops buckets unused for long enough to be full again.
func (t *tokenLimits) prune(now time.Time) {
	full := t.every * time.Duration(t.burst)
	for id, b := range t.byID {
		if now.Sub(b.seen) >= full {
			delete(t.byID, id)
		}
	}
}

// rateLimited answers 429 in both the HTTP and the GraphQL error shape, with
// Retry-After in whole seconds (rounded up, at least 1).
func rateLimited(w http.ResponseWriter, wait time.Duration) {
	secs := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	msg := fmt.Sprintf("API token rate limit exceeded; retry after %d s (CHAKSHU_API_TOKEN_RATE)", secs)
	server.WriteJSON(w, http.StatusTooManyRequests, map[string]any{
		"error":  server.ErrorDetail{Code: CodeRateLimited, Message: msg},
		"errors": []map[string]any{{"message": msg, "extensions": map[string]any{"code": CodeRateLimited, "retryAfterSeconds": secs}}},
	})
}
