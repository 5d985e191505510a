package runstats_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/runstats"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// The Costs page's backtest share counts the period's shadow runs through
// the (shadow, created_at) index: through created_at alone, a year's count
// read every run of the year, 250 ms of a 260 ms cost summary beside a
// million runs (BenchmarkPortal in graph).
func TestBacktestShareReadsOnlyShadowRuns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		// A year of runs, a few of them shadow runs, and the planners'
		// statistics of them: on empty tables PostgreSQL picks any index.
		ctx := context.Background()
		inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
		repo := db.Repository.Create().SetGithubID(2).SetOwner("acme").SetName("app").SetFullName("acme/app").SetInstallation(inst).SaveX(ctx)
		rv := db.Reviewer.Create().SetName("security").SetInstallation(inst).SaveX(ctx)
		now := time.Now()
		for chunk := 0; chunk < 6; chunk++ {
			var cs []*ent.RunCreate
			for i := chunk * 500; i < (chunk+1)*500; i++ {
				cs = append(cs, db.Run.Create().SetRepository(repo).SetReviewer(rv).SetPrNumber(i).SetHeadSha("h").
					SetTrigger(run.TriggerAuto).SetStatus(run.StatusSucceeded).SetShadow(i%1000 == 0).
					SetCreatedAt(now.Add(-time.Duration(i)*3*time.Hour)))
			}
			db.Run.CreateBulk(cs...).ExecX(ctx)
		}
		if _, err := db.SQL.ExecContext(ctx, "ANALYZE"); err != nil {
			t.Fatal(err)
		}
		conn := storetest.PlanConn(t, db)
		shadow := true
		q, args := runstats.CountRunsSQL(db, runstats.RunSet{From: now.AddDate(-1, 0, 0), To: now, Shadow: &shadow})
		plan := strings.Join(storetest.Plan(t, db, conn, q, args...), "\n")
		want := "USING INDEX run_shadow_created_at (shadow=? AND created_at>? AND created_at<?)"
		if db.Postgres() {
			want = "run_shadow_created_at"
		}
		if !strings.Contains(plan, want) {
			t.Fatalf("the shadow runs are not read through (shadow, created_at):\n%s\n%s", q, plan)
		}
	})
}
