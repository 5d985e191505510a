package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
)

// reviewOnce asks for one reviewer on the first seeded PR and waits for its check.
func reviewOnce(t *testing.T, c *chakshu, reviewer string, wantCompleted int) {
	t.Helper()
	pr := c.SB.PRs[0]
	c.SB.Sim.Comment(pr.Repo, pr.Number, sandbox.Writer, "@chakshu review "+reviewer)
	waitFor(t, 120*time.Second, "the review's check run to complete", func() bool {
		n := 0
		for _, cr := range c.SB.Sim.CheckRuns(pr.Repo) {
			if cr.Status == "completed" && cr.Name == "Chakshu · "+reviewer {
				n++
			}
		}
		return n >= wantCompleted
	})
}

// A person replies in Chakshu's thread: the reviewer answers in the same
// thread, exactly once; "fixed" resolves it; `remember` stores a learning that
// the portal lists; a later review on a new commit is incremental and reposts
// nothing already on the PR.
func TestRepliesLearningsAndIncrementalReview(t *testing.T) {
	c := start(t, "", nil)
	sim := c.SB.Sim
	pr := c.SB.PRs[0]
	waitFor(t, 60*time.Second, "the reviewers to sync", func() bool { return c.reviewersSynced(t) })
	reviewOnce(t, c, "correctness", 1)

	var root ghsim.ReviewComment
	for _, cm := range sim.ReviewComments(pr.Repo, pr.Number) {
		if cm.InReplyTo == 0 && cm.Author == "chakshu[bot]" {
			root = cm
			break
		}
	}
	if root.ID == 0 {
		t.Fatal("the review has no inline comment to reply to")
	}
	sim.ReplyToReviewComment(pr.Repo, pr.Number, root.ID, sandbox.Writer, "Thanks, fixed in the next commit.")
	answers := func() []ghsim.ReviewComment {
		var out []ghsim.ReviewComment
		for _, cm := range sim.ReviewComments(pr.Repo, pr.Number) {
			if cm.InReplyTo == root.ID && cm.Author == "chakshu[bot]" {
				out = append(out, cm)
			}
		}
		return out
	}
	waitFor(t, 120*time.Second, "Chakshu's answer in the thread", func() bool { return len(answers()) > 0 })
	waitFor(t, 30*time.Second, "the reply's check run", func() bool {
		for _, cr := range sim.CheckRuns(pr.Repo) {
			if cr.Name == "Chakshu · correctness · reply" && cr.Status == "completed" {
				return true
			}
		}
		return false
	})
	time.Sleep(time.Second) // a duplicate answer would land now
	if n := len(answers()); n != 1 {
		t.Fatalf("%d answers in the thread, want exactly 1", n)
	}
	for _, th := range sim.Threads(pr.Repo, pr.Number) {
		if th.RootAuthor == "chakshu[bot]" && strings.HasSuffix(th.Path, root.Path) && !th.Resolved {
			for _, id := range th.CommentIDs {
				if id == root.ID {
					t.Errorf("the thread the author marked fixed was not resolved")
				}
			}
		}
	}

	// `remember` in a reply stores a learning, says so in the thread, and the portal lists it.
	sim.ReplyToReviewComment(pr.Repo, pr.Number, root.ID, sandbox.Writer, "@chakshu remember we always wrap scan errors in this package")
	waitFor(t, 60*time.Second, "the learning to be acknowledged", func() bool { return len(answers()) >= 2 })
	var learned struct {
		ReviewLearnings struct {
			Edges []struct {
				Node struct {
					Directive string `json:"directive"`
					Glob      string `json:"glob"`
				} `json:"node"`
			} `json:"edges"`
		} `json:"reviewLearnings"`
	}
	s := c.loginSandbox(t)
	s.graphql(t, `{ reviewLearnings(first: 10) { edges { node { directive glob } } } }`, nil, &learned)
	if len(learned.ReviewLearnings.Edges) != 1 || !strings.Contains(learned.ReviewLearnings.Edges[0].Node.Directive, "wrap scan errors") {
		t.Fatalf("learnings: %+v", learned)
	}

	// A new commit and a second review: only the changes since the first review,
	// and nothing already on the PR is posted again.
	before := len(sim.ReviewComments(pr.Repo, pr.Number))
	sim.Commit(pr.Repo, "feature/refund-lookup", map[string]string{"README.md": "# payments-api\n\nNow with refunds.\n"}, "docs")
	reviewOnce(t, c, "correctness", 2)
	reviews := sim.Reviews(pr.Repo, pr.Number)
	last := reviews[len(reviews)-1]
	if !strings.Contains(last.Body, "Reviewed only the changes since") {
		t.Errorf("second review body does not say it was incremental:\n%s", last.Body)
	}
	// The learning reached the next review's job and is listed as applied.
	if !strings.Contains(last.Body, "Learnings applied: 1") || !strings.Contains(last.Body, "wrap scan errors") {
		t.Errorf("second review body does not list the stored learning as applied:\n%s", last.Body)
	}
	newInline := 0
	for _, cm := range sim.ReviewComments(pr.Repo, pr.Number)[before:] {
		if cm.InReplyTo == 0 {
			newInline++
		}
	}
	if newInline != 0 {
		t.Errorf("the second review posted %d inline comments again", newInline)
	}
}
