package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Transactions that queue two runs each, beside single updates of other
// runs' figures, all on the rollup's shared cells: none deadlocks, with no
// retry to hide one (each writes in a plain transaction or statement), and
// the rollup stays exact. With the cells taken grain-first, PostgreSQL broke
// deadlocks here within a few hundred writes.
func TestRollupWritersDoNotDeadlock(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
		var repos []*ent.Repository
		var revs []*ent.Reviewer
		for i := range 3 {
			repos = append(repos, db.Repository.Create().SetGithubID(int64(10+i)).SetOwner("acme").
				SetName(fmt.Sprint("r", i)).SetFullName(fmt.Sprint("acme/r", i)).SetInstallation(inst).SaveX(ctx))
			revs = append(revs, db.Reviewer.Create().SetName(fmt.Sprint("v", i)).SetInstallation(inst).SaveX(ctx))
		}
		var existing []int
		for i := range 9 {
			r := db.Run.Create().SetRepository(repos[i%3]).SetReviewer(revs[i/3]).SetPrNumber(1000 + i).
				SetHeadSha("seed").SetTrigger(run.TriggerComment).SaveX(ctx)
			existing = append(existing, r.ID)
		}

		const writers, rounds = 3, 40
		var wg sync.WaitGroup
		errs := make(chan error, 2*writers*rounds)
		for w := range writers {
			wg.Add(2)
			go func() { // queue two reviewers' runs of one PR together, as Enqueue does
				defer wg.Done()
				for i := range rounds {
					tx, err := db.Tx(ctx)
					if err != nil {
						errs <- err
						return
					}
					for k := range 2 {
						err = tx.Run.Create().SetRepositoryID(repos[(w+i)%3].ID).SetReviewerID(revs[(w+i+k)%3].ID).
							SetPrNumber(w*rounds + i).SetHeadSha("h").SetTrigger(run.TriggerAuto).Exec(ctx)
						if err != nil {
							break
						}
					}
					if err == nil {
						err = tx.Commit()
					} else {
						tx.Rollback() //nolint:errcheck
					}
					if err != nil {
						errs <- fmt.Errorf("queue: %w", err)
					}
				}
			}()
			go func() { // meter other runs, one statement each, as the gateway does
				defer wg.Done()
				for i := range rounds {
					err := db.Run.Update().Where(run.ID(existing[(w*rounds+i)%len(existing)])).
						AddCostUsd(0.01).AddInputTokens(100).Exec(ctx)
					if err != nil {
						errs <- fmt.Errorf("meter: %w", err)
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if n := db.Run.Query().CountX(ctx); n != len(existing)+writers*rounds*2 {
			t.Fatalf("runs: %d", n)
		}
		storetest.CheckRollupExact(t, db)
	})
}

// Retry runs work again while PostgreSQL reports a deadlock or a
// serialization failure, up to its bound, and never after another error.
func TestRetryOnlyRetryable(t *testing.T) {
	ctx := context.Background()
	deadlock := &pgconn.PgError{Code: "40P01", Message: "deadlock detected"}
	calls := 0
	err := store.Retry(ctx, func() error {
		calls++
		if calls < 3 {
			return fmt.Errorf("queue run: %w", deadlock)
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("deadlocked twice: err %v after %d calls, want success on the 3rd", err, calls)
	}
	calls = 0
	err = store.Retry(ctx, func() error { calls++; return &pgconn.PgError{Code: "40001"} })
	if !store.Retryable(err) || calls != 4 {
		t.Fatalf("always failing: err %v after %d calls, want the error after 4", err, calls)
	}
	calls = 0
	other := errors.New("constraint")
	err = store.Retry(ctx, func() error { calls++; return other })
	if err != other || calls != 1 {
		t.Fatalf("other error: %v after %d calls, want it at once", err, calls)
	}
	if store.Retryable(&pgconn.PgError{Code: "23505"}) {
		t.Fatal("a unique violation is not retryable")
	}
}

// A real deadlock on PostgreSQL is Retryable, and WithTx runs the victim
// again to success. (PostgreSQL only: SQLite has one writer at a time and no
// deadlock to break.)
func TestWithTxRetriesADeadlock(t *testing.T) {
	db := storetest.Open(t, "postgres")
	ctx := context.Background()
	repo, rv := storetest.SeedRepoReviewer(t, ctx, db)
	a := db.Run.Create().SetRepository(repo).SetReviewer(rv).SetPrNumber(1).SetHeadSha("a").SetTrigger(run.TriggerAuto).SaveX(ctx)
	b := db.Run.Create().SetRepository(repo).SetReviewer(rv).SetPrNumber(2).SetHeadSha("b").SetTrigger(run.TriggerAuto).SaveX(ctx)
	// Two transactions lock a and b in opposite orders, each waiting
	// for the other to hold its first row.
	var mu sync.Mutex
	attempts := map[string]int{}
	locked := make(chan struct{}, 2)
	both := make(chan struct{})
	var once sync.Once
	lock := func(name string, first, second int) error {
		return db.WithTx(ctx, func(tx *ent.Tx) error {
			mu.Lock()
			attempts[name]++
			n := attempts[name]
			mu.Unlock()
			if err := tx.Run.UpdateOneID(first).SetNote(name).Exec(ctx); err != nil {
				return err
			}
			if n == 1 {
				locked <- struct{}{}
				<-both
			}
			return tx.Run.UpdateOneID(second).SetNote(name).Exec(ctx)
		})
	}
	go func() { <-locked; <-locked; once.Do(func() { close(both) }) }()
	errs := make(chan error, 2)
	go func() { errs <- lock("ab", a.ID, b.ID) }()
	go func() { errs <- lock("ba", b.ID, a.ID) }()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("a transaction failed for good: %v", err)
		}
	}
	if attempts["ab"]+attempts["ba"] != 3 {
		t.Fatalf("attempts %v: want one of them run again once", attempts)
	}
}
