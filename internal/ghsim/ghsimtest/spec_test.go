package ghsimtest

import (
	"net/http"
	"strings"
	"testing"
)

// TestResponseValidationCatchesWrongShape feeds the response validator
// answers GitHub would never give.
func TestResponseValidationCatchesWrongShape(t *testing.T) {
	tests := []struct {
		name, method, template, path string
		params                       map[string]string
		status                       int
		body, want                   string
	}{
		{"missing required fields", "GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}", "/repos/acme/widget/check-runs/1",
			map[string]string{"owner": "acme", "repo": "widget", "check_run_id": "1"}, 200, `{"id": 1}`, "doesn't match"},
		{"wrong type", "GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files", "/repos/acme/widget/pulls/1/files",
			map[string]string{"owner": "acme", "repo": "widget", "pull_number": "1"}, 200, `{"files": []}`, "doesn't match"},
		{"undeclared status", "POST", "/repos/{owner}/{repo}/check-runs", "/repos/acme/widget/check-runs",
			map[string]string{"owner": "acme", "repo": "widget"}, 418, `{"message":"teapot","documentation_url":"x"}`, "status is not supported"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := http.NewRequest(tc.method, "http://127.0.0.1/api/v3"+tc.path, nil)
			err := Spec{}.Response(r, tc.method, tc.template, tc.params, nil, tc.status,
				http.Header{"Content-Type": {"application/json"}}, []byte(tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one saying %q", err, tc.want)
			}
		})
	}
}
