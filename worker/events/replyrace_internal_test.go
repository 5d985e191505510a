package events

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Replies handled at the same time by several workers cannot together
// pass a reply limit they would each pass alone: with the per-PR limit at
// 3 and 2 reply runs in the last hour, eight concurrent replies queue
// exactly one run, on SQLite and PostgreSQL.
func TestReplyLimitHoldsUnderRace(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
		repo := db.Repository.Create().SetGithubID(2).SetOwner("acme").SetName("w").SetFullName("acme/w").SetInstallation(inst).SaveX(ctx)
		rv := db.Reviewer.Create().SetName("security").SetInstallation(inst).SaveX(ctx)
		newRun := func(c *ent.Client, comment int64, who string) error {
			return c.Run.Create().SetKind(run.KindReply).SetTrigger(run.TriggerReply).SetRepository(repo).SetReviewer(rv).
				SetPrNumber(7).SetHeadSha("x").SetRequester(who).SetReplyToCommentID(comment).Exec(ctx)
		}
		for i := range 2 {
			if err := newRun(db.Client, int64(100+i), "alice"); err != nil {
				t.Fatal(err)
			}
		}
		const racers = 8
		var wg sync.WaitGroup
		admitted := make(chan int, racers)
		errs := make(chan error, racers)
		start := make(chan struct{})
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				who := fmt.Sprintf("user%d", i)
				refused, err := reserveReply(ctx, db, inst, repo, 7, who, int64(200+i), [2]int{3, 100}, time.Now(), func(tx *ent.Tx) error {
					return newRun(tx.Client(), int64(200+i), who)
				})
				if err != nil {
					errs <- err
					return
				}
				if refused == nil {
					admitted <- i
				}
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		close(admitted)
		for err := range errs {
			t.Fatal(err)
		}
		if n := len(admitted); n != 1 {
			t.Fatalf("%d replies admitted at limit 3 with 2 in the window, want 1", n)
		}
		if n := db.Run.Query().Where(run.KindEQ(run.KindReply), run.PrNumber(7)).CountX(ctx); n != 3 {
			t.Fatalf("%d reply runs on the PR, want 3", n)
		}
	})
}
