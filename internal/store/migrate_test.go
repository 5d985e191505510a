package store_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// triggers lists the rollup triggers installed.
func triggers(t *testing.T, db *store.DB) []string {
	t.Helper()
	q := "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'runs_rollup_%'"
	if db.Postgres() {
		q = "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgname LIKE 'runs_rollup_%'"
	}
	out := names(t, db, q)
	sort.Strings(out)
	return out
}

// names runs a query of one text column and returns its values.
func names(t *testing.T, db *store.DB, q string) []string {
	t.Helper()
	rows, err := db.SQL.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// A sentinel cell no run touches: a rebuild of the rollup deletes it, so its
// survival shows no start rebuilt the rollup.
func plantSentinel(t *testing.T, db *store.DB) {
	t.Helper()
	if _, err := db.SQL.ExecContext(context.Background(),
		`INSERT INTO cost_rollups (grain, day, repository_id, reviewer_id, runs) VALUES ('dt', '1999-01-01', 0, 0, 7)`); err != nil {
		t.Fatal(err)
	}
}

func sentinel(t *testing.T, db *store.DB) bool {
	t.Helper()
	var n int
	err := db.SQL.QueryRowContext(context.Background(),
		`SELECT COUNT(*) FROM cost_rollups WHERE grain = 'dt' AND day = '1999-01-01' AND runs = 7`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func dropSentinel(t *testing.T, db *store.DB) {
	t.Helper()
	if _, err := db.SQL.ExecContext(context.Background(), `DELETE FROM cost_rollups WHERE day = '1999-01-01'`); err != nil {
		t.Fatal(err)
	}
}

// loadFixture fills an empty database with a release's dump.
func loadFixture(t *testing.T, db *store.DB, release int) {
	t.Helper()
	d := "sqlite"
	if db.Postgres() {
		d = "postgres"
	}
	b, err := os.ReadFile(fmt.Sprintf("testdata/release%d.%s.sql", release, d))
	if err != nil {
		t.Fatal(err)
	}
	// One connection: SQLite's dump switches foreign keys off for it, and
	// they are switched back on before it returns to the pool.
	ctx := context.Background()
	conn, err := db.SQL.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, string(b)); err != nil {
		t.Fatalf("load release %d fixture: %v", release, err)
	}
	if !db.Postgres() {
		if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys=ON"); err != nil {
			t.Fatal(err)
		}
	}
}

// writeReachesRollup writes a finished run through this release's schema
// into a fixture's repository and checks that the rollup holds it exactly.
func writeReachesRollup(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	repo := db.Repository.Query().OnlyX(ctx)
	rv := db.Reviewer.Query().FirstX(ctx)
	r := db.Run.Create().SetRepository(repo).SetReviewer(rv).SetPrNumber(99).SetHeadSha("new").
		SetTrigger(run.TriggerPortal).SaveX(ctx)
	db.Run.UpdateOne(r).SetStatus(run.StatusSucceeded).SetCostUsd(0.5).SetDurationMs(30_000).ExecX(ctx)
	storetest.CheckRollupExact(t, db)
}

// dropsLegacy is the first release that runs beside no schema naming the
// legacy result columns (v0.1.0's queries do): it drops them.
var dropsLegacy = store.Release{Schema: store.Current.Schema + 1, MinCompatible: 5, Rollup: store.Current.Rollup}

// A database created and filled by release 1 (the last release before the
// schema record; testdata/capture made the dump at its commit) is brought to
// this release's schema: its data survives, the new columns and tables work,
// and release 1's rollup triggers (v3) are replaced by this release's newer
// ones, the rollup rebuilt once, then following writes exactly.
func TestUpgradeFromRelease1(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			db := storetest.OpenEmpty(t, d)
			loadFixture(t, db, 1)
			// Results as schema 2 stored them, in the legacy columns alone.
			for _, q := range []string{
				`UPDATE runs SET result_json = '{"summary":"S","checked":{"files":[],"skills":[]},"findings":[{"path":"a.go","line":2,"severity":"nit","category":"style","title":"T","body":"B"}]}',
					checked = '{"files":["a.go"],"skills":[],"files_read":["a.go"],"evidence":{"kept":1,"moved":0,"dropped":2,"unchecked":0,"dropped_findings":[]}}' WHERE pr_number = 10`,
				`UPDATE runs SET kind = 'reply', result_json = '{"reply":"Fixed now.","verdict":"fixed"}' WHERE pr_number = 12`,
				`UPDATE runs SET result_json = '{not json' WHERE pr_number = 11`,
			} {
				if _, err := db.SQL.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			before := triggers(t, db)
			if len(before) == 0 {
				t.Fatal("the fixture has no rollup triggers")
			}
			plantSentinel(t, db)

			rep, err := db.MigrateAs(ctx, store.Current)
			if err != nil {
				t.Fatalf("upgrade: %v", err)
			}
			const release1Rollup = 3
			if store.Current.Rollup <= release1Rollup {
				t.Fatalf("this release's rollup version %d is not newer than release 1's", store.Current.Rollup)
			}
			want := store.MigrateReport{DatabaseSchema: 1, SchemaChanged: true, RollupInstalled: true}
			if rep != want {
				t.Fatalf("report %+v, want %+v", rep, want)
			}
			if sentinel(t, db) {
				t.Fatal("the upgrade installed new triggers but did not rebuild the rollup")
			}
			after := triggers(t, db)
			if len(after) != len(before) {
				t.Fatalf("triggers %v after release 1's %v", after, before)
			}
			for _, n := range after {
				if !strings.HasPrefix(n, fmt.Sprintf("runs_rollup_v%d_", store.Current.Rollup)) {
					t.Fatalf("trigger %s of another version is left", n)
				}
			}
			plantSentinel(t, db)
			if rep, err := db.MigrateAs(ctx, store.Current); err != nil || rep.RollupInstalled || !sentinel(t, db) {
				t.Fatalf("a second start: %+v %v; want nothing installed or rebuilt", rep, err)
			}
			// A new column with its own index is added in place and indexed.
			for _, ix := range []string{"run_backtest_id", "finding_outcome", "run_active_review"} {
				if !indexExists(t, db, ix) {
					t.Fatalf("index %s missing after the upgrade", ix)
				}
			}
			// The active-review index it replaced is gone.
			if indexExists(t, db, "run_pr_number_head_sha_kind_repository_runs_reviewer_runs") {
				t.Fatal("the replaced active-review index is still there")
			}
			dropSentinel(t, db)
			storetest.CheckRollupExact(t, db)

			// Release 1's data, read through this release's schema.
			if n := db.Run.Query().CountX(ctx); n != 5 {
				t.Fatalf("runs after upgrade: %d, want 5", n)
			}
			var cost float64
			if err := db.SQL.QueryRowContext(ctx, `SELECT SUM(cost_usd) FROM runs`).Scan(&cost); err != nil || fmt.Sprintf("%.2f", cost) != "1.57" {
				t.Fatalf("cost after upgrade: %v %v", cost, err)
			}
			if n := db.Finding.Query().CountX(ctx); n != 2 {
				t.Fatalf("findings after upgrade: %d, want 2", n)
			}
			if n := db.WebhookEvent.Query().CountX(ctx); n != 2 {
				t.Fatalf("webhook events after upgrade: %d, want 2", n)
			}
			// Schema 2's results, converted before their columns went.
			converted := map[int]*findings.Stored{
				10: {Review: &findings.Result{Summary: "S", Checked: findings.Checked{Files: []string{}, Skills: []string{}},
					Findings: []findings.Finding{{Path: "a.go", Line: 2, Side: "RIGHT", Severity: findings.Nit, Category: "style", Title: "T", Body: "B"}}},
					Checked: &findings.Coverage{Files: []string{"a.go"}, Skills: []string{}, FilesRead: []string{"a.go"},
						Evidence: &findings.RunnerEvidence{Kept: 1, Dropped: 2, DroppedFindings: []findings.DroppedFinding{}}}},
				12: {Reply: &findings.ReplyResult{Reply: "Fixed now.", Verdict: findings.VerdictFixed}},
			}
			if d := cmp.Diff(converted, results(t, db)); d != "" {
				t.Errorf("results by PR after the upgrade (-want +got):\n%s", d)
			}
			// The first release that runs beside no schema naming them drops them.
			if _, err := db.MigrateAs(ctx, dropsLegacy); err != nil {
				t.Fatal(err)
			}
			if cols := legacyColumns(t, db); len(cols) != 0 {
				t.Errorf("legacy columns %v left", cols)
			}
			if d := cmp.Diff(converted, results(t, db)); d != "" {
				t.Errorf("results by PR after the drop (-want +got):\n%s", d)
			}
			// Writes through this release's schema reach the rollup.
			writeReachesRollup(t, db)

			hist, err := db.SchemaHistory(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(hist) != 2 || hist[0].Schema != store.Current.Schema || hist[0].MinCompatible != store.Current.MinCompatible || hist[1].Schema != dropsLegacy.Schema {
				t.Fatalf("schema history %+v", hist)
			}
		})
	}
}

