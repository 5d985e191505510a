package ghsimtest

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
)

// FaultKind is what an injected fault does.
type FaultKind int

const (
	// FaultServerError answers Status (default 502) with GitHub's error JSON.
	FaultServerError FaultKind = iota + 1
	// FaultRateLimit answers 429 with Retry-After.
	FaultRateLimit
	// FaultSecondaryRateLimit answers 403 with the secondary rate limit
	// message and Retry-After, as GitHub does.
	FaultSecondaryRateLimit
	// FaultPrimaryRateLimit answers 403 with X-RateLimit-Remaining: 0 and a
	// reset time (RetryAfter seconds away); on "POST /graphql", GitHub's
	// GraphQL answer instead: 200 with a RATE_LIMITED error (API.md).
	FaultPrimaryRateLimit
	// FaultLatency delays the request by Latency, then serves it.
	FaultLatency
	// FaultDrop hijacks the connection and closes it without an answer.
	FaultDrop
	// FaultAfterWrite serves the request (a write lands) and then answers
	// Status (default 502) instead of its answer, as GitHub can: a review
	// created and reported as 502 (prontolabs/pronto#302, API.md).
	FaultAfterWrite
	// FaultSpam answers GitHub's anti-spam refusal of content creation:
	// 422 (OpenAPI: "Validation failed, or the endpoint has been spammed")
	// with "was submitted too quickly" in its errors, as users report on
	// reviews and comments (anc95/ChatGPT-CodeReview#201, cli/cli#4801).
	// Nothing is written; the same request later goes through.
	FaultSpam
)

// Fault describes injected failures for matching requests.
type Fault struct {
	// Match selects requests by endpoint key ("POST /repos/{owner}/{repo}/check-runs",
	// "POST /graphql"); "*" matches any run of characters ("* /repos/*/pulls/*").
	Match string
	// Operation narrows a "POST /graphql" rule to requests whose operation
	// has this root field, named as GraphQLCalls counts them ("mutation
	// resolveReviewThread", "query repository"): a fault on the resolve
	// mutation leaves the thread listing alone. Empty: any GraphQL request.
	Operation string
	Kind      FaultKind
	// Rate is the probability (0..1] a matching request fails; 0 means 1.
	Rate float64
	// Times caps how many requests fail; 0 means unlimited.
	Times int
	// Status for FaultServerError (default 502).
	Status int
	// RetryAfter seconds for the rate limit kinds (default 1); on
	// FaultServerError, a Retry-After header when set.
	RetryAfter int
	// NoRetryAfter answers the rate limit kinds without a Retry-After header,
	// as GitHub may ("Otherwise, wait for at least one minute": API.md).
	NoRetryAfter bool
	// Latency for FaultLatency.
	Latency time.Duration
}

var _ ghsim.Interceptor = (*faults)(nil)

type faultRule struct {
	Fault
	hits int
}

// faults are one simulator's fault rules, its interceptor (ghsim.Interceptor).
type faults struct {
	sim   *ghsim.Sim
	mu    sync.Mutex
	rules []*faultRule
	rng   *rand.Rand
}

// faultsOf is sim's fault rules, set up as its interceptor the first time.
func faultsOf(sim *ghsim.Sim) *faults {
	if f, ok := sim.Interceptor().(*faults); ok {
		return f
	}
	f := &faults{sim: sim, rng: rand.New(rand.NewSource(sim.Seed()))}
	sim.SetInterceptor(f)
	return f
}

// InjectFault adds a fault rule to sim; rules are checked in order and the
// first that fires wins. Deterministic for a given Options.Seed and request
// order.
func InjectFault(sim *ghsim.Sim, f Fault) {
	fs := faultsOf(sim)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.rules = append(fs.rules, &faultRule{Fault: f})
}

// ClearFaults removes every fault rule of sim.
func ClearFaults(sim *ghsim.Sim) {
	fs := faultsOf(sim)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.rules = nil
}

// FaultHits reports how many times rule i of sim (in InjectFault order) fired.
func FaultHits(sim *ghsim.Sim, i int) int {
	fs := faultsOf(sim)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.rules[i].hits
}

