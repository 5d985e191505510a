package queue_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// BenchmarkClaimBesideFlood times one fair claim of a queued run (and its
// release, so the queue keeps its size) with one installation's 2,000 runs
// queued beside 19 installations' 20 each, and 100 runs in flight: the queue
// of BenchmarkOrgScale at full size. No DESIGN §11 budget: it shows what a
// claim costs the dispatch loop (each op is 100 claims, so -benchtime 1x,
// as make bench runs it, still averages).
func BenchmarkClaimBesideFlood(b *testing.B) {
	for _, dialect := range storetest.Dialects {
		b.Run(dialect, func(b *testing.B) {
			ctx := context.Background()
			db := storetest.Open(b, dialect)
			now := time.Now()
			for i := range 20 {
				inst := db.Installation.Create().SetGithubID(int64(100 + i)).SetAccountLogin(fmt.Sprintf("org%02d", i)).SaveX(ctx)
				repo := db.Repository.Create().SetGithubID(int64(1000 + i)).SetOwner(inst.AccountLogin).SetName("api").
					SetFullName(inst.AccountLogin + "/api").SetInstallation(inst).SaveX(ctx)
				rv := db.Reviewer.Create().SetName("security").SetInstallation(inst).SaveX(ctx)
				n := 20
				if i == 0 {
					n = 2000
				}
				var bulk []*ent.RunCreate
				for k := range n + 5 {
					c := db.Run.Create().SetRepository(repo).SetReviewer(rv).SetPrNumber(k + 1).SetHeadSha(fmt.Sprintf("sha-%d", k)).
						SetTrigger(run.TriggerComment).SetCreatedAt(now.Add(-time.Hour + time.Duration(k)*time.Millisecond))
					if k >= n {
						c.SetStatus(run.StatusDispatched)
					}
					bulk = append(bulk, c)
				}
				for start := 0; start < len(bulk); start += 500 {
					db.Run.CreateBulk(bulk[start:min(start+500, len(bulk))]...).ExecX(ctx)
				}
			}
			b.ResetTimer()
			var claiming time.Duration
			const perOp = 100
			for range b.N {
				for range perOp {
					start := time.Now()
					id, err := queue.Claim(ctx, db, queue.QueuedRuns, "w", now, 0)
					claiming += time.Since(start)
					if err != nil || id == 0 {
						b.Fatalf("claim: %d %v", id, err)
					}
					if _, err := queue.Release(ctx, db, queue.QueuedRuns, id, "w", now); err != nil {
						b.Fatal(err)
					}
				}
			}
			perClaim := float64(claiming.Microseconds()) / float64(b.N*perOp) / 1000
			b.ReportMetric(perClaim, "ms/claim")
			fmt.Printf("fair claim of a queued run beside a 2,000-run flood (%s): %.2f ms\n", dialect, perClaim)
		})
	}
}
