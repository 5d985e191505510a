package events_test

import (
	"context"
	"testing"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// pull_request closed decides the PR's open findings: merged → open at
// merge, closed unmerged → closed unmerged, after what people did on GitHub
// (GitHub sends no webhook for a reaction: it is read here). One GraphQL
// read per PR with open findings; none for a PR without.
func TestClosingAPullRequestDecidesItsFindings(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db, envOpts{})
		rv := e.reviewer("security", nil)
		gc := e.installationClient().REST
		// post posts Chakshu's review with one inline comment per title and
		// records the run and its findings.
		post := func(n int, titles ...string) map[string]int64 {
			head := prHead(t, e, n)
			req := &github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"), Body: github.Ptr("review"), CommitID: github.Ptr(head)}
			for _, title := range titles {
				req.Comments = append(req.Comments, &github.DraftReviewComment{Path: github.Ptr("a.go"), Line: github.Ptr(3), Side: github.Ptr("RIGHT"), Body: github.Ptr(title)})
			}
			if _, _, err := gc.PullRequests.CreateReview(ctx, "acme", "widget", n, req); err != nil {
				t.Fatal(err)
			}
			r := db.Run.Create().SetRepository(e.repo).SetReviewer(rv).SetPrNumber(n).SetHeadSha(head).
				SetTrigger(run.TriggerPortal).SetStatus(run.StatusSucceeded).SaveX(ctx)
			ids := map[string]int64{}
			cs, _, err := gc.PullRequests.ListComments(ctx, "acme", "widget", n, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cs {
				ids[c.GetBody()] = c.GetID()
				db.Finding.Create().SetRun(r).SetHiddenID(c.GetBody()).SetPath("a.go").SetLine(3).SetSeverity(finding.SeverityMajor).
					SetTitle(c.GetBody()).SetPosted(true).SetPlacement(finding.PlacementInline).SetCommentID(c.GetID()).ExecX(ctx)
			}
			return ids
		}
		outcome := func(title string) (finding.Outcome, string) {
			f := db.Finding.Query().Where(finding.Title(title)).OnlyX(ctx)
			return f.Outcome, f.OutcomeReason
		}

		merged := e.pr("feature", "a.go", false)
		ids := post(merged, "open one", "liked one")
		e.sim.React(repoFN, merged, ids["liked one"], "alice", "+1")
		closed := e.pr("other", "a.go", false)
		post(closed, "abandoned one")
		quiet := e.pr("quiet", "a.go", false)
		e.drain()

		e.sim.ResetCalls()
		e.sim.MergePR(repoFN, merged, "alice")
		e.drain()
		if n := e.sim.CallCount("POST /graphql"); n != 1 {
			t.Errorf("merging took %d GraphQL calls, want 1", n)
		}
		if o, why := outcome("open one"); o != finding.OutcomeOpenAtMerge || why != "open when the pull request was merged" {
			t.Errorf("open one: %s %q", o, why)
		}
		if o, why := outcome("liked one"); o != finding.OutcomeAcknowledged || why != "@alice reacted 👍" {
			t.Errorf("liked one: %s %q", o, why)
		}

		e.sim.ClosePR(repoFN, closed, "alice")
		e.drain()
		if o, _ := outcome("abandoned one"); o != finding.OutcomeClosedUnmerged {
			t.Errorf("abandoned one: %s", o)
		}
		// Reopened, it is open again, and read again at the next close.
		e.sim.ReopenPR(repoFN, closed, "alice")
		e.drain()
		if o, why := outcome("abandoned one"); o != finding.OutcomeOpen || why != "" {
			t.Errorf("abandoned one after reopening: %s %q", o, why)
		}
		e.sim.ClosePR(repoFN, closed, "alice")
		e.drain()
		if o, _ := outcome("abandoned one"); o != finding.OutcomeClosedUnmerged {
			t.Errorf("abandoned one closed again: %s", o)
		}

		e.sim.ResetCalls()
		e.sim.ClosePR(repoFN, quiet, "alice")
		e.drain()
		if n := e.sim.CallCount("POST /graphql"); n != 0 {
			t.Errorf("closing a PR without findings took %d GraphQL calls", n)
		}
	})
}
