package publish_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

const reviewsKey = "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews"

// threadOpener has alice open a thread on the PR between a review being
// posted and the next GraphQL request: a person commenting while Chakshu
// reads back what its review opened.
type threadOpener struct {
	sim   *ghsim.Sim
	pr    int
	mu    sync.Mutex
	armed bool
	done  bool
}

func (o *threadOpener) Before(_ http.ResponseWriter, _ *http.Request, key string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if key == "POST /graphql" && o.armed && !o.done {
		o.done = true
		o.sim.AddReview(repoName, o.pr, "alice", "", []ghsim.ReviewCommentInput{{Path: calc, Line: 12, Side: "RIGHT", Body: "hmm"}})
	}
	return false
}

func (o *threadOpener) After(key string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.armed = o.armed || key == reviewsKey
	return 0
}

// A publish lists the PR's threads once: a later review reads the list
// before posting (for the plan, the tidy and the outcomes) and then only
// the threads its inline comments opened, the PR's newest; when a thread
// someone opened meanwhile is among the newest, it reads the whole list
// again, and every inline finding is still linked to its thread.
func TestThreadsListedOncePerPublish(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "never"), nil)
		e.publish(e.newRun(standardResult()).ID)

		linked := func(runID, want int) {
			t.Helper()
			threads := map[string]ghsim.Thread{}
			for _, th := range e.sim.Threads(repoName, e.pr) {
				threads[th.NodeID] = th
			}
			n := 0
			for title, row := range e.findingsOf(runID) {
				th, ok := threads[row.ThreadID]
				if !row.Posted || !ok || row.CommentID == 0 || th.CommentIDs[0] != row.CommentID {
					t.Fatalf("finding %q not linked to its thread: %+v", title, row)
				}
				n++
			}
			if n != want {
				t.Fatalf("%d findings, want %d", n, want)
			}
		}

		e.sim.ResetCalls()
		r2 := e.newRun(findings.Result{Summary: "s", Findings: []findings.Finding{f(calc, 12, findings.Major, "Nil map write panics")}})
		e.publish(r2.ID)
		if n := e.sim.CallCount("POST /graphql"); n != 2 {
			t.Fatalf("a later review with an inline comment: %d GraphQL requests, want 2 (the list before, the opened thread after); findings %+v", n, e.findingsOf(r2.ID))
		}
		linked(r2.ID, 1)

		e.sim.SetInterceptor(&threadOpener{sim: e.sim, pr: e.pr})
		e.sim.ResetCalls()
		r3 := e.newRun(findings.Result{Summary: "s", Findings: []findings.Finding{f(calc, 23, findings.Major, "Unchecked error return")}})
		e.publish(r3.ID)
		if n := e.sim.CallCount("POST /graphql"); n != 3 {
			t.Fatalf("a thread opened meanwhile: %d GraphQL requests, want 3 (the list, the newest thread, the list again)", n)
		}
		linked(r3.ID, 1)
		for _, th := range e.sim.Threads(repoName, e.pr) {
			if th.Resolved {
				t.Fatalf("a thread was resolved: %+v", th)
			}
		}
	})
}
