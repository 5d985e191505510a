package runnerapi

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// A runner of protocol 2 reports findings with evidence and its evidence
// check; the run's stored result keeps the counts and the dropped findings
// (redacted). A runner of protocol 1 (no protocol, no evidence) is still
// accepted: TestJobLifecycle.
func TestResultEvidenceRecorded(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		rn, job := w.runningReview(t)
		result := strings.Replace(validResult, `"body":"Use subtle.ConstantTimeCompare."`, `"body":"Use subtle.ConstantTimeCompare.","evidence":"if token == want {","evidence_moved_from":7`, 1)
		report := `{"result":` + result + `,"stats":{},"protocol":2,"evidence":{"kept":0,"moved":1,"dropped":1,"dropped_findings":[` +
			`{"path":"auth/login.go","line":9,"title":"Key ghp_abcdefghijklmnopqrstuvwxyz0123 in code","evidence":"x","reason":"evidence not in file"}]}}`
		var ack runnerproto.ReportAck
		if st := w.do(runPath(runnerproto.PathResult, rn.ID), report, bearer(job.RunToken), &ack); st != 200 {
			t.Fatalf("status %d", st)
		}
		got := db.Run.GetX(ctx, rn.ID)
		if got.Status != run.StatusPublishing || got.Result == nil || got.Result.Review == nil || got.Result.Checked == nil {
			t.Fatalf("run %s, stored result %+v", got.Status, got.Result)
		}
		if f := got.Result.Review.Findings[0]; f.EvidenceMovedFrom != 7 || f.Evidence != "if token == want {" {
			t.Fatalf("stored finding %+v", f)
		}
		want := &findings.RunnerEvidence{Moved: 1, Dropped: 1, DroppedFindings: []findings.DroppedFinding{
			{Path: "auth/login.go", Line: 9, Title: "Key [REDACTED] in code", Reason: "evidence not in file"}}}
		if d := cmp.Diff(want, got.Result.Checked.Evidence); d != "" {
			t.Fatalf("stored evidence check (-want +got):\n%s", d)
		}
	})
}

// The runner's counts and dropped list are bounded by what a result can hold.
func TestEvidenceRecordBounded(t *testing.T) {
	many := make([]runnerproto.DroppedFinding, findings.MaxFindings+1)
	rec := evidenceRecord(&runnerproto.EvidenceReport{Kept: -1, Moved: findings.MaxFindings, Dropped: findings.MaxFindings + 1, DroppedFindings: many})
	if rec.Kept != 0 || rec.Moved != findings.MaxFindings || rec.Dropped != findings.MaxFindings {
		t.Fatalf("counts %+v", rec)
	}
	if n := len(rec.DroppedFindings); n != findings.MaxFindings {
		t.Fatalf("%d dropped findings stored, want %d", n, findings.MaxFindings)
	}
	if evidenceRecord(nil) != nil {
		t.Fatal("a report without an evidence check stored one")
	}
}
