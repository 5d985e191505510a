package runnerapi

import (
	"context"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// A runner of protocol 2 reports findings with evidence and its evidence
// check; the run's checked map keeps the counts and the dropped findings
// (redacted). A runner of protocol 1 (no protocol, no evidence) is still
// accepted: TestJobLifecycle.
func TestResultEvidenceRecorded(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		rn := w.dispatch(run.KindReview)
		st, job, e := w.fetchJob(rn, w.token(rn))
		if st != 200 {
			t.Fatalf("job: %d %+v", st, e)
		}
		result := strings.Replace(validResult, `"body":"Use subtle.ConstantTimeCompare."`, `"body":"Use subtle.ConstantTimeCompare.","evidence":"if token == want {","evidence_moved_from":7`, 1)
		report := `{"result":` + result + `,"stats":{},"protocol":2,"evidence":{"kept":0,"moved":1,"dropped":1,"dropped_findings":[` +
			`{"path":"auth/login.go","line":9,"title":"Key ghp_abcdefghijklmnopqrstuvwxyz0123 in code","evidence":"x","reason":"evidence not in file"}]}}`
		var ack runnerproto.ReportAck
		if st := w.do(runPath(runnerproto.PathResult, rn.ID), report, bearer(job.RunToken), &ack); st != 200 {
			t.Fatalf("status %d", st)
		}
		got := db.Run.GetX(ctx, rn.ID)
		if got.Status != run.StatusPublishing || !strings.Contains(got.ResultJSON, `"evidence_moved_from":7`) {
			t.Fatalf("run %s, result %s", got.Status, got.ResultJSON)
		}
		ev, ok := got.Checked["evidence"].(map[string]any)
		if !ok {
			t.Fatalf("checked = %v", got.Checked)
		}
		if counts, ok := runnerproto.EvidenceFromChecked(got.Checked); !ok || counts.Kept != 0 || counts.Moved != 1 || counts.Dropped != 1 || counts.Unchecked != 0 {
			t.Fatalf("evidence counts %+v (%v)", counts, ev)
		}
		dropped := ev["dropped_findings"].([]any)[0].(map[string]any)
		if dropped["reason"] != "evidence not in file" || strings.Contains(dropped["title"].(string), "ghp_") || dropped["line"].(float64) != 9 {
			t.Fatalf("dropped finding stored as %v", dropped)
		}
	})
}

// The runner's counts and dropped list are bounded by what a result can hold.
func TestEvidenceRecordBounded(t *testing.T) {
	many := make([]runnerproto.DroppedFinding, findings.MaxFindings+1)
	rec := evidenceRecord(&runnerproto.EvidenceReport{Kept: -1, Moved: findings.MaxFindings, Dropped: findings.MaxFindings + 1, DroppedFindings: many})
	if rec["kept"] != 0 || rec["moved"] != findings.MaxFindings || rec["dropped"] != findings.MaxFindings {
		t.Fatalf("counts %v", rec)
	}
	if n := len(rec["dropped_findings"].([]any)); n != findings.MaxFindings {
		t.Fatalf("%d dropped findings stored, want %d", n, findings.MaxFindings)
	}
	if evidenceRecord(nil) != nil {
		t.Fatal("a report without an evidence check stored one")
	}
}
