package graph

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Run.checked keeps its map shape, built from the run's stored result; null for a reply run and a run
// without a result.
func TestRunChecked(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		typed := e.seedRun(e.repoA, e.revSec, e.prA, run.StatusSucceeded, 1, 1000, 0)
		typed.Update().SetResult(&findings.Stored{Review: &findings.Result{Findings: []findings.Finding{}}, Checked: &findings.Coverage{
			Files: []string{"a.go"}, Skills: []string{"go"}, FilesRead: []string{"a.go", "b.go"},
			Evidence: &findings.RunnerEvidence{Kept: 1, Dropped: 1, DroppedFindings: []findings.DroppedFinding{{Path: "a.go", Line: 3, Title: "T", Reason: "R"}}},
			Samples:  &findings.Samples{Passes: 3, Ran: 2, Agree: 2, PassFindings: []int{1, 2}, Distinct: 2, Kept: 1, Dropped: 1},
		}}).ExecX(ctx)
		reply := e.seedRun(e.repoA, e.revSec, e.prA, run.StatusSucceeded, 1, 1000, 0)
		reply.Update().SetKind(run.KindReply).SetResult(&findings.Stored{Reply: &findings.ReplyResult{Reply: "Fixed.", Verdict: findings.VerdictFixed}}).ExecX(ctx)
		none := e.seedRun(e.repoA, e.revSec, e.prA, run.StatusFailed, 1, 1000, 0)

		c := e.login("alice")
		checked := func(id int) map[string]any {
			t.Helper()
			r := c.do(`query($id: ID!) { run(id: $id) { checked } }`, map[string]any{"id": id})
			r.ok(t)
			var d struct {
				Run struct{ Checked map[string]any }
			}
			r.into(t, &d)
			return d.Run.Checked
		}
		want := map[string]any{"files": []any{"a.go"}, "skills": []any{"go"}, "files_read": []any{"a.go", "b.go"},
			"evidence": map[string]any{"kept": 1.0, "moved": 0.0, "dropped": 1.0, "unchecked": 0.0,
				"dropped_findings": []any{map[string]any{"path": "a.go", "line": 3.0, "title": "T", "reason": "R"}}},
			"samples": map[string]any{"passes": 3.0, "ran": 2.0, "agree": 2.0, "pass_findings": []any{1.0, 2.0}, "distinct": 2.0, "kept": 1.0, "dropped": 1.0}}
		if d := cmp.Diff(want, checked(typed.ID)); d != "" {
			t.Errorf("typed run's checked (-want +got):\n%s", d)
		}
		if got := checked(reply.ID); got != nil {
			t.Errorf("reply run's checked = %v, want null", got)
		}
		if got := checked(none.ID); got != nil {
			t.Errorf("checked of a run without a result = %v, want null", got)
		}
	})
}
