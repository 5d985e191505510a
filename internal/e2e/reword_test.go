package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
)

// A second full review of the same head by a model that words its findings
// anew each run (scriptedmodel Reword; the requester's other note makes
// another prompt) posts nothing the first posted: the findings are matched
// to their open threads by meaning, not by hidden ID.
func TestReReviewByARewordingModelPostsNothingTwice(t *testing.T) {
	c := startWith(t, "", nil, scriptedmodel.Config{Reword: true})
	sim := c.SB.Sim
	pr := c.SB.PRs[0]
	waitFor(t, 60*time.Second, "the reviewers to sync", func() bool { return c.reviewersSynced(t) })
	reviewOnce(t, c, "correctness", 1)
	inline := func() (n int, titles []string) {
		for _, cm := range sim.ReviewComments(pr.Repo, pr.Number) {
			if cm.InReplyTo == 0 && cm.Author == "chakshu[bot]" {
				n++
				title, _, _ := strings.Cut(cm.Body, "\n")
				titles = append(titles, title)
			}
		}
		return n, titles
	}
	before, titles := inline()
	if before == 0 {
		t.Fatal("the first review posted no inline comment")
	}
	sim.Comment(pr.Repo, pr.Number, sandbox.Writer, "@chakshu review correctness\nOnce more, please: I want a second look at the whole change.")
	waitFor(t, 120*time.Second, "the second review's check run", func() bool {
		n := 0
		for _, cr := range sim.CheckRuns(pr.Repo) {
			if cr.Status == "completed" && cr.Name == "Chakshu · correctness" {
				n++
			}
		}
		return n >= 2
	})
	reviews := sim.Reviews(pr.Repo, pr.Number)
	last := reviews[len(reviews)-1]
	if after, _ := inline(); after != before {
		t.Errorf("the re-review posted %d inline comments again (first review: %v)\nits body:\n%s", after-before, titles, last.Body)
	}
	if !strings.Contains(last.Body, "already on this PR") {
		t.Errorf("the re-review's body does not say its findings are already on the PR:\n%s", last.Body)
	}
	// The test means something only if the second run reworded: a finding
	// not posted as already on the PR whose title no posted finding has.
	var out struct {
		Findings struct {
			Edges []struct {
				Node struct {
					Title         string `json:"title"`
					Posted        bool   `json:"posted"`
					DroppedReason string `json:"droppedReason"`
				} `json:"node"`
			} `json:"edges"`
		} `json:"findings"`
	}
	c.loginSandbox(t).graphql(t, `{ findings(first: 100) { edges { node { title posted droppedReason } } } }`, nil, &out)
	posted := map[string]bool{}
	for _, e := range out.Findings.Edges {
		if e.Node.Posted {
			posted[e.Node.Title] = true
		}
	}
	reworded := 0
	for _, e := range out.Findings.Edges {
		if e.Node.DroppedReason == "already on the PR" && !posted[e.Node.Title] {
			reworded++
		}
	}
	if reworded == 0 {
		t.Errorf("the second review reworded none of its findings; the test would pass by hidden ID alone: %+v", out.Findings.Edges)
	}
}
