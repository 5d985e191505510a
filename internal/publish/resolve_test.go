package publish_test

import (
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/runevent"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// withoutContentsWrite is an installation that has not accepted the App's
// new Contents: write permission: it keeps Contents: read.
func withoutContentsWrite(e *env) {
	perms := ghsim.DefaultPermissions()
	perms["contents"] = "read"
	inst := e.repo.QueryInstallation().OnlyX(e.ctx)
	e.sim.SetInstallationPermissions(inst.GithubID, perms)
}

func (e *env) notes(runID int) []string {
	var out []string
	for _, ev := range e.db.RunEvent.Query().Where(runevent.HasRunWith(run.ID(runID))).AllX(e.ctx) {
		out = append(out, ev.Message)
	}
	return out
}

func countContaining(list []string, sub string) int {
	n := 0
	for _, s := range list {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

func TestTidyWithoutContentsWriteSaysSoOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "never"), nil)
		withoutContentsWrite(e)
		r1 := e.newRun(findings.Result{Summary: "s", Findings: []findings.Finding{
			f(calc, 10, findings.Major, "Goes away"), f(calc, 11, findings.Major, "Also goes away"),
		}})
		e.publish(r1.ID)
		l := featureCalc()
		l[9], l[10] = "again10", "again11"
		e.sim.Commit(repoName, "feature", map[string]string{calc: file(l)}, "rewrite")

		r2 := e.newRun(findings.Result{Summary: "s"})
		e.publish(r2.ID)
		for _, th := range e.sim.Threads(repoName, e.pr) {
			if th.Resolved {
				t.Fatalf("thread %s resolved without Contents: write", th.NodeID)
			}
		}
		if got := e.run(r2.ID); got.Status != run.StatusSucceeded {
			t.Fatalf("run %s: a refused resolve must not fail the review", got.Status)
		}
		// Two threads refused, one timeline entry.
		if n := countContaining(e.notes(r2.ID), "Could not resolve outdated threads"); n != 1 {
			t.Fatalf("%d timeline notes about the refusal, want 1: %q", n, e.notes(r2.ID))
		}
		inst := e.repo.QueryInstallation().OnlyX(e.ctx)
		if inst.ResolveBlocked != publish.ResolveBlocked {
			t.Fatalf("installation resolve_blocked = %q", inst.ResolveBlocked)
		}
		// GitHub was asked: two resolve-scoped tokens (the refused full scope,
		// then the granted part) and one refused mutation, not one per thread.
		if n := e.sim.GraphQLCalls()["mutation resolveReviewThread"]; n != 1 {
			t.Fatalf("%d resolve mutations, want 1 (stop at the first FORBIDDEN)", n)
		}
	})
}

func TestTidyResolvesWithTheResolveScopeAndClearsTheRefusal(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "never"), nil)
		inst := e.repo.QueryInstallation().OnlyX(e.ctx)
		inst.Update().SetResolveBlocked(publish.ResolveBlocked).ExecX(e.ctx) // refused once, since accepted
		r1 := e.newRun(findings.Result{Summary: "s", Findings: []findings.Finding{f(calc, 10, findings.Major, "Goes away")}})
		e.publish(r1.ID)
		l := featureCalc()
		l[9] = "again10"
		e.sim.Commit(repoName, "feature", map[string]string{calc: file(l)}, "rewrite")
		r2 := e.newRun(findings.Result{Summary: "s"})
		e.publish(r2.ID)
		resolved := 0
		for _, th := range e.sim.Threads(repoName, e.pr) {
			if th.Resolved {
				resolved++
			}
		}
		if resolved != 1 {
			t.Fatalf("%d threads resolved, want 1", resolved)
		}
		if got := db.Installation.GetX(e.ctx, inst.ID); got.ResolveBlocked != "" {
			t.Fatalf("refusal not cleared after a resolve worked: %q", got.ResolveBlocked)
		}
	})
}

func TestReplyNeverPromisesARefusedResolve(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "blocker"), nil)
		withoutContentsWrite(e)
		r1 := e.newRun(standardResult())
		e.publish(r1.ID)
		row := e.findingsOf(r1.ID)["Changed line breaks the build"]
		root := row.CommentID
		reply := e.sim.ReplyToReviewComment(repoName, e.pr, root, "alice", "It is initialised in New, @chakshu.")
		rr := e.replyRun(root, reply, findings.ReplyResult{Reply: "You're right: `New` sets it.", Verdict: findings.VerdictWrong})
		e.publish(rr.ID)
		ans := e.answers(root)
		if len(ans) != 1 {
			t.Fatalf("%d answers, want 1", len(ans))
		}
		if strings.Contains(ans[0].Body, "resolves the thread") || !strings.Contains(ans[0].Body, "Chakshu withdraws this finding.") {
			t.Fatalf("answer promises a resolve GitHub refused: %q", ans[0].Body)
		}
		if e.thread(root).Resolved || e.db.Finding.GetX(e.ctx, row.ID).Resolved {
			t.Fatal("thread or finding marked resolved")
		}
		got := e.run(rr.ID)
		if got.Status != run.StatusSucceeded {
			t.Fatalf("reply run %s, want succeeded", got.Status)
		}
		if cr := e.checkRun(rr.CheckRunID); cr.Conclusion != "success" || strings.Contains(cr.Summary, "was resolved") {
			t.Fatalf("reply check: %+v", cr)
		}
		if n := countContaining(e.notes(rr.ID), "Could not resolve"); n != 1 {
			t.Fatalf("%d refusal notes, want 1", n)
		}
	})
}
