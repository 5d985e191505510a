package publish_test

import (
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// replyRun queues a reply run answering reply in the thread of root.
func (e *env) replyRun(root, reply int64, res findings.ReplyResult) *ent.Run {
	e.t.Helper()
	return e.newRun(res, func(c *ent.RunCreate) {
		c.SetKind(run.KindReply).SetTrigger(run.TriggerReply).SetReplyToCommentID(reply).SetThreadRootCommentID(root)
	})
}

// answers are Chakshu's comments in the thread of root.
func (e *env) answers(root int64) []ghsim.ReviewComment {
	var out []ghsim.ReviewComment
	for _, c := range e.sim.ReviewComments(repoName, e.pr) {
		if c.InReplyTo == root && c.Author == "chakshu[bot]" {
			out = append(out, c)
		}
	}
	return out
}

func (e *env) thread(root int64) ghsim.Thread {
	for _, th := range e.sim.Threads(repoName, e.pr) {
		if th.CommentIDs[0] == root {
			return th
		}
	}
	e.t.Fatalf("no thread for comment %d", root)
	return ghsim.Thread{}
}

func TestReplyPosting(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "blocker"), nil)
		r1 := e.newRun(standardResult())
		e.publish(r1.ID)
		row := e.findingsOf(r1.ID)["Changed line breaks the build"]
		root := row.CommentID
		reply := e.sim.ReplyToReviewComment(repoName, e.pr, root, "alice", "It is initialised in New, @chakshu.")

		rr := e.replyRun(root, reply, findings.ReplyResult{Reply: "You're right, @alice: `New` sets it.", Verdict: findings.VerdictWrong})
		e.publish(rr.ID)
		ans := e.answers(root)
		if len(ans) != 1 || !strings.Contains(ans[0].Body, "You're right, @\u200balice") ||
			publish.ParseMarkers(ans[0].Body).Reply != rr.ID {
			t.Fatalf("answers: %+v", ans)
		}
		if !e.thread(root).Resolved {
			t.Fatal("a withdrawn finding's thread stays unresolved")
		}
		got := e.run(rr.ID)
		if got.Status != run.StatusSucceeded || got.ReplyCommentID != ans[0].ID {
			t.Fatalf("reply run: %s, reply comment %d", got.Status, got.ReplyCommentID)
		}
		if cr := e.checkRun(rr.CheckRunID); cr.Status != "completed" || cr.Conclusion != "success" || cr.Name != "Chakshu · security · reply" {
			t.Fatalf("reply check: %+v", cr)
		}
		if f := e.db.Finding.GetX(e.ctx, row.ID); !f.Resolved {
			t.Fatal("finding not marked resolved")
		} else if f.Outcome != finding.OutcomeDismissed || !strings.Contains(f.OutcomeReason, "replied that it is wrong (the reviewer withdrew it)") {
			t.Fatalf("outcome after a reply the reviewer agreed with: %s %q", f.Outcome, f.OutcomeReason)
		}

		// A crash before the answer was recorded: the retry finds it by its marker.
		e.db.Run.UpdateOneID(rr.ID).SetStatus(run.StatusPublishing).SetReplyCommentID(0).ExecX(e.ctx)
		e.publish(rr.ID)
		if n := len(e.answers(root)); n != 1 {
			t.Fatalf("%d answers after the retry, want 1", n)
		}
		if got := e.run(rr.ID); got.ReplyCommentID != ans[0].ID {
			t.Fatalf("retry recorded comment %d, want %d", got.ReplyCommentID, ans[0].ID)
		}

		// "Stands" answers without resolving.
		other := e.findingsOf(r1.ID)["Added lines duplicate work"].CommentID
		reply2 := e.sim.ReplyToReviewComment(repoName, e.pr, other, "alice", "why?")
		rs := e.replyRun(other, reply2, findings.ReplyResult{Reply: "It still runs twice.", Verdict: findings.VerdictStands})
		e.publish(rs.ID)
		if len(e.answers(other)) != 1 || e.thread(other).Resolved {
			t.Fatal("a standing finding: want one answer and an open thread")
		}
	})
}

func TestReplyInAPersonsThreadNeverResolves(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "blocker"), nil)
		_, _, err := userClient(e, "alice").PullRequests.CreateReview(e.ctx, "acme", "widget", e.pr, &github.PullRequestReviewRequest{
			Event:    github.Ptr("COMMENT"),
			Comments: []*github.DraftReviewComment{{Path: github.Ptr(calc), Line: github.Ptr(10), Side: github.Ptr("RIGHT"), Body: github.Ptr("mine")}},
		})
		if err != nil {
			t.Fatal(err)
		}
		root := e.sim.ReviewComments(repoName, e.pr)[0].ID
		reply := e.sim.ReplyToReviewComment(repoName, e.pr, root, "alice", "@chakshu is this wrong?")
		rr := e.replyRun(root, reply, findings.ReplyResult{Reply: "It is wrong.", Verdict: findings.VerdictWrong})
		e.publish(rr.ID)
		if len(e.answers(root)) != 1 {
			t.Fatal("no answer")
		}
		if e.thread(root).Resolved {
			t.Fatal("Chakshu resolved a thread a person started")
		}
	})
}
