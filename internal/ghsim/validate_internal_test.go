package ghsim

import (
	"net/http"
	"strings"
	"testing"
)

// TestResponseValidationCatchesWrongShape feeds the response validator
// answers GitHub would never give.
func TestResponseValidationCatchesWrongShape(t *testing.T) {
	var errs []string
	s := New(Options{Validate: true, OnValidationError: func(err error) { errs = append(errs, err.Error()) }})
	defer s.Close()
	tests := []struct {
		name, method, path string
		status             int
		body, want         string
	}{
		{"missing required fields", "GET", "/repos/acme/widget/check-runs/1", 200, `{"id": 1}`, "does not match"},
		{"wrong type", "GET", "/repos/acme/widget/pulls/1/files", 200, `{"files": []}`, "does not match"},
		{"undeclared status", "POST", "/repos/acme/widget/check-runs", 418, `{"message":"teapot","documentation_url":"x"}`, "status is not supported"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs = nil
			r, _ := http.NewRequest(tc.method, s.URL()+strings.TrimPrefix(tc.path, "/"), nil)
			rec := &recorder{h: http.Header{"Content-Type": {"application/json"}}, status: tc.status}
			rec.body.WriteString(tc.body)
			s.validateResponse(r, tc.path, nil, rec)
			if len(errs) != 1 || !strings.Contains(errs[0], tc.want) {
				t.Fatalf("errors = %v", errs)
			}
		})
	}
}
