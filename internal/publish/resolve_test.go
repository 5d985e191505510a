package publish_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/runevent"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
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
			f(calc, 10, findings.Major, "Goes away"), f(calc, 11, findings.Major, "Vanishes too"),
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

// GitHub asking to wait on the resolve mutation (a secondary limit on
// resolveReviewThread alone; the thread listing goes through) stops tidy at
// the first thread: the wait is recorded on the installation for every
// process, the run stays publishing without a second mutation, and the retry
// once the wait passed resolves every outdated thread with one review posted.
func TestTidyStopsAtTheFirstWaitAndRecordsIt(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "never"), nil)
		r1 := e.newRun(findings.Result{Summary: "s", Findings: []findings.Finding{
			f(calc, 10, findings.Major, "Goes away"), f(calc, 11, findings.Major, "Vanishes too"),
		}})
		e.publish(r1.ID)
		l := featureCalc()
		l[9], l[10] = "again10", "again11"
		e.sim.Commit(repoName, "feature", map[string]string{calc: file(l)}, "rewrite")

		now := time.Now()
		clock := func() time.Time { return now }
		port := ghwrite.New(e.apps, "chakshu", ghwrite.WithClock(clock, gh.InlineWait),
			ghwrite.WithBudget(ghwrite.NewDBBudget(db, ghwrite.GitHubWindows)))
		pub, err := publish.New(publish.Config{DB: db, GitHub: e.apps, Write: port, AppSlug: "chakshu", PublicURL: "https://chakshu.example/", Now: clock})
		if err != nil {
			t.Fatal(err)
		}
		const resolve = "mutation resolveReviewThread"
		ghsimtest.InjectFault(e.sim, ghsimtest.Fault{Match: "POST /graphql", Operation: resolve, Kind: ghsimtest.FaultSecondaryRateLimit, RetryAfter: 120, Times: 1})
		r2 := e.newRun(findings.Result{Summary: "s"})
		err = pub.Publish(e.ctx, r2.ID)
		until, wait := gh.WaitFor(err, now)
		if !wait || until.Sub(now) < 119*time.Second || until.Sub(now) > 125*time.Second {
			t.Fatalf("publish during the resolve's limit: wait %v until %v; err %v", wait, until.Sub(now), err)
		}
		// The limited mutation is the fault's (GraphQLCalls counts what
		// GitHub served): no second one was sent.
		if hits, n := ghsimtest.FaultHits(e.sim, 0), e.sim.GraphQLCalls()[resolve]; hits != 1 || n != 0 {
			t.Fatalf("resolve mutations: %d limited, %d more served; want 1 and 0 (stop at the first wait)", hits, n)
		}
		for _, th := range e.sim.Threads(repoName, e.pr) {
			if th.Resolved {
				t.Fatalf("thread %s resolved during the wait", th.NodeID)
			}
		}
		inst := e.repo.QueryInstallation().OnlyX(e.ctx)
		if inst.GithubWaitUntil == nil || !inst.GithubWaitUntil.Equal(until) || !strings.Contains(inst.GithubWaitReason, "secondary") {
			t.Fatalf("installation's recorded wait: %v %q, want %v", inst.GithubWaitUntil, inst.GithubWaitReason, until)
		}
		if got := e.run(r2.ID); got.Status != run.StatusPublishing {
			t.Fatalf("run %s during the wait, want publishing", got.Status)
		}

		now = until.Add(time.Second)
		if err := pub.Publish(e.ctx, r2.ID); err != nil {
			t.Fatalf("publish after the wait: %v", err)
		}
		resolved := 0
		for _, th := range e.sim.Threads(repoName, e.pr) {
			if th.Resolved {
				resolved++
			}
		}
		if resolved != 2 || e.sim.GraphQLCalls()[resolve] != 2 {
			t.Fatalf("after the wait: %d threads resolved with %d mutations, want 2 with 2", resolved, e.sim.GraphQLCalls()[resolve])
		}
		if got := e.run(r2.ID); got.Status != run.StatusSucceeded || len(e.sim.Reviews(repoName, e.pr)) != 2 {
			t.Fatalf("run %s with %d reviews on the PR, want succeeded and 2 (one a run)", got.Status, len(e.sim.Reviews(repoName, e.pr)))
		}
	})
}
