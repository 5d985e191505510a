package worker_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// logLine returns the JSON log line whose msg is msg, failing when there is none.
func logLine(t *testing.T, out *bytes.Buffer, msg string) map[string]any {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %v\n%s", err, l)
		}
		if m["msg"] == msg {
			return m
		}
	}
	t.Fatalf("no %q line in the log:\n%s", msg, out)
	return nil
}

// The logger travels in the context: a line written deep in dispatching
// ("run dispatched") and one written by the finisher while it cancels the
// Actions run carry the keys their unit of work named once, at its top.
func TestUnitOfWorkLoggerReachesWhatItCalls(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, nil)
		var out bytes.Buffer
		f.log = slog.New(slog.NewJSONHandler(&out, nil))
		r := f.cancelledAfterDispatch(t, "")

		line := logLine(t, &out, "run dispatched")
		want := map[string]any{"run_id": float64(r.ID), "repo": repoName, "pr": float64(f.pr), "reviewer": "security"}
		for k, v := range want {
			if line[k] != v {
				t.Errorf("run dispatched: %s = %v, want %v (line %v)", k, line[k], v, line)
			}
		}
		out.Reset()
		f.finishTwice(t, f.finisher(t))
		line = logLine(t, &out, "Actions run of an ended run")
		if line["run_id"] != float64(r.ID) || line["actions_run_id"] != float64(r.ActionsRunID) {
			t.Errorf("finisher line: %v, want run_id %d and actions_run_id %d", line, r.ID, r.ActionsRunID)
		}
	})
}
