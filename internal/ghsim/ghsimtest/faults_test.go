package ghsimtest

import "testing"

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "GET /anything", true},
		{"GET /repos/{owner}/{repo}", "GET /repos/{owner}/{repo}", true},
		{"GET /repos/{owner}/{repo}", "GET /repos/{owner}/{repo}/pulls", false},
		{"GET /repos/*", "GET /repos/{owner}/{repo}/pulls", true},
		{"* /repos/*/pulls/*", "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews", true},
		{"* /repos/*/pulls/*", "POST /repos/{owner}/{repo}/check-runs", false},
		{"POST /graphql", "POST /graphql", true},
	}
	for _, tc := range tests {
		t.Run(tc.pattern+"|"+tc.s, func(t *testing.T) {
			if got := globMatch(tc.pattern, tc.s); got != tc.want {
				t.Errorf("globMatch = %v", got)
			}
		})
	}
}
