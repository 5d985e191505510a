package publish_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// ordersFile is a file the PR adds with findings of the scripted model's
// rules (SQL from strings, an ignored error) and a planted false one.
const ordersFile = `func ListOrders(r *http.Request) {
	id := r.URL.Query().Get("id")
	rows := load(id)
	q := "SELECT * FROM orders WHERE id = " + id
	_ = db.Close()
	use(rows, q)
}
`

// TestReReviewByARewordingModelPostsNothingTwice: two reviews of one PR by
// a model that words its findings anew each run (scriptedmodel Reword,
// another seed) post each finding once: the second run's findings carry
// hidden IDs the first never posted, and still none is posted again.
func TestReReviewByARewordingModelPostsNothingTwice(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(ordersFile, "\n"), "\n")
	diff := fmt.Sprintf("diff --git a/svc/orders.go b/svc/orders.go\nnew file mode 100644\n--- /dev/null\n+++ b/svc/orders.go\n@@ -0,0 +1,%d @@\n+%s\n",
		len(lines), strings.Join(lines, "\n+"))
	review := func(seed int64) findings.Result {
		return scriptedmodel.Submit(scriptedmodel.Config{Reword: true, RewordSeed: seed}, "", "<diff>\n"+diff+"</diff>\nReview the diff.")
	}
	first, second := review(1), review(4)
	posted := map[string]bool{}
	for _, f := range first.Findings {
		posted[f.ID()] = true
	}
	fresh := 0
	for _, f := range second.Findings {
		if !posted[f.ID()] {
			fresh++
		}
	}
	if fresh == 0 {
		t.Fatalf("the second review's findings all carry the first's hidden IDs; the test needs reworded ones: %+v", second.Findings)
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "never"), map[string]string{"svc/orders.go": ordersFile})
		r1 := e.newRun(first)
		e.publish(r1.ID)
		before := len(e.sim.ReviewComments(repoName, e.pr))
		if before < 3 {
			t.Fatalf("the first review posted %d comments, want its findings (SQL, ignored error, the planted one)", before)
		}
		r2 := e.newRun(second)
		e.publish(r2.ID)
		if after := len(e.sim.ReviewComments(repoName, e.pr)); after != before {
			t.Errorf("the re-review posted %d comments again (%d new hidden IDs among its findings)", after-before, fresh)
		}
		for title, fd := range e.findingsOf(r2.ID) {
			if fd.Posted {
				t.Errorf("re-review posted %q again", title)
			}
		}
	})
}
