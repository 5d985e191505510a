package worker_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/runevent"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/worker"
)

// enqueueAs queues a run of a new reviewer named name on the fixture's PR.
func (f *fixture) enqueueAs(t *testing.T, name string) *ent.Run {
	t.Helper()
	rv := f.db.Reviewer.Create().SetName(name).SetInstallationID(f.repo.QueryInstallation().OnlyIDX(context.Background())).SaveX(context.Background())
	created, _, err := runstate.Enqueue(context.Background(), f.db, f.bus, runstate.Request{
		RepositoryID: f.repo.ID, ReviewerIDs: []int{rv.ID}, PRNumber: f.pr, HeadSHA: f.head,
		Trigger: run.TriggerComment, Requester: "alice"})
	if err != nil || len(created) != 1 {
		t.Fatalf("enqueue: %v (%d created)", err, len(created))
	}
	return created[0]
}

// spend records a finished run of another PR that cost usd, created at (the
// rollup triggers count it).
func (f *fixture) spend(t *testing.T, usd float64, at time.Time) {
	t.Helper()
	ctx := context.Background()
	n := f.db.Run.Query().CountX(ctx)
	f.db.Run.Create().SetRepository(f.repo).SetReviewer(f.reviewer).SetPrNumber(1000 + n).SetHeadSha(fmt.Sprintf("old%d", n)).
		SetTrigger(run.TriggerComment).SetStatus(run.StatusSucceeded).SetCostUsd(usd).SetCreatedAt(at).ExecX(ctx)
}

func (f *fixture) limitedDispatcher(t *testing.T, maxConcurrent int) *worker.Dispatcher {
	t.Helper()
	d, err := worker.NewDispatcher(worker.DispatchConfig{DB: f.db, Log: f.log, Bus: f.bus, GitHub: f.apps,
		WorkerID: "w1", PublicURL: "http://127.0.0.1:8080", AppSlug: "chakshu", MaxConcurrentRuns: maxConcurrent})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A budget allows runs while the spend is below it: just under the limit a
// run starts; at the limit the next one fails at once, its check run naming
// the budget and when it resets (with the infrastructure conclusion).
func TestBudgetsAtTheLimit(t *testing.T) {
	cases := []struct {
		name       string
		set        func(ctx context.Context, f *fixture)
		under, at  float64
		spentAt    func(now time.Time) time.Time
		want       string
		resetsAt   func(now time.Time) time.Time
		conclusion string
	}{
		{
			name: "repository daily",
			set: func(ctx context.Context, f *fixture) {
				f.db.Repository.UpdateOne(f.repo).SetBudgetDailyUsd(2).ExecX(ctx)
			},
			under: 1.99, at: 0.01, spentAt: func(now time.Time) time.Time { return now },
			want: "daily spend budget of $2.00 for repository acme/widget is used up ($2.00 spent today)",
			resetsAt: func(now time.Time) time.Time {
				return time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
			},
			conclusion: "failure",
		},
		{
			// Spend earlier this month counts toward the month, not today.
			name: "installation monthly, neutral",
			set: func(ctx context.Context, f *fixture) {
				f.db.Installation.UpdateOneID(f.repo.QueryInstallation().OnlyIDX(ctx)).SetBudgetMonthlyUsd(5).SetBudgetDailyUsd(100).ExecX(ctx)
			},
			under: 4.5, at: 0.5, spentAt: func(now time.Time) time.Time { return time.Date(now.Year(), now.Month(), 1, 0, 30, 0, 0, time.UTC) },
			want:       "monthly spend budget of $5.00 for installation acme is used up ($5.00 spent this month)",
			resetsAt:   func(now time.Time) time.Time { return time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC) },
			conclusion: "neutral",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				ctx := context.Background()
				f := newFixture(t, db, nil)
				now := time.Now().UTC()
				tc.set(ctx, f)
				d := f.limitedDispatcher(t, 0)

				f.spend(t, tc.under, tc.spentAt(now))
				ok := f.enqueueAs(t, "under")
				f.claimAndDispatch(t, d, "w1")
				if got := db.Run.GetX(ctx, ok.ID); got.Status != run.StatusDispatched {
					t.Fatalf("under the budget: %s (%s)", got.Status, got.FailureReason)
				}

				f.spend(t, tc.at, tc.spentAt(now))
				refused := f.enqueueAs(t, "at")
				f.claimAndDispatch(t, d, "w1")
				got := db.Run.GetX(ctx, refused.ID)
				reset := tc.resetsAt(now).Format("2006-01-02 15:04")
				if got.Status != run.StatusFailed || !strings.Contains(got.FailureReason, tc.want) || !strings.Contains(got.FailureReason, "resets at "+reset+" UTC") {
					t.Fatalf("at the budget: %s %q (want %q, resets %s)", got.Status, got.FailureReason, tc.want, reset)
				}
				if got.ActionsRunID != 0 {
					t.Fatal("a workflow was started over budget")
				}
				fin, err := worker.NewFinisher(worker.FinishConfig{DB: db, Log: f.log, Bus: f.bus, GitHub: f.apps, InfraFailureConclusion: tc.conclusion})
				if err != nil {
					t.Fatal(err)
				}
				if err := fin.FinishAll(ctx); err != nil {
					t.Fatal(err)
				}
				c := f.checkRun(t, got.CheckRunID)
				if c.Status != "completed" || c.Conclusion != tc.conclusion || !strings.Contains(c.Summary, tc.want) {
					t.Fatalf("check run: %+v", c)
				}
			})
		})
	}
}

