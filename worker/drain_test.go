package worker_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	entworker "github.com/chakshu-dev/chakshu/ent/worker"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/worker"
)

// holdLoop claims a run and a webhook event, then holds them until ctx ends.
type holdLoop struct {
	db      *store.DB
	owner   string
	claimed chan int
}

func (holdLoop) Name() string { return "hold" }

func (l holdLoop) Run(ctx context.Context) error {
	id, err := queue.Claim(ctx, l.db, queue.QueuedRuns, l.owner, time.Now(), 0)
	if err != nil {
		return err
	}
	if err := l.db.WebhookEvent.Update().Where(webhookevent.DeliveryID("d-held")).
		SetStatus(webhookevent.StatusProcessing).SetLeaseOwner(l.owner).SetHeartbeatAt(time.Now()).Exec(ctx); err != nil {
		return err
	}
	l.claimed <- id
	<-ctx.Done()
	return nil
}

// A worker that stops (SIGTERM) hands back what it holds at once: another
// worker claims the run and the event without waiting for the dead-worker
// sweep; what another worker holds is left alone.
func TestStoppingWorkerReleasesItsLeases(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		r := f.enqueue(t)
		db.WebhookEvent.Create().SetDeliveryID("d-held").SetEvent("issue_comment").SetPayload([]byte("{}")).ExecX(ctx)
		db.WebhookEvent.Create().SetDeliveryID("d-other").SetEvent("issue_comment").SetPayload([]byte("{}")).
			SetStatus(webhookevent.StatusProcessing).SetLeaseOwner("w-other").SetHeartbeatAt(time.Now()).ExecX(ctx)
		loop := holdLoop{db: db, owner: "w-stopping", claimed: make(chan int, 1)}
		w, err := worker.New(worker.Config{DB: db, Log: slog.New(slog.DiscardHandler), ID: "w-stopping", Loops: []worker.Loop{loop}})
		if err != nil {
			t.Fatal(err)
		}
		wctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- w.Run(wctx) }()
		if id := <-loop.claimed; id != r.ID {
			t.Fatalf("claimed %d, want %d", id, r.ID)
		}
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "w2", time.Now(), 0); id != 0 {
			t.Fatal("a held run was claimed by another worker")
		}
		stop()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if id, err := queue.Claim(ctx, db, queue.QueuedRuns, "w2", time.Now(), 0); err != nil || id != r.ID {
			t.Fatalf("after the stop another worker claims %d (%v), want %d at once", id, err, r.ID)
		}
		held := db.WebhookEvent.Query().Where(webhookevent.DeliveryID("d-held")).OnlyX(ctx)
		if held.Status != webhookevent.StatusPending || held.LeaseOwner != "" {
			t.Fatalf("held event after the stop: %s owner %q, want pending and free", held.Status, held.LeaseOwner)
		}
		other := db.WebhookEvent.Query().Where(webhookevent.DeliveryID("d-other")).OnlyX(ctx)
		if other.Status != webhookevent.StatusProcessing || other.LeaseOwner != "w-other" {
			t.Fatalf("another worker's event was touched: %s %q", other.Status, other.LeaseOwner)
		}
		if !db.Worker.Query().Where(entworker.WorkerID("w-stopping")).OnlyX(ctx).Stopped {
			t.Fatal("the worker is not marked stopped")
		}
	})
}
