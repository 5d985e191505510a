package publish_test

import (
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// The publisher reads the result the runner API stored once (typed,
// validated and redacted).
func TestPublishStoredResult(t *testing.T) {
	// The agent names no file it read; the runner saw two, and its evidence
	// check dropped two findings before the result reached the server.
	res := standardResult()
	res.Checked.Files = nil
	res.Findings[0].Body = "Key [REDACTED] is committed."
	cov := &findings.Coverage{Files: []string{}, Skills: []string{"go"}, FilesRead: []string{calc, "README.md"},
		Evidence: &findings.RunnerEvidence{Kept: 4, Dropped: 2, DroppedFindings: []findings.DroppedFinding{}}}
	cases := []struct {
		name string
		set  func(*ent.RunCreate)
	}{
		{"typed result", func(c *ent.RunCreate) {
			c.SetResult(&findings.Stored{Review: &res, Checked: cov})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				e := newEnv(t, db, rules(findings.Nit, 20, "blocker"), nil)
				r := e.newRun(res, tc.set)
				e.publish(r.ID)

				if got := e.run(r.ID); got.Status != run.StatusSucceeded || got.FindingsPosted != 4 {
					t.Fatalf("run %s, %d findings posted: %s", got.Status, got.FindingsPosted, got.FailureDetail)
				}
				reviews := e.chakshuReviews()
				if len(reviews) != 1 {
					t.Fatalf("%d reviews, want 1", len(reviews))
				}
				for _, want := range []string{"· 2 read by the reviewer ·", "_2 findings were dropped: the code they quote is not in the file at this commit._"} {
					if !strings.Contains(reviews[0].Body, want) {
						t.Errorf("review body lacks %q:\n%s", want, reviews[0].Body)
					}
				}
				var redacted bool
				for _, c := range e.sim.ReviewComments(repoName, e.pr) {
					redacted = redacted || (c.Line == 10 && strings.Contains(c.Body, "Key [REDACTED] is committed."))
				}
				if !redacted {
					t.Errorf("the blocker was not published as stored: %+v", e.sim.ReviewComments(repoName, e.pr))
				}
			})
		})
	}
}

// A run without a result of its kind fails with the result reason instead
// of publishing.
func TestPublishStoredResultOfTheWrongKind(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "blocker"), nil)
		r := e.newRun(standardResult(), func(c *ent.RunCreate) {
			c.SetResult(&findings.Stored{Reply: &findings.ReplyResult{Reply: "Fixed.", Verdict: findings.VerdictFixed}})
		})
		if err := e.pub.Publish(e.ctx, r.ID); err == nil || !strings.Contains(err.Error(), "not a review's") {
			t.Fatalf("publish: %v", err)
		}
		if got := e.run(r.ID); got.Status != run.StatusFailed || !strings.Contains(got.FailureDetail, "not a review's") {
			t.Fatalf("run %s: %q", got.Status, got.FailureDetail)
		}
		if n := len(e.chakshuReviews()); n != 0 {
			t.Fatalf("%d reviews posted", n)
		}
	})
}
