package ghsim

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limits turns on the realistic mode: GitHub's rate limits, enforced per
// installation as GitHub documents them (API.md "Rate limits"). The
// benchmarks and the soak run against it, with Minute and Hour compressed.
type Limits struct {
	// Primary is the requests an installation may make per Hour (GitHub:
	// 5,000 for an installation on a plan without more). Every answer
	// carries x-ratelimit-limit, -remaining, -used, -reset and -resource;
	// past it GitHub answers 403 with x-ratelimit-remaining 0. 0: none.
	Primary int
	// GraphQLPrimary is the points an installation may spend on the GraphQL
	// API per Hour, a quota of its own (GitHub: 5,000 points per hour for an
	// installation, more for large ones, up to 12,500). Every query costs 1
	// point, GitHub's minimum (Chakshu's queries are small: no connection
	// asks for more than 100 nodes). Every GraphQL answer carries the
	// x-ratelimit headers with resource graphql; past the quota the answer
	// is 200 with a RATE_LIMITED error and x-ratelimit-remaining 0. 0: none.
	GraphQLPrimary int
	// ContentPerMinute and ContentPerHour cap content-creating requests per
	// installation (GitHub: "in general, no more than 80 content-generating
	// requests per minute and no more than 500 per hour"); past them the
	// answer is a secondary rate limit. 0: none.
	ContentPerMinute, ContentPerHour int
	// MaxConcurrent caps the requests in flight at once (GitHub: 100,
	// shared by REST and GraphQL); one more is a secondary rate limit. 0: none.
	MaxConcurrent int
	// Status answers a secondary limit: 403 (the default, GitHub's usual
	// answer) or 429 ("403 or 429").
	Status int
	// RetryAfter is the Retry-After seconds a secondary limit carries; 0
	// sends none (GitHub: "If the retry-after response header is present …
	// Otherwise, wait for at least one minute").
	RetryAfter int
	// Minute and Hour are the simulator's minute and hour: compressed time
	// for benchmarks (0: real time).
	Minute, Hour time.Duration
	// Latency is how long each API answer takes (0: none).
	Latency time.Duration
}

// Refusals counts what the realistic mode refused.
type Refusals struct {
	// Secondary: content-creation and concurrency limits.
	Secondary int
	// Concurrent: of Secondary, those for too many requests at once.
	Concurrent int
	// Primary: requests past an installation's hourly quota.
	Primary int
}

// limiter is the realistic mode's state.
type limiter struct {
	Limits
	mu       sync.Mutex
	inflight int
	quota    map[int64]*quota
	gqlQuota map[int64]*quota
	content  map[int64][]time.Time // content-creating requests kept for an Hour
	refused  Refusals
}

type quota struct {
	used  int
	reset time.Time
}

func newLimiter(l *Limits) *limiter {
	if l == nil {
		return nil
	}
	lm := &limiter{Limits: *l, quota: map[int64]*quota{}, gqlQuota: map[int64]*quota{}, content: map[int64][]time.Time{}}
	if lm.Minute <= 0 {
		lm.Minute = time.Minute
	}
	if lm.Hour <= 0 {
		lm.Hour = time.Hour
	}
	if lm.Status == 0 {
		lm.Status = http.StatusForbidden
	}
	return lm
}

// Refused reports what the realistic mode refused so far (zero without it).
func (s *Sim) Refused() Refusals {
	if s.limits == nil {
		return Refusals{}
	}
	s.limits.mu.Lock()
	defer s.limits.mu.Unlock()
	return s.limits.refused
}

// createsContent is a content-generating request: a REST POST that makes
// something (a check run, a review, a comment, a reply, a workflow run), not
// a token or a delivery redelivery.
func createsContent(method, key string) bool {
	return method == http.MethodPost && !strings.Contains(key, "/access_tokens") && !strings.Contains(key, "/hook/deliveries")
}

