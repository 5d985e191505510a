package graph

import (
	"context"
	"strings"
	"testing"

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