// With a cap of 2 runs in flight per installation, the second run starts and
// the third stays queued (not failed), saying why once, until a slot frees.
func TestConcurrencyCapAtTheLimit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		d := f.limitedDispatcher(t, 2)
		first, second, third := f.enqueueAs(t, "one"), f.enqueueAs(t, "two"), f.enqueueAs(t, "three")
		f.claimAndDispatch(t, d, "w1")
		f.claimAndDispatch(t, d, "w1")
		for _, r := range []*ent.Run{first, second} {
			if got := db.Run.GetX(ctx, r.ID).Status; got != run.StatusDispatched {
				t.Fatalf("run %d within the cap: %s", r.ID, got)
			}
		}
		for i := 0; i < 2; i++ { // held twice: one timeline note
			id, err := queue.Claim(ctx, db, queue.QueuedRuns, "w1", time.Now().Add(time.Duration(i)*worker.CapWait+time.Second), 0)
			if err != nil || id != third.ID {
				t.Fatalf("claim %d: id %d err %v", i, id, err)
			}
			d.Dispatch(ctx, id)
			got := db.Run.GetX(ctx, third.ID)
			if got.Status != run.StatusQueued || got.LeaseOwner != "" || got.NextAttemptAt == nil || !got.NextAttemptAt.After(time.Now()) {
				t.Fatalf("over the cap: status %s lease %q next %v", got.Status, got.LeaseOwner, got.NextAttemptAt)
			}
		}
		notes := db.RunEvent.Query().Where(runevent.HasRunWith(run.ID(third.ID)), runevent.MessageContains("the cap is 2")).CountX(ctx)
		if notes != 1 {
			t.Fatalf("%d cap notes, want 1", notes)
		}
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "w1", time.Now(), 0); id != 0 {
			t.Fatalf("a held run was claimed again before its wait: %d", id)
		}
		// A run finishes: the held one starts on its next claim.
		db.Run.UpdateOneID(first.ID).SetStatus(run.StatusSucceeded).ExecX(ctx)
		id, err := queue.Claim(ctx, db, queue.QueuedRuns, "w1", time.Now().Add(3*worker.CapWait), 0)
		if err != nil || id != third.ID {
			t.Fatalf("claim after a slot freed: %d %v", id, err)
		}
		d.Dispatch(ctx, id)
		if got := db.Run.GetX(ctx, third.ID).Status; got != run.StatusDispatched {
			t.Fatalf("after a slot freed: %s", got)
		}
	})
}
