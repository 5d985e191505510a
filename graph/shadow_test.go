package graph

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Shadow runs (backtests) stay out of the runs list unless asked for, and
// are then listed apart with their side, scoped to the viewer's
// repositories like any run.
func TestShadowRunsListedApart(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		e.seedRun(e.repoA, e.revSec, e.prA, run.StatusSucceeded, 1, 1000, 0)
		e.seedRun(e.repoA, e.revPrf, e.prA, run.StatusSucceeded, 1, 1000, 0)
		shadow := func(repoID, backtest int, side run.BacktestSide) {
			r := e.seedRun(e.repoA, e.revSec, e.prA, run.StatusSucceeded, 0.5, 1000, 0)
			db.Run.UpdateOne(r).SetRepositoryID(repoID).SetShadow(true).SetTrigger(run.TriggerBacktest).
				SetBacktestID(backtest).SetBacktestSide(side).SetCheckRunID(0).ExecX(ctx)
		}
		shadow(e.repoA.ID, 5, run.BacktestSideOld)
		shadow(e.repoB.ID, 6, run.BacktestSideNew)

		count := func(login, where string) string {
			r := e.login(login).do(`{ runs(first: 10`+where+`) { totalCount edges { node { shadow backtestSide } } } }`, nil)
			r.ok(t)
			return r.raw
		}
		cases := []struct{ name, login, where, want string }{
			{"default: reviews only", "carol", "", `"totalCount":2`},
			{"shadow runs apart", "carol", `, where: {shadow: true}`, `"totalCount":2`},
			{"everything when shadow is any", "carol", `, where: {or: [{shadow: true}, {shadow: false}]}`, `"totalCount":4`},
			{"one backtest", "carol", `, where: {backtestID: 6}`, `"totalCount":1,"edges":[{"node":{"shadow":true,"backtestSide":"new"}}]`},
			{"the backtest trigger", "carol", `, where: {trigger: backtest}`, `"totalCount":2`},
			{"scoped to the viewer's repositories", "alice", `, where: {shadow: true}`, `"totalCount":1,"edges":[{"node":{"shadow":true,"backtestSide":"old"}}]`},
		}
		for _, c := range cases {
			if got := count(c.login, c.where); !strings.Contains(got, c.want) {
				t.Errorf("%s: %s, want %s", c.name, got, c.want)
			}
		}
	})
}

// The cost summary's backtest share: shadow runs' cost is part of the total
// (it is spent) and shown apart, in the period and the viewer's repositories.
func TestCostSummaryBacktestShare(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		at := func(day int) time.Time { return time.Date(2026, 3, day, 12, 0, 0, 0, time.UTC) }
		add := func(repoID int, day int, cost float64, shadow bool) {
			c := db.Run.Create().SetRepositoryID(repoID).SetReviewer(e.revSec).SetTrigger(run.TriggerComment).SetPrNumber(1).
				SetHeadSha("x").SetCreatedAt(at(day)).SetStatus(run.StatusSucceeded).SetCostUsd(cost)
			if shadow {
				c.SetShadow(true).SetTrigger(run.TriggerBacktest).SetBacktestID(1).SetBacktestSide(run.BacktestSideNew)
			}
			c.SaveX(ctx)
		}
		add(e.repoA.ID, 2, 1, false)
		add(e.repoA.ID, 3, 0.25, true)
		add(e.repoB.ID, 4, 0.5, true)
		add(e.repoA.ID, 31, 7, true) // outside [from, to)
		q := `{ costSummary(from: "2026-03-01T00:00:00Z", to: "2026-03-31T00:00:00Z", groupBy: DAY) { total { runs costUsd } backtest { runs costUsd } } }`
		for _, c := range []struct{ login, want string }{
			{"carol", `{"total":{"runs":3,"costUsd":1.75},"backtest":{"runs":2,"costUsd":0.75}}`},
			{"alice", `{"total":{"runs":2,"costUsd":1.25},"backtest":{"runs":1,"costUsd":0.25}}`},
		} {
			r := e.login(c.login).do(q, nil)
			r.ok(t)
			if !strings.Contains(r.raw, c.want) {
				t.Errorf("%s: %s, want %s", c.login, r.raw, c.want)
			}
		}
	})
}

// Finding trends count the findings of reviews: a backtest's shadow runs
// found nothing on a review anyone asked for.
func TestFindingTrendsLeaveShadowRunsOut(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		add := func(shadow bool, n int) {
			c := db.Run.Create().SetRepository(e.repoA).SetReviewer(e.revSec).SetTrigger(run.TriggerComment).SetPrNumber(1).
				SetHeadSha("x").SetCreatedAt(time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)).SetStatus(run.StatusSucceeded)
			if shadow {
				c.SetShadow(true).SetTrigger(run.TriggerBacktest).SetBacktestID(1).SetBacktestSide(run.BacktestSideOld)
			}
			r := c.SaveX(ctx)
			for i := 0; i < n; i++ {
				db.Finding.Create().SetRun(r).SetHiddenID(fmt.Sprintf("h%d", i)).SetPath("a.go").SetLine(i + 1).
					SetSeverity("major").SetCategory("bug").SetTitle("t").SaveX(ctx)
			}
		}
		add(false, 2)
		add(true, 3)
		r := e.login("carol").do(`{ findingTrends(from: "2026-03-01T00:00:00Z", to: "2026-03-31T00:00:00Z", interval: DAY) { key severity count } }`, nil)
		r.ok(t)
		if !strings.Contains(r.raw, `[{"key":"2026-03-02","severity":"major","count":2}]`) {
			t.Errorf("finding trends: %s, want the review's 2 findings alone", r.raw)
		}
	})
}
