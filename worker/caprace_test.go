package worker_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/worker"
)

// Dispatchers racing for an installation's last slot under the concurrency
// cap start at most one run: a claimed run counts as in flight from its
// claim (committed before the count), so each sees the others.
func TestConcurrencyCapHoldsUnderRace(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		const racers = 4
		for i := range racers {
			f.enqueueAs(t, fmt.Sprintf("r%d", i))
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range racers {
			id := fmt.Sprintf("w%d", i)
			d, err := worker.NewDispatcher(worker.DispatchConfig{DB: f.db, Log: f.log, Bus: f.bus, GitHub: f.apps,
				WorkerID: id, PublicURL: "http://127.0.0.1:8080", AppSlug: "chakshu", MaxConcurrentRuns: 1})
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if rid, err := queue.Claim(ctx, db, queue.QueuedRuns, id, time.Now(), 0); err == nil && rid != 0 {
					d.Dispatch(ctx, rid)
				}
			}()
		}
		close(start)
		wg.Wait()
		if n := db.Run.Query().Where(run.StatusIn(run.StatusDispatched, run.StatusRunning)).CountX(ctx); n > 1 {
			t.Fatalf("%d runs started under a cap of 1", n)
		}
	})
}
