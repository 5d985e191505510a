package ghsimtest

import (
	"testing"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
)

// New starts a validating simulator that closes when t ends and fails t for
// every validation error (an unknown endpoint, a request or response that
// does not match GitHub's description, an invalid GraphQL document).
func New(t testing.TB, opts ...ghsim.Options) *ghsim.Sim {
	t.Helper()
	var o ghsim.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	o.Validator = Spec{}
	prev := o.OnValidationError
	o.OnValidationError = func(err error) {
		t.Errorf("ghsim: %v", err)
		if prev != nil {
			prev(err)
		}
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	s := ghsim.New(o)
	t.Cleanup(s.Close)
	return s
}