// installationOf is the installation a request's token acts for; 0 for the
// App's JWT and anonymous calls.
func (s *Sim) installationOf(r *http.Request) int64 {
	f := strings.Fields(r.Header.Get("Authorization"))
	if len(f) != 2 {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tokens[f[1]]; t != nil {
		return t.inst
	}
	return 0
}

// admit applies the realistic limits to one API request (REST, or GraphQL
// under graphQLKey: the concurrency cap they share, and the installation's
// GraphQL points). It returns a
// release func to call when the answer is sent, and false when it answered
// the request with a refusal itself.
func (s *Sim) admit(w http.ResponseWriter, r *http.Request, key string) (func(), bool) {
	lm := s.limits
	if lm == nil {
		return func() {}, true
	}
	inst := s.installationOf(r)
	now := s.opts.Now()
	lm.mu.Lock()
	defer lm.mu.Unlock()
	if s.tooMany(w) {
		return nil, false
	}
	// GraphQL spends points from a quota of its own (GraphQLPrimary).
	graphQL := key == graphQLKey
	quotas, limit, resource := lm.quota, lm.Primary, "core"
	if graphQL {
		quotas, limit, resource = lm.gqlQuota, lm.GraphQLPrimary, "graphql"
	}
	if inst != 0 && limit > 0 && !lm.spend(w.Header(), quotas, inst, limit, resource, now) {
		lm.refused.Primary++
		if graphQL {
			s.graphQLPrimaryAnswer(w, inst)
		} else {
			writeJSON(w, http.StatusForbidden, obj{"message": "API rate limit exceeded for installation ID " + strconv.FormatInt(inst, 10) + ".",
				"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api", "status": "403"})
		}
		return nil, false
	}
	if inst != 0 && !graphQL && createsContent(r.Method, key) && (lm.ContentPerMinute > 0 || lm.ContentPerHour > 0) {
		kept := lm.content[inst][:0]
		perMinute := 0
		for _, t := range lm.content[inst] {
			if now.Sub(t) < lm.Hour {
				kept = append(kept, t)
				if now.Sub(t) < lm.Minute {
					perMinute++
				}
			}
		}
		lm.content[inst] = kept
		if lm.ContentPerMinute > 0 && perMinute >= lm.ContentPerMinute || lm.ContentPerHour > 0 && len(kept) >= lm.ContentPerHour {
			lm.refused.Secondary++
			s.contentAnswer(w)
			return nil, false
		}
		lm.content[inst] = append(kept, now)
	}
	return lm.enter(), true
}

// tooMany answers a request past the concurrency cap REST and GraphQL share
// with a secondary limit (lm.mu held).
func (s *Sim) tooMany(w http.ResponseWriter) bool {
	lm := s.limits
	if lm.MaxConcurrent > 0 && lm.inflight >= lm.MaxConcurrent {
		lm.refused.Secondary++
		lm.refused.Concurrent++
		s.secondaryAnswer(w)
		return true
	}
	return false
}

// spend takes a request from inst's quota in quotas (limit per Hour) and
// sets the x-ratelimit headers of resource on h; false, with remaining 0,
// when the quota is spent (lm.mu held).
func (lm *limiter) spend(h http.Header, quotas map[int64]*quota, inst int64, limit int, resource string, now time.Time) bool {
	q := quotas[inst]
	if q == nil || !now.Before(q.reset) {
		q = &quota{reset: now.Add(lm.Hour)}
		quotas[inst] = q
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(ceilUnix(q.reset), 10))
	h.Set("X-RateLimit-Resource", resource)
	if q.used >= limit {
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Used", strconv.Itoa(q.used))
		return false
	}
	q.used++
	h.Set("X-RateLimit-Remaining", strconv.Itoa(limit-q.used))
	h.Set("X-RateLimit-Used", strconv.Itoa(q.used))
	return true
}

// enter counts a request in flight until the returned release (lm.mu held).
func (lm *limiter) enter() func() {
	lm.inflight++
	return func() {
		lm.mu.Lock()
		lm.inflight--
		lm.mu.Unlock()
	}
}

// graphQLKey is the Calls() and Fault.Match key of every GraphQL request.
const graphQLKey = "POST /graphql"

// graphQLPrimaryAnswer is GitHub's answer to a GraphQL request past the
// installation's points (API.md, GraphQL rate limits): 200 with the error in
// the body; the caller set x-ratelimit-remaining 0 and the reset.
func (s *Sim) graphQLPrimaryAnswer(w http.ResponseWriter, inst int64) {
	writeJSON(w, http.StatusOK, obj{"errors": []any{obj{"type": "RATE_LIMITED", "code": "graphql_rate_limit",
		"message": "API rate limit exceeded for installation ID " + strconv.FormatInt(inst, 10) + "."}}})
}

func ceilUnix(t time.Time) int64 {
	u := t.Unix()
	if t.Nanosecond() > 0 {
		u++
	}
	return u
}

// secondaryAnswer is GitHub's secondary rate limit answer (API.md).
func (s *Sim) secondaryAnswer(w http.ResponseWriter) {
	lm := s.limits
	if lm.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(lm.RetryAfter))
	}
	writeJSON(w, lm.Status, obj{"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID SIM.",
		"documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits", "status": strconv.Itoa(lm.Status)})
}

// contentAnswer is the secondary limit GitHub answers content creation with
// (pl-strflt/projects-migration#2, API.md).
func (s *Sim) contentAnswer(w http.ResponseWriter) {
	lm := s.limits
	if lm.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(lm.RetryAfter))
	}
	writeJSON(w, lm.Status, obj{"message": "You have exceeded a secondary rate limit and have been temporarily blocked from content creation. Please retry your request again later.",
		"documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits", "status": strconv.Itoa(lm.Status)})
}
