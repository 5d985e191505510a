package examples

import "testing"

func TestExamplesCoverChakshuEvents(t *testing.T) {
	for _, tc := range []struct{ event, action string }{
		{"issue_comment", "created"}, {"pull_request", "opened"}, {"pull_request", "synchronize"},
		{"pull_request_review_comment", "created"}, {"workflow_run", "completed"}, {"installation", "created"}, {"push", ""},
	} {
		t.Run(tc.event+"."+tc.action, func(t *testing.T) {
			var got []Example
			var err error
			if tc.action == "" {
				got, err = Of(tc.event)
			} else {
				got, err = Of(tc.event, tc.action)
			}
			if err != nil || len(got) == 0 {
				t.Fatalf("examples = %d, %v", len(got), err)
			}
		})
	}
}
