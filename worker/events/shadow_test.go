package events_test

import (
	"context"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// A backtest's shadow runs replay an older head of a PR on purpose: the
// pull_request webhooks of a push and of closing the PR cancel its reviews
// but none of its shadow runs.
func TestPushAndCloseLeaveShadowRuns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db, envOpts{})
		rv := reviewerID(t, e, e.reviewer("sec", nil).Name)
		n := e.pr("feature", "a.go", false)
		e.drain()
		old := prHead(t, e, n)
		db.Run.Create().SetRepository(e.repo).SetReviewerID(rv).SetPrNumber(n).SetHeadSha(old).
			SetTrigger(run.TriggerPortal).SetStatus(run.StatusRunning).ExecX(ctx)
		db.Run.Create().SetRepository(e.repo).SetReviewerID(rv).SetPrNumber(n).SetHeadSha("0000000000000000000000000000000000000001").
			SetTrigger(run.TriggerBacktest).SetShadow(true).SetBacktestID(2).SetBacktestSide(run.BacktestSideOld).
			SetStatus(run.StatusQueued).ExecX(ctx)

		e.sim.Commit(repoFN, "feature", map[string]string{"c.go": "package main\n"}, "more")
		e.drain()
		want(t, "after a push", []string{"sec/backtest/queued", "sec/portal/cancelled"}, e.runsOf(n))

		db.Run.Create().SetRepository(e.repo).SetReviewerID(rv).SetPrNumber(n).SetHeadSha(old).
			SetTrigger(run.TriggerBacktest).SetShadow(true).SetBacktestID(2).SetBacktestSide(run.BacktestSideNew).
			SetStatus(run.StatusRunning).ExecX(ctx)
		e.sim.ClosePR(repoFN, n, "alice")
		e.drain()
		want(t, "after close", []string{"sec/backtest/queued", "sec/backtest/running", "sec/portal/cancelled"}, e.runsOf(n))
	})
}
