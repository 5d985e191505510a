package runstate_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

func seed(t *testing.T, db *store.DB) (repoID int, reviewers []int) {
	ctx := context.Background()
	inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
	repo := db.Repository.Create().SetGithubID(10).SetOwner("acme").SetName("api").SetFullName("acme/api").SetInstallation(inst).SaveX(ctx)
	for _, n := range []string{"security", "style"} {
		reviewers = append(reviewers, db.Reviewer.Create().SetName(n).SetInstallation(inst).SaveX(ctx).ID)
	}
	return repo.ID, reviewers
}

func TestEnqueueDedupes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		repo, revs := seed(t, db)
		bus := wakeup.NewLocal()
		wake, stop := bus.Subscribe(wakeup.TopicRuns)
		defer stop()
		req := runstate.Request{RepositoryID: repo, ReviewerIDs: revs, PRNumber: 3, HeadSHA: "h1", Trigger: run.TriggerComment, Requester: "ana"}
		created, skipped, err := runstate.Enqueue(ctx, db, bus, req)
		if err != nil || len(created) != 2 || len(skipped) != 0 {
			t.Fatalf("first enqueue: created %d skipped %v err %v", len(created), skipped, err)
		}
		select {
		case <-wake:
		default:
			t.Fatal("enqueue did not wake the dispatchers")
		}
		created, skipped, err = runstate.Enqueue(ctx, db, bus, req)
		if err != nil || len(created) != 0 || len(skipped) != 2 {
			t.Fatalf("second enqueue: created %d skipped %v err %v", len(created), skipped, err)
		}
		req.HeadSHA = "h2" // a new head is a new review
		if created, _, _ = runstate.Enqueue(ctx, db, bus, req); len(created) != 2 {
			t.Fatalf("new head: created %d", len(created))
		}
	})
}

// Two processes racing to move the same run: exactly one wins.
func TestTransitionIsCompareAndSet(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		repo, revs := seed(t, db)
		created, _, err := runstate.Enqueue(ctx, db, nil, runstate.Request{RepositoryID: repo, ReviewerIDs: revs[:1], PRNumber: 1, HeadSHA: "h", Trigger: run.TriggerPortal})
		if err != nil {
			t.Fatal(err)
		}
		id := created[0].ID
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins, conflicts := 0, 0
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := runstate.Transition(ctx, db.Client, id, runstate.Change{From: []run.Status{run.StatusQueued}, To: run.StatusDispatched, Message: "dispatched"})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					wins++
				case errors.Is(err, runstate.ErrConflict):
					conflicts++
				default:
					t.Errorf("transition: %v", err)
				}
			}()
		}
		wg.Wait()
		if wins != 1 || conflicts != 7 {
			t.Fatalf("wins %d conflicts %d, want 1 and 7", wins, conflicts)
		}
		if err := runstate.Fail(ctx, db.Client, id, "The review could not start.", "token ghs_abcdefghijklmnopqrstuvwxyz0123"); err != nil {
			t.Fatal(err)
		}
		r := db.Run.GetX(ctx, id)
		if r.Status != run.StatusFailed || r.FinishedAt == nil || r.FailureDetail != "token [REDACTED]" {
			t.Fatalf("failed run: status %s finished %v detail %q", r.Status, r.FinishedAt, r.FailureDetail)
		}
		if err := runstate.Fail(ctx, db.Client, id, "again", ""); !errors.Is(err, runstate.ErrConflict) {
			t.Fatalf("failing a finished run: %v", err)
		}
		if n := db.RunEvent.Query().CountX(ctx); n != 3 {
			t.Fatalf("timeline has %d entries, want 3 (queued, dispatched, failed)", n)
		}
	})
}

func TestTextIsStorable(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                "plain",
		"a\x00b":               "ab",
		"bad \xff\xfe utf-8":   "bad \uFFFD utf-8",
		"\x1b[2J \u202e kept":  "\x1b[2J \u202e kept",
		"\x00\xff\x00":         "\uFFFD",
		"ünï\x00 cödé\xc3\x28": "ünï cödé\uFFFD(",
	} {
		if got := runstate.Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}
