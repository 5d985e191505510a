package store

import (
	"context"
	"testing"
	"time"
)

// An intake commit waiting for the write lock goes before pruning's next
// transaction.
func TestWriteGateUrgentFirst(t *testing.T) {
	ctx := context.Background()
	var g writeGate
	if err := g.lockBackground(ctx); err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 2)
	go func() {
		g.lockUrgent()
		order <- "urgent"
		time.Sleep(20 * time.Millisecond) // hold it: the background writer must wait
		g.unlockUrgent()
	}()
	for g.urgent.Load() == 0 { // the urgent writer waits
		time.Sleep(time.Millisecond)
	}
	bgDone := make(chan struct{})
	go func() {
		defer close(bgDone)
		if err := g.lockBackground(ctx); err != nil {
			t.Error(err)
			return
		}
		order <- "background"
		g.unlockBackground()
	}()
	time.Sleep(5 * time.Millisecond)
	g.unlockBackground()
	<-bgDone
	if a, b := <-order, <-order; a != "urgent" || b != "background" {
		t.Errorf("order %s, %s; want urgent, background", a, b)
	}

	// A background writer gives up when its context ends while urgent writers hold on.
	g.lockUrgent()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if err := g.lockBackground(cctx); err == nil {
		t.Error("the background writer took the lock an urgent writer holds")
	}
	g.unlockUrgent()
}

// Pruning checkpoints the WAL at most once per pruneCheckpointEvery, and
// of two asking at once only one does.
func TestWriteGateCheckpointDue(t *testing.T) {
	var g writeGate
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	if !g.checkpointDue(t0) {
		t.Fatal("the first prune transaction does not checkpoint")
	}
	if g.checkpointDue(t0.Add(pruneCheckpointEvery - time.Millisecond)) {
		t.Fatal("checkpointed again within pruneCheckpointEvery")
	}
	if !g.checkpointDue(t0.Add(pruneCheckpointEvery)) {
		t.Fatal("no checkpoint after pruneCheckpointEvery")
	}
	if g.checkpointDue(t0.Add(pruneCheckpointEvery)) {
		t.Fatal("two checkpoints for one moment")
	}
}
