package ghwrite_test

import (
	"context"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Room says how long until a new review's writes (its check run and its
// workflow dispatch, two Starting writes) may go at once, spending nothing:
// after waiting it out both are admitted, before it the second is not; a
// wait GitHub asked for counts too.
func TestRoomIsWhenANewReviewsWritesGo(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		const inst = 42
		if _, err := db.Installation.Create().SetGithubID(inst).SetAccountLogin("acme").Save(ctx); err != nil {
			t.Fatal(err)
		}
		// 32 a minute: a write every 2 s, bursts of 4, 2 kept for reviews under way.
		b := ghwrite.NewDBBudget(db, []ghwrite.Window{{N: 32, Per: time.Minute}})
		now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
		room := func(at time.Time) time.Duration {
			t.Helper()
			d, err := b.Room(ctx, inst, ghwrite.Starting, 2, at)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		if d := room(now); d != 0 {
			t.Fatalf("room of a full budget: %v", d)
		}
		for i := range 3 { // reviews under way spend three of the four
			if wait, _, err := b.Admit(ctx, inst, ghwrite.Finishing, now); err != nil || wait > 0 {
				t.Fatalf("finishing write %d: %v %v", i+1, wait, err)
			}
		}
		d := room(now)
		if d <= 0 {
			t.Fatal("room for a new review with one write of the burst left")
		}
		if again := room(now); again != d {
			t.Fatalf("asking spent budget: room %v, then %v", d, again)
		}
		// 1 ms before the room's wait the second write does not go; at it, both do.
		at := now.Add(d - time.Millisecond)
		if wait, _, _ := b.Admit(ctx, inst, ghwrite.Starting, at); wait == 0 {
			if wait, _, _ := b.Admit(ctx, inst, ghwrite.Starting, at); wait == 0 {
				t.Fatalf("two new-review writes went %v before the room's wait", time.Millisecond)
			}
		}
		b2 := ghwrite.NewDBBudget(db, []ghwrite.Window{{N: 32, Per: time.Minute}}) // a fresh look at the same budget
		later := now.Add(time.Minute)
		if d := room(later); d != 0 {
			t.Fatalf("room a minute later: %v", d)
		}
		for i := range 2 {
			if wait, _, err := b2.Admit(ctx, inst, ghwrite.Starting, later); err != nil || wait > 0 {
				t.Fatalf("new-review write %d when Room said 0: wait %v err %v", i+1, wait, err)
			}
		}
		// GitHub's recorded wait holds a new review however full the budget.
		until := later.Add(90 * time.Second)
		if _, err := b.Record(ctx, inst, until, "a secondary rate limit", false, later); err != nil {
			t.Fatal(err)
		}
		if d := room(later.Add(time.Hour)); d != 0 {
			t.Fatalf("room after GitHub's wait passed: %v", d)
		}
		if d := room(later); d < 90*time.Second {
			t.Fatalf("room during GitHub's 90 s wait: %v", d)
		}
	})
}
