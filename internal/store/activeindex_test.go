package store_test

import (
	"context"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// One active review per PR, reviewer and head SHA, but shadow runs (a
// backtest's old and new version) are left out of the rule: both sides of a
// backtest review one head at once, and neither blocks a real review of it.
func TestActiveReviewIndexLeavesShadowRunsOut(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		inst := db.Installation.Create().SetGithubID(7).SetAccountLogin("acme").SaveX(ctx)
		repo := db.Repository.Create().SetGithubID(70).SetOwner("acme").SetName("api").
			SetFullName("acme/api").SetInstallation(inst).SaveX(ctx)
		rv := db.Reviewer.Create().SetName("security").SetInstallation(inst).SaveX(ctx)
		mk := func(shadow bool, side run.BacktestSide) (*ent.Run, error) {
			c := db.Run.Create().SetRepository(repo).SetReviewer(rv).SetPrNumber(4).SetHeadSha("abc").
				SetTrigger(run.TriggerComment)
			if shadow {
				c.SetShadow(true).SetTrigger(run.TriggerBacktest).SetBacktestID(1).SetBacktestSide(side)
			}
			return c.Save(ctx)
		}
		if _, err := mk(true, run.BacktestSideOld); err != nil {
			t.Fatalf("old side: %v", err)
		}
		if _, err := mk(true, run.BacktestSideNew); err != nil {
			t.Fatalf("new side beside the old one: %v", err)
		}
		first, err := mk(false, run.BacktestSideNone)
		if err != nil {
			t.Fatalf("a real review beside the shadow runs: %v", err)
		}
		if _, err := mk(false, run.BacktestSideNone); !ent.IsConstraintError(err) {
			t.Fatalf("a second active real review: err %v, want a constraint error", err)
		}
		// Once the first is finished, the head may be reviewed again.
		db.Run.UpdateOne(first).SetStatus(run.StatusSucceeded).ExecX(ctx)
		if _, err := mk(false, run.BacktestSideNone); err != nil {
			t.Fatalf("a review after the first finished: %v", err)
		}
	})
}
