package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// An intake commit waiting for the write lock goes before pruning's next
// transaction.
func TestWriteGateUrgentFirst(t *testing.T) {
	ctx := context.Background()
	g := newWriteGate()
	if err := g.lockBackground(ctx); err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 2)
	go func() {
		if err := g.lockUrgent(ctx); err != nil {
			t.Error(err)
			return
		}
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
	if err := g.lockUrgent(ctx); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if err := g.lockBackground(cctx); err == nil {
		t.Error("the background writer took the lock an urgent writer holds")
	}
	g.unlockUrgent()
}

// Writers that wait get the turn in the order they came, and one that
// releases and asks again at once waits behind them; one whose context ends
// stops waiting and leaves its place.
func TestWriteGateTakesTurnsInOrder(t *testing.T) {
	ctx := context.Background()
	g := newWriteGate()
	if err := g.lock(ctx); err != nil {
		t.Fatal(err)
	}
	var order []int
	done := make(chan struct{})
	for i := range 3 {
		go func() {
			if err := g.lock(ctx); err != nil {
				t.Error(err)
			}
			order = append(order, i) // under the turn
			g.unlock()
			done <- struct{}{}
		}()
		WaitForWriters(t, i+1)
	}
	cctx, cancel := context.WithCancel(ctx)
	gaveUp := make(chan error)
	go func() { gaveUp <- g.lock(cctx) }()
	WaitForWriters(t, 4)
	cancel()
	if err := <-gaveUp; err != context.Canceled {
		t.Fatalf("a writer whose context ended got %v, want context.Canceled", err)
	}
	g.unlock()
	if err := g.lock(ctx); err != nil { // the releaser asks again at once
		t.Fatal(err)
	}
	order = append(order, 3)
	g.unlock()
	for range 3 {
		<-done
	}
	if fmt.Sprint(order) != "[0 1 2 3]" {
		t.Fatalf("turns went %v, want [0 1 2 3]: the waiters in order, then the releaser", order)
	}
}

// Pruning checkpoints the WAL at most once per pruneCheckpointEvery, and
// of two asking at once only one does.
func TestWriteGateCheckpointDue(t *testing.T) {
	g := newWriteGate()
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

// The gate counts each kind of writer's waits for its turn: a turn taken at
// once in the first bucket, one that waited behind another writer in the
// bucket of its wait, and one given up with the wait it gave up after.
func TestWriteGateCountsWaits(t *testing.T) {
	ctx := context.Background()
	g := newWriteGate()
	if err := g.lockUrgent(ctx); err != nil { // at once
		t.Fatal(err)
	}
	g.unlockUrgent()
	if err := g.lockBackground(ctx); err != nil {
		t.Fatal(err)
	}
	const held = 30 * time.Millisecond
	go func() {
		time.Sleep(held)
		g.unlockBackground()
	}()
	if err := g.lockUrgent(ctx); err != nil { // behind the background writer
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Millisecond)
	defer cancel()
	if err := g.lock(cctx); err == nil { // gives up behind the urgent one
		t.Fatal("an ordinary writer took the turn the intake holds")
	}
	g.unlockUrgent()

	intake := g.waits[writerIntake].read()
	if intake.Count != 2 || intake.Buckets[0] != 1 {
		t.Errorf("intake waits %+v; want 2 turns, one in the first bucket", intake)
	}
	if intake.Over(1) != 1 || intake.Sum < held {
		t.Errorf("intake waits %+v; want one over %v and at least %v in all", intake, WriteWaitBounds[1], held)
	}
	ordinary := g.waits[writerOrdinary].read()
	if ordinary.Count != 1 || ordinary.Buckets[0] != 0 || ordinary.Sum < 2*time.Millisecond {
		t.Errorf("ordinary waits %+v; want one given up after at least 2ms", ordinary)
	}
	if bg := g.waits[writerBackground].read(); bg.Count != 1 || bg.Buckets[0] != 1 {
		t.Errorf("background waits %+v; want one turn taken at once", bg)
	}
	if d := intake.Sub(intake); d.Count != 0 || d.Sum != 0 || d != (WriteWait{}) {
		t.Errorf("a figure less itself is %+v", d)
	}
	if s := intake.Add(ordinary); s.Count != 3 || s.Sum != intake.Sum+ordinary.Sum {
		t.Errorf("intake and ordinary together: %+v", s)
	}
}

// The intake counts as busy for pruning's handoff while its commits come at
// most busyInterval apart on average and the last was recent; a commit then
// carries a row for each rowInterval of that average, one to maxHandoffRows.
func TestHandoffBusyAndRows(t *testing.T) {
	var h pruneHandoff
	t0 := time.Unix(1_000_000, 0)
	if h.intakeBusy(t0) {
		t.Fatal("an intake that never committed counts as busy")
	}
	commits := func(every time.Duration, n int) time.Time {
		for range n {
			t0 = t0.Add(every)
			h.intakeCommitted(t0)
		}
		return t0
	}
	last := commits(500*time.Microsecond, 100) // 2,000 a second
	if !h.intakeBusy(last.Add(time.Millisecond)) || h.rows() != 1 {
		t.Errorf("at 2,000 commits/s: busy %v, %d rows a commit; want busy, 1", h.intakeBusy(last.Add(time.Millisecond)), h.rows())
	}
	if h.intakeBusy(last.Add(intakeBusyFor)) {
		t.Error("busy still when no commit came for intakeBusyFor")
	}
	last = commits(1700*time.Microsecond, 100) // about 600 a second
	if !h.intakeBusy(last) || h.rows() != 3 {
		t.Errorf("at 600 commits/s: busy %v, %d rows a commit; want busy, 3", h.intakeBusy(last), h.rows())
	}
	last = commits(3*time.Millisecond, 100) // about 330 a second: pruning writes itself
	if h.intakeBusy(last) {
		t.Error("busy at 330 commits a second")
	}
	commits(20*time.Millisecond, 100)
	if h.rows() != maxHandoffRows {
		t.Errorf("%d rows a commit at 50 commits/s; want the most, %d", h.rows(), maxHandoffRows)
	}
	// A lull of a minute counts as a second, and a burst soon makes the
	// intake busy again.
	t0 = t0.Add(time.Minute)
	last = commits(500*time.Microsecond, 60)
	if !h.intakeBusy(last) {
		t.Errorf("not busy after 60 commits at 2,000/s following a lull (average %v)", time.Duration(h.interval.Load()))
	}
	// A test's override counts any recent commit.
	h.busyFor.Store(int64(time.Second))
	commits(100*time.Millisecond, 20)
	if !h.intakeBusy(t0.Add(500 * time.Millisecond)) {
		t.Error("the override does not count a commit 500 ms ago")
	}
}
