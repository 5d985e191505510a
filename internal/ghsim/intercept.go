package ghsim

import "net/http"

// Interceptor sees the simulator's API requests before and after they are
// served: the tests' fault injection (ghsimtest.InjectFault) is one. The
// simulator itself injects no faults.
type Interceptor interface {
	// Before may answer the request to endpoint key ("GET
	// /repos/{owner}/{repo}", "POST /graphql") itself, or drop it; it
	// returns true when it did, and the simulator serves nothing.
	Before(w http.ResponseWriter, r *http.Request, key string) bool
	// After is asked once a request to key was served (a write landed): a
	// status to answer instead of the served answer, or 0.
	After(key string) int
}

// SetInterceptor makes i see every API request from now on.
func (s *Sim) SetInterceptor(i Interceptor) { s.intercept.Store(&i) }

// Interceptor is the one SetInterceptor set, or nil.
func (s *Sim) Interceptor() Interceptor {
	if p := s.intercept.Load(); p != nil {
		return *p
	}
	return nil
}

// Seed is Options.Seed, for an interceptor's deterministic choices.
func (s *Sim) Seed() int64 { return s.opts.Seed }

// GraphQLRateLimited answers r as GitHub's GraphQL endpoint does once the
// installation's primary rate limit is spent (API.md "Rate limits"): 200
// with a RATE_LIMITED error.
func (s *Sim) GraphQLRateLimited(w http.ResponseWriter, r *http.Request) {
	s.graphQLPrimaryAnswer(w, s.installationOf(r))
}

func (s *Sim) before(w http.ResponseWriter, r *http.Request, key string) bool {
	i := s.Interceptor()
	return i != nil && i.Before(w, r, key)
}

func (s *Sim) after(key string) int {
	if i := s.Interceptor(); i != nil {
		return i.After(key)
	}
	return 0
}