// A database created and filled by v0.1.0 (release 2 of the fixtures:
// schema 4, rollup triggers v4; testdata/capture made the dump at its tag)
// starts under this release with its data and the results its runs
// reported intact, the rollup exact (rebuilt only when this release brings
// newer triggers), v0.1.0 still able to start beside it, and the legacy
// result columns dropped, and v0.1.0 refused, only by a later release.
func TestUpgradeFromRelease2(t *testing.T) {
	const release2Schema, release2Rollup = 4, 4
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			db := storetest.OpenEmpty(t, d)
			loadFixture(t, db, 2)
			rep, err := db.MigrateAs(ctx, store.Current)
			if err != nil {
				t.Fatalf("start on v0.1.0's database: %v", err)
			}
			if rep.DatabaseSchema != release2Schema || rep.RollupInstalled != (store.Current.Rollup > release2Rollup) {
				t.Fatalf("report %+v: want database schema %d, rollup rebuilt only for triggers newer than v%d", rep, release2Schema, release2Rollup)
			}
			storetest.CheckRollupExact(t, db)
			if n := db.Run.Query().CountX(ctx); n != 5 {
				t.Fatalf("runs after the start: %d, want 5", n)
			}
			if n := db.Finding.Query().CountX(ctx); n != 2 {
				t.Fatalf("findings after the start: %d, want 2", n)
			}
			// The results v0.1.0 stored, as it stored them.
			got := results(t, db)
			for _, pr := range []int{10, 12} {
				if r := got[pr]; r == nil || r.Review == nil || r.Review.Summary != fmt.Sprintf("Run %d.", pr-10) || len(r.Review.Findings) != 1 ||
					r.Checked == nil || !cmp.Equal(r.Checked.FilesRead, []string{"main.go", "go.mod"}) {
					t.Errorf("PR %d's result after the start: %+v", pr, r)
				}
			}
			if len(got) != 2 {
				t.Errorf("results of PRs %v, want 10 and 12", slices.Collect(maps.Keys(got)))
			}
			if hist, err := db.SchemaHistory(ctx); err != nil || len(hist) != 2 || hist[0].Build != "v0.1.0" {
				t.Fatalf("schema history %+v %v: want v0.1.0's record of schema %d kept", hist, err, release2Schema)
			}
			// This release runs beside v0.1.0, whose queries still name the
			// legacy columns: they stay, and v0.1.0 may start again.
			if cols := legacyColumns(t, db); len(cols) != 2 {
				t.Errorf("legacy columns %v beside schema 4, want both", cols)
			}
			// This release's inserts leave them out: their database default fills them.
			writeReachesRollup(t, db)
			if _, err := db.MigrateAs(ctx, store.Release{Schema: release2Schema, MinCompatible: 3, Rollup: release2Rollup}); err != nil {
				t.Errorf("v0.1.0 beside this release: %v", err)
			}
			// A later release running beside no schema that names them drops
			// them, keeps the results, and v0.1.0 may not start after it.
			if _, err := db.MigrateAs(ctx, dropsLegacy); err != nil {
				t.Fatal(err)
			}
			if cols := legacyColumns(t, db); len(cols) != 0 || len(results(t, db)) != 2 {
				t.Errorf("after the drop: legacy columns %v, %d results; want none and 2", cols, len(results(t, db)))
			}
			_, err = db.MigrateAs(ctx, store.Release{Schema: release2Schema, MinCompatible: 3, Rollup: release2Rollup})
			if !errors.Is(err, store.ErrSchemaTooOld) || !strings.Contains(err.Error(), fmt.Sprintf("this binary is schema %d", release2Schema)) {
				t.Errorf("v0.1.0 started after the drop: %v", err)
			}
			writeReachesRollup(t, db)
			hist, err := db.SchemaHistory(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// Schema 4's record stays beside this release's and the later one's.
			if len(hist) != 3 || hist[0].Schema != release2Schema || hist[1].Schema != store.Current.Schema || hist[2].Schema != dropsLegacy.Schema {
				t.Fatalf("schema history %+v: want schema %d's record, then %d's and %d's", hist, release2Schema, store.Current.Schema, dropsLegacy.Schema)
			}
		})
	}
}

