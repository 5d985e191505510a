package outcomes

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// A PR's reply verdicts come from each answered reply run's stored result
// (the typed one). A "stands" verdict, an unanswered run and another PR's run say nothing.
func TestVerdictsFromStoredResults(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		in := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
		repo := db.Repository.Create().SetGithubID(2).SetOwner("acme").SetName("widget").SetFullName("acme/widget").SetInstallation(in).SaveX(ctx)
		rv := db.Reviewer.Create().SetName("security").SetInstallation(in).SaveX(ctx)
		reply := func(pr int, root int64, status run.Status, set func(*ent.RunCreate)) {
			c := db.Run.Create().SetRepository(repo).SetReviewer(rv).SetKind(run.KindReply).SetTrigger(run.TriggerComment).
				SetPrNumber(pr).SetHeadSha("abc").SetBaseRef("main").SetStatus(status).SetThreadRootCommentID(root).SetRequester("carol")
			set(c)
			c.SaveX(ctx)
		}
		typed := func(v findings.Verdict) func(*ent.RunCreate) {
			return func(c *ent.RunCreate) {
				c.SetResult(&findings.Stored{Reply: &findings.ReplyResult{Reply: "Answer.", Verdict: v}})
			}
		}
		reply(7, 100, run.StatusSucceeded, typed(findings.VerdictWrong))
		reply(7, 200, run.StatusSucceeded, typed(findings.VerdictFixed))
		reply(7, 300, run.StatusSucceeded, typed(findings.VerdictStands))
		reply(7, 400, run.StatusPublishing, typed(findings.VerdictWrong))
		reply(8, 500, run.StatusSucceeded, typed(findings.VerdictWrong))

		r, err := New(Config{DB: db, AppSlug: "chakshu"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.verdicts(ctx, repo.ID, 7)
		if err != nil {
			t.Fatal(err)
		}
		want := map[int64]Verdict{100: {findings.VerdictWrong, "carol"}, 200: {findings.VerdictFixed, "carol"}}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("verdicts (-want +got):\n%s", d)
		}
	})
}
