package publish_test

import (
	"testing"

	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestRepublishSkipsTheSameFindingReworded: a later run that reports an
// open finding again in other words, a line away, posts nothing for it (it
// is the same finding by findings.Same, not by hidden ID) and keeps the
// thread's hidden ID, so tidying leaves the thread alone; a new finding on
// the same line is posted; once a person resolves the thread, the finding
// may be raised again.
func TestRepublishSkipsTheSameFindingReworded(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "never"), nil)
		orig := f(calc, 21, findings.Major, "Added line ignores the returned error")
		orig.Body = "The error returned by the call on this added line is dropped, so a failure goes unnoticed."
		r1 := e.newRun(findings.Result{Summary: "s", Findings: []findings.Finding{orig}})
		e.publish(r1.ID)
		if n := len(e.sim.ReviewComments(repoName, e.pr)); n != 1 {
			t.Fatalf("%d comments after the first run, want 1", n)
		}

		reworded := f(calc, 22, findings.Minor, "Error from this call is not checked")
		reworded.Body = "A failure of the call is silently dropped: the returned error is never checked."
		other := f(calc, 21, findings.Major, "Hard-coded retry limit")
		other.Body = "The retry count is fixed in code; read it from the configuration."
		r2 := e.newRun(findings.Result{Summary: "s", Findings: []findings.Finding{reworded, other}})
		e.publish(r2.ID)
		got := e.findingsOf(r2.ID)
		if fd := got[reworded.Title]; fd.Posted || fd.DroppedReason != publish.DropOnPR || fd.HiddenID != orig.ID() {
			t.Errorf("reworded finding: posted %v dropped %q hidden ID %s, want unposted, %q, the thread's %s",
				fd.Posted, fd.DroppedReason, fd.HiddenID, publish.DropOnPR, orig.ID())
		}
		if fd := got[other.Title]; !fd.Posted {
			t.Errorf("a different finding on the same line was not posted: %q", fd.DroppedReason)
		}
		if n := len(e.sim.ReviewComments(repoName, e.pr)); n != 2 {
			t.Fatalf("%d comments after the second run, want 2 (the reworded finding not again)", n)
		}

		for _, th := range e.sim.Threads(repoName, e.pr) {
			e.sim.ResolveThread(th.NodeID, "alice", true)
		}
		r3 := e.newRun(findings.Result{Summary: "s", Findings: []findings.Finding{reworded}})
		e.publish(r3.ID)
		if fd := e.findingsOf(r3.ID)[reworded.Title]; !fd.Posted {
			t.Errorf("after its thread was resolved, the finding raised again was not posted: %q", fd.DroppedReason)
		}
	})
}

// TestPlanOnMatchesByMeaning: the pure rule of PlanOn.
func TestPlanOnMatchesByMeaning(t *testing.T) {
	earlier := findings.Finding{Path: "a.go", Line: 3, Side: "RIGHT", Severity: findings.Major, Category: "bug",
		Title: "Unchecked error from os.Remove", Body: "The error returned by os.Remove is dropped, so a failed delete goes unnoticed."}
	again := earlier
	again.Title, again.Line = "os.Remove error is ignored", 4
	p := publish.PlanOn([]findings.Finding{again}, publish.Rules{}, publish.OnPR{Open: []publish.Earlier{{HiddenID: "thread-id", Finding: earlier}}}, nil)
	if it := p.Items[0]; it.Dropped != publish.DropOnPR || it.HiddenID != "thread-id" || p.OnPR != 1 {
		t.Errorf("item %+v (on PR %d), want dropped as on the PR under the thread's ID", it, p.OnPR)
	}
	twice := publish.PlanOn([]findings.Finding{earlier, again}, publish.Rules{}, publish.OnPR{}, nil)
	if twice.Items[1].Dropped != publish.DropDuplicate || !twice.Items[0].Posted() {
		t.Errorf("one run's reworded twin: %+v", twice.Items)
	}
}