// N and N-1 against one database, as in a rolling deploy and a rollback: the
// newer release installs its triggers and rebuilds the rollup once; the older
// one, started again and again beside it, changes no schema, keeps the newer
// triggers and never rebuilds; writes from both stay in the rollup exactly.
func TestRollbackNoFlipFlop(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		prev := store.Current                                                   // N-1: what is released now
		next := store.Release{Schema: prev.Schema + 1, Rollup: prev.Rollup + 1} // N: a release with new triggers
		repo, rv := storetest.SeedRepoReviewer(t, ctx, db)
		pr := 0
		write := func() {
			pr++
			r := db.Run.Create().SetRepository(repo).SetReviewer(rv).SetPrNumber(pr).SetHeadSha("h").
				SetTrigger(run.TriggerComment).SaveX(ctx)
			db.Run.UpdateOne(r).SetStatus(run.StatusSucceeded).SetCostUsd(0.25).SetDurationMs(int64(pr) * 10_000).
				SetFindingsMinor(1).ExecX(ctx)
		}
		write()

		rep, err := db.MigrateAs(ctx, next)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.SchemaChanged || !rep.RollupInstalled {
			t.Fatalf("N's first start: %+v, want the schema migrated and its triggers installed", rep)
		}
		newTriggers := triggers(t, db)
		for _, n := range newTriggers {
			if !strings.HasPrefix(n, fmt.Sprintf("runs_rollup_v%d_", next.Rollup)) {
				t.Fatalf("after N's start, trigger %s of another version is left", n)
			}
		}
		storetest.CheckRollupExact(t, db)
		plantSentinel(t, db)
		write()

		// An index N needs, gone: an older start must not bring schema back or
		// change it; only a start at N's schema does.
		if _, err := db.SQL.ExecContext(ctx, `DROP INDEX run_actions_run_id`); err != nil {
			t.Fatal(err)
		}
		for i, rel := range []store.Release{prev, next, prev, prev, next} {
			rep, err := db.MigrateAs(ctx, rel)
			if err != nil {
				t.Fatalf("start %d (schema %d): %v", i, rel.Schema, err)
			}
			if rep.RollupInstalled {
				t.Fatalf("start %d (schema %d) reinstalled the triggers: %+v", i, rel.Schema, rep)
			}
			wantKept := 0
			if rel == prev {
				wantKept = next.Rollup
			}
			if rep.RollupKept != wantKept || rep.SchemaChanged != (rel == next) || rep.DatabaseSchema != next.Schema {
				t.Fatalf("start %d (schema %d): %+v", i, rel.Schema, rep)
			}
			if i == 0 && indexExists(t, db, "run_actions_run_id") {
				t.Fatal("the older release changed the schema")
			}
			if got := triggers(t, db); !cmp.Equal(got, newTriggers) {
				t.Fatalf("start %d (schema %d): triggers %v, want %v", i, rel.Schema, got, newTriggers)
			}
			if !sentinel(t, db) {
				t.Fatalf("start %d (schema %d) rebuilt the rollup", i, rel.Schema)
			}
			write()
		}
		if !indexExists(t, db, "run_actions_run_id") {
			t.Fatal("N's start did not bring its schema back")
		}
		dropSentinel(t, db)
		// No lost writes: every run is there and in the rollup.
		if n := db.Run.Query().CountX(ctx); n != pr {
			t.Fatalf("runs: %d, want %d", n, pr)
		}
		storetest.CheckRollupExact(t, db)
		var runs int
		db.SQL.QueryRowContext(ctx, `SELECT runs FROM cost_rollups WHERE grain = 'mt'`).Scan(&runs) //nolint:errcheck
		if runs != pr {
			t.Fatalf("rollup counts %d runs, want %d", runs, pr)
		}
	})
}

