package gateway

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Model requests of different runs racing for a spend budget with room for
// one request admit exactly one: the budget check and the request's
// reservation are one atomic step (issue 43 item 18), on both databases.
func TestSpendBudgetHoldsUnderRace(t *testing.T) {
	cases := []struct {
		name string
		// budgets sets the budget under test on the installation or a repository.
		budgets func(db *store.DB, inst *ent.Installation, repos []*ent.Repository)
		// repos is how many repositories the racing runs are spread over.
		repos int
	}{
		{"installation daily budget, runs of two repositories", func(db *store.DB, inst *ent.Installation, _ []*ent.Repository) {
			db.Installation.UpdateOne(inst).SetBudgetDailyUsd(0.0005).ExecX(context.Background())
		}, 2},
		{"installation monthly budget", func(db *store.DB, inst *ent.Installation, _ []*ent.Repository) {
			db.Installation.UpdateOne(inst).SetBudgetMonthlyUsd(0.0005).ExecX(context.Background())
		}, 1},
		{"repository daily budget", func(db *store.DB, _ *ent.Installation, repos []*ent.Repository) {
			db.Repository.UpdateOne(repos[0]).SetBudgetDailyUsd(0.0005).ExecX(context.Background())
		}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				ctx := context.Background()
				// A request's worst case (100 output tokens on Sonnet 5.5, over $0.001) and
				// its answer ($0.40) are each past the $0.0005 budget,
				// and each request's worst case is reserved before it goes out:
				// whichever is admitted first leaves no room for another.
				up := newUpstream(t, models.Usage{InputTokens: 100_000, OutputTokens: 10_000, CacheReadInputTokens: 1_000_000})
				g := newGateway(t, db, up.srv.URL, Config{})
				inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
				var repos []*ent.Repository
				for i := range c.repos {
					repos = append(repos, db.Repository.Create().SetGithubID(int64(10+i)).SetOwner("acme").
						SetName(fmt.Sprintf("app%d", i)).SetFullName(fmt.Sprintf("acme/app%d", i)).SetInstallation(inst).SaveX(ctx))
				}
				rv := db.Reviewer.Create().SetName("security").SetInstallation(inst).SaveX(ctx)
				c.budgets(db, inst, repos)
				const racers = 6
				var rns []*ent.Run
				for i := range racers {
					rns = append(rns, db.Run.Create().SetRepository(repos[i%len(repos)]).SetReviewer(rv).SetTrigger(run.TriggerComment).
						SetPrNumber(i+1).SetHeadSha("abc").SetStatus(run.StatusRunning).SetModel("claude-sonnet-5-5").SaveX(ctx))
				}
				codes := make([]int, racers)
				var wg sync.WaitGroup
				start := make(chan struct{})
				for i, rn := range rns {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						codes[i] = post(t, g, rn, msg, false).Code
					}()
				}
				close(start)
				wg.Wait()
				admitted := 0
				for _, code := range codes {
					switch code {
					case http.StatusOK:
						admitted++
					case http.StatusTooManyRequests:
					default:
						t.Fatalf("a request answered %d, want 200 or 429", code)
					}
				}
				if admitted != 1 || up.calls.Load() != 1 {
					t.Fatalf("%d requests admitted, %d sent upstream, under a budget with room for one (answers %v)", admitted, up.calls.Load(), codes)
				}
				// The refusal names the budget, and the run may still send its final request.
				for _, rn := range rns {
					if db.Run.GetX(ctx, rn.ID).CostUsd > 0 {
						continue
					}
					w := post(t, g, rn, msg, false)
					if w.Code != http.StatusTooManyRequests || errCode(t, w) != CodeCostCap {
						t.Fatalf("a request past the budget answered %d %s", w.Code, w.Body.String())
					}
					if w := post(t, g, rn, msg, true); w.Code != http.StatusOK {
						t.Fatalf("the final request past the budget answered %d %s", w.Code, w.Body.String())
					}
					break
				}
			})
		})
	}
}