func globMatch(pattern, s string) bool {
	if pattern == "*" {
		return true
	}
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i := 1; i < len(parts)-1; i++ {
		j := strings.Index(s, parts[i])
		if j < 0 {
			return false
		}
		s = s[j+len(parts[i]):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// graphQLKey is the key of every GraphQL request (ghsim's Calls).
const graphQLKey = "POST /graphql"

// Before fires the first matching rule; it returns true when the request
// was answered (or dropped).
func (fs *faults) Before(w http.ResponseWriter, r *http.Request, key string) bool {
	var ops map[string]bool
	if key == graphQLKey {
		ops = graphQLOperations(r)
	}
	fs.mu.Lock()
	var fired *faultRule
	for _, f := range fs.rules {
		if f.Kind == FaultAfterWrite || !globMatch(f.Match, key) || (f.Times > 0 && f.hits >= f.Times) {
			continue
		}
		if f.Operation != "" && !ops[f.Operation] {
			continue
		}
		if f.Rate > 0 && f.Rate < 1 && fs.rng.Float64() >= f.Rate {
			continue
		}
		f.hits++
		fired = f
		break
	}
	fs.mu.Unlock()
	if fired == nil {
		return false
	}
	retry := fired.RetryAfter
	if retry == 0 {
		retry = 1
	}
	switch fired.Kind {
	case FaultLatency:
		time.Sleep(fired.Latency)
		return false
	case FaultDrop:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return true
			}
		}
		panic(http.ErrAbortHandler)
	case FaultRateLimit:
		if !fired.NoRetryAfter {
			w.Header().Set("Retry-After", strconv.Itoa(retry))
		}
		writeJSON(w, http.StatusTooManyRequests, obj{"message": "API rate limit exceeded", "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api", "status": "429"})
	case FaultSecondaryRateLimit:
		if !fired.NoRetryAfter {
			w.Header().Set("Retry-After", strconv.Itoa(retry))
		}
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Remaining", "4990")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
		writeJSON(w, http.StatusForbidden, obj{"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID SIM.",
			"documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits", "status": "403"})
	case FaultPrimaryRateLimit:
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Used", "5000")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Duration(retry)*time.Second).Unix(), 10))
		if key == graphQLKey {
			w.Header().Set("X-RateLimit-Resource", "graphql")
			fs.sim.GraphQLRateLimited(w, r)
			return true
		}
		writeJSON(w, http.StatusForbidden, obj{"message": "API rate limit exceeded for installation ID 1.", "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api", "status": "403"})
	case FaultSpam:
		writeJSON(w, http.StatusUnprocessableEntity, obj{"message": "Unprocessable Entity", "errors": []string{"was submitted too quickly"},
			"documentation_url": "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request", "status": "422"})
	default:
		st := fired.Status
		if st == 0 {
			st = http.StatusBadGateway
		}
		if fired.RetryAfter > 0 {
			// GitHub may name when to come back on a 5xx too (RFC 9110
			// §10.2.3, Retry-After on 503).
			w.Header().Set("Retry-After", strconv.Itoa(fired.RetryAfter))
		}
		writeJSON(w, st, obj{"message": "Server Error", "status": strconv.Itoa(st)})
	}
	return true
}

// graphQLOperations are the root fields of a GraphQL request's operation
// ("mutation resolveReviewThread"), read without consuming its body; none
// when it does not parse (the handler answers that).
func graphQLOperations(r *http.Request) map[string]bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req struct {
		Query         string `json:"query"`
		OperationName string `json:"operationName"`
	}
	if err != nil || json.Unmarshal(body, &req) != nil {
		return nil
	}
	doc, perr := parser.ParseQuery(&ast.Source{Input: req.Query})
	if perr != nil {
		return nil
	}
	op := doc.Operations.ForName(req.OperationName)
	if op == nil && len(doc.Operations) > 0 {
		op = doc.Operations[0]
	}
	if op == nil {
		return nil
	}
	out := map[string]bool{}
	for _, sel := range op.SelectionSet {
		if f, ok := sel.(*ast.Field); ok {
			out[string(op.Operation)+" "+f.Name] = true
		}
	}
	return out
}

// After fires the first matching FaultAfterWrite rule and returns the
// status to answer instead of the handler's; 0 when none fires.
func (fs *faults) After(key string) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, f := range fs.rules {
		if f.Kind != FaultAfterWrite || !globMatch(f.Match, key) || (f.Times > 0 && f.hits >= f.Times) {
			continue
		}
		if f.Rate > 0 && f.Rate < 1 && fs.rng.Float64() >= f.Rate {
			continue
		}
		f.hits++
		if f.Status == 0 {
			return http.StatusBadGateway
		}
		return f.Status
	}
	return 0
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

type obj = map[string]any