// results are the runs' typed results by PR number.
func results(t *testing.T, db *store.DB) map[int]*findings.Stored {
	t.Helper()
	out := map[int]*findings.Stored{}
	for _, r := range db.Run.Query().Where(run.ResultNotNil()).AllX(context.Background()) {
		out[r.PrNumber] = r.Result
	}
	return out
}

// legacyColumns lists the legacy result columns runs still has.
func legacyColumns(t *testing.T, db *store.DB) []string {
	t.Helper()
	q := `SELECT name FROM pragma_table_info('runs') WHERE name IN ('result_json', 'checked') ORDER BY name`
	if db.Postgres() {
		q = `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'runs'
			AND column_name IN ('result_json', 'checked') ORDER BY column_name`
	}
	return names(t, db, q)
}

func indexExists(t *testing.T, db *store.DB, name string) bool {
	t.Helper()
	q := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = ?`
	if db.Postgres() {
		q = `SELECT COUNT(*) FROM pg_indexes WHERE indexname = $1`
	}
	var n int
	if err := db.SQL.QueryRowContext(context.Background(), q, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// A release refuses to start against a database migrated by one that does not
// run beside it (MinCompatible above its schema), and starts at the limit.
func TestMigrateRefusesTooOldBinary(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		newer := store.Release{Schema: store.Current.Schema + 2, MinCompatible: store.Current.Schema + 1, Rollup: store.Current.Rollup}
		if _, err := db.MigrateAs(ctx, newer); err != nil {
			t.Fatal(err)
		}
		_, err := db.MigrateAs(ctx, store.Current)
		if !errors.Is(err, store.ErrSchemaTooOld) {
			t.Fatalf("schema %d against a database needing %d: got %v, want ErrSchemaTooOld", store.Current.Schema, newer.MinCompatible, err)
		}
		for _, want := range []string{fmt.Sprintf("schema %d", newer.Schema), fmt.Sprintf("schema %d or newer", newer.MinCompatible), fmt.Sprintf("this binary is schema %d", store.Current.Schema)} {
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("refusal %q does not say %q", err, want)
			}
		}
		atLimit := store.Release{Schema: newer.MinCompatible, Rollup: store.Current.Rollup}
		if _, err := db.MigrateAs(ctx, atLimit); err != nil {
			t.Fatalf("schema %d at the minimum %d: %v", atLimit.Schema, newer.MinCompatible, err)
		}
		hist, err := db.SchemaHistory(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, h := range hist {
			got = append(got, h.Schema)
		}
		if want := []int{store.Current.Schema, atLimit.Schema, newer.Schema}; !cmp.Equal(got, want) {
			t.Fatalf("schema history %v, want %v (the refused start leaves no record)", got, want)
		}
	})
}
