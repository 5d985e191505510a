package graph

import (
	"context"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

type bucketView struct {
	Key        string
	Runs       int
	CostUsd    float64
	FailedRuns int
	Findings   struct{ Major, Total int }
	P50        *int64 `json:"p50DurationMs"`
	P95        *int64 `json:"p95DurationMs"`
}

func i64(v int64) *int64 { return &v }

// pct is what a percentile of exact value ms reads: the upper bound of its
// histogram bucket.
func pct(ms int64) *int64 { return i64(store.DurationBound(store.DurationBucket(ms))) }

// TestCostSummary checks the figures of each grouping on both databases,
// including nearest-rank percentiles and the viewer's repository filter.
func TestCostSummary(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		at := func(day, hour int) time.Time { return time.Date(2026, 3, day, hour, 0, 0, 0, time.UTC) }
		add := func(repo *ent.Repository, rev *ent.Reviewer, created time.Time, status run.Status, cost float64, dur int64, majors int) {
			db.Run.Create().SetRepository(repo).SetReviewer(rev).SetTrigger(run.TriggerComment).SetPrNumber(1).
				SetHeadSha("x").SetCreatedAt(created).SetStatus(status).SetCostUsd(cost).SetDurationMs(dur).
				SetFindingsMajor(majors).SaveX(ctx)
		}
		add(e.repoA, e.revSec, at(2, 10), run.StatusSucceeded, 1, 100_000, 1)
		add(e.repoA, e.revSec, at(2, 11), run.StatusSucceeded, 2, 200_000, 0)
		add(e.repoA, e.revSec, at(2, 23), run.StatusSucceeded, 3, 300_000, 2)
		add(e.repoB, e.revPrf, at(3, 1), run.StatusFailed, 4, 1_000_000, 0)
		add(e.repoA, e.revPrf, at(9, 12), run.StatusSucceeded, 5, 50_000, 1)
		add(e.repoA, e.revPrf, at(20, 12), run.StatusQueued, 0, 0, 0)     // no duration: not in percentiles
		add(e.repoA, e.revPrf, at(31, 12), run.StatusSucceeded, 99, 1, 0) // outside [from, to)

		q := `query($g: CostGroupBy!) { costSummary(from: "2026-03-01T00:00:00Z", to: "2026-03-31T00:00:00Z", groupBy: $g) {
			total { key runs costUsd failedRuns findings { major total } p50DurationMs p95DurationMs }
			buckets { key runs costUsd failedRuns findings { major total } p50DurationMs p95DurationMs } } }`
		get := func(c *client, g string) (total bucketView, buckets []bucketView) {
			r := c.do(q, map[string]any{"g": g})
			r.ok(t)
			var d struct {
				CostSummary struct {
					Total   bucketView
					Buckets []bucketView
				}
			}
			r.into(t, &d)
			return d.CostSummary.Total, d.CostSummary.Buckets
		}
		b := func(key string, runs int, cost float64, failed, majors int, p50, p95 *int64) bucketView {
			v := bucketView{Key: key, Runs: runs, CostUsd: cost, FailedRuns: failed, P50: p50, P95: p95}
			v.Findings.Major, v.Findings.Total = majors, majors
			return v
		}
		admin := e.login("carol")
		wantTotal := b("total", 6, 15, 1, 4, pct(200_000), pct(1_000_000))
		cases := []struct {
			group string
			want  []bucketView
		}{
			{"DAY", []bucketView{
				b("2026-03-02", 3, 6, 0, 3, pct(200_000), pct(300_000)),
				b("2026-03-03", 1, 4, 1, 0, pct(1_000_000), pct(1_000_000)),
				b("2026-03-09", 1, 5, 0, 1, pct(50_000), pct(50_000)),
				b("2026-03-20", 1, 0, 0, 0, nil, nil),
			}},
			{"WEEK", []bucketView{
				b("2026-03-02", 4, 10, 1, 3, pct(200_000), pct(1_000_000)),
				b("2026-03-09", 1, 5, 0, 1, pct(50_000), pct(50_000)),
				b("2026-03-16", 1, 0, 0, 0, nil, nil),
			}},
			{"REVIEWER", []bucketView{
				b("perf", 3, 9, 1, 1, pct(50_000), pct(1_000_000)),
				b("security", 3, 6, 0, 3, pct(200_000), pct(300_000)),
			}},
			{"REPOSITORY", []bucketView{
				b("acme/api", 5, 11, 0, 4, pct(100_000), pct(300_000)),
				b("acme/secret", 1, 4, 1, 0, pct(1_000_000), pct(1_000_000)),
			}},
		}
		for _, tc := range cases {
			t.Run(tc.group, func(t *testing.T) {
				total, buckets := get(admin, tc.group)
				if diff := cmp.Diff(wantTotal, total); diff != "" {
					t.Errorf("total (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.want, buckets); diff != "" {
					t.Errorf("buckets (-want +got):\n%s", diff)
				}
			})
		}
		// alice cannot read acme/secret: its run is left out of her figures.
		total, _ := get(e.login("alice"), "REPOSITORY")
		if diff := cmp.Diff(b("total", 5, 11, 0, 4, pct(100_000), pct(300_000)), total); diff != "" {
			t.Errorf("alice total (-want +got):\n%s", diff)
		}
	})
}

// TestCostSeries checks cost over time per reviewer and per repository on
// both databases: points in time order, series by total cost, and the
// viewer's repository filter.
func TestCostSeries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		at := func(day, hour int) time.Time { return time.Date(2026, 3, day, hour, 0, 0, 0, time.UTC) }
		add := func(repo *ent.Repository, rev *ent.Reviewer, created time.Time, cost float64, dur int64) {
			db.Run.Create().SetRepository(repo).SetReviewer(rev).SetTrigger(run.TriggerComment).SetPrNumber(1).
				SetHeadSha("x").SetCreatedAt(created).SetStatus(run.StatusSucceeded).SetCostUsd(cost).SetDurationMs(dur).
				SaveX(ctx)
		}
		add(e.repoA, e.revSec, at(2, 10), 1, 100_000)
		add(e.repoA, e.revSec, at(2, 23), 2, 300_000)
		add(e.repoA, e.revSec, at(10, 1), 3, 200_000)
		add(e.repoB, e.revPrf, at(3, 1), 10, 1_000_000)
		add(e.repoA, e.revPrf, at(9, 12), 0.5, 50_000)
		add(e.repoA, e.revPrf, at(31, 12), 99, 1) // outside [from, to)

		q := `query($i: CostInterval!, $by: CostSeriesBy!) {
			costSeries(from: "2026-03-01T00:00:00Z", to: "2026-03-31T00:00:00Z", interval: $i, by: $by) {
				key reviewer { name } repository { fullName }
				total { key runs costUsd p95DurationMs }
				points { key start runs costUsd p95DurationMs } } }`
		type point struct {
			Key     string
			Start   *time.Time
			Runs    int
			CostUsd float64
			P95     *int64 `json:"p95DurationMs"`
		}
		type series struct {
			Key        string
			Reviewer   *struct{ Name string }
			Repository *struct{ FullName string }
			Total      point
			Points     []point
		}
		get := func(c *client, interval, by string) []series {
			r := c.do(q, map[string]any{"i": interval, "by": by})
			r.ok(t)
			var d struct{ CostSeries []series }
			r.into(t, &d)
			return d.CostSeries
		}
		p := func(key string, runs int, cost float64, p95 int64) point {
			v := point{Key: key, Runs: runs, CostUsd: cost, P95: pct(p95 * 1000)}
			if key != "" {
				if s, err := time.Parse("2006-01-02", key); err == nil {
					v.Start = &s
				}
			}
			return v
		}
		tot := func(key string, runs int, cost float64, p95 int64) point {
			return point{Key: key, Runs: runs, CostUsd: cost, P95: pct(p95 * 1000)}
		}
		rev := func(n string) *struct{ Name string } { return &struct{ Name string }{n} }
		repo := func(n string) *struct{ FullName string } { return &struct{ FullName string }{n} }
		admin := e.login("carol")
		cases := []struct {
			interval, by string
			c            *client
			want         []series
		}{
			{"DAY", "REVIEWER", admin, []series{
				{Key: "perf", Reviewer: rev("perf"), Total: tot("perf", 2, 10.5, 1000),
					Points: []point{p("2026-03-03", 1, 10, 1000), p("2026-03-09", 1, 0.5, 50)}},
				{Key: "security", Reviewer: rev("security"), Total: tot("security", 3, 6, 300),
					Points: []point{p("2026-03-02", 2, 3, 300), p("2026-03-10", 1, 3, 200)}},
			}},
			{"WEEK", "REVIEWER", admin, []series{
				{Key: "perf", Reviewer: rev("perf"), Total: tot("perf", 2, 10.5, 1000),
					Points: []point{p("2026-03-02", 1, 10, 1000), p("2026-03-09", 1, 0.5, 50)}},
				{Key: "security", Reviewer: rev("security"), Total: tot("security", 3, 6, 300),
					Points: []point{p("2026-03-02", 2, 3, 300), p("2026-03-09", 1, 3, 200)}},
			}},
			{"WEEK", "REPOSITORY", admin, []series{
				{Key: "acme/secret", Repository: repo("acme/secret"), Total: tot("acme/secret", 1, 10, 1000),
					Points: []point{p("2026-03-02", 1, 10, 1000)}},
				{Key: "acme/api", Repository: repo("acme/api"), Total: tot("acme/api", 4, 6.5, 300),
					Points: []point{p("2026-03-02", 2, 3, 300), p("2026-03-09", 2, 3.5, 200)}},
			}},
			// alice cannot read acme/secret: it is not a series, nor in perf's figures.
			{"DAY", "REPOSITORY", e.login("alice"), []series{
				{Key: "acme/api", Repository: repo("acme/api"), Total: tot("acme/api", 4, 6.5, 300),
					Points: []point{p("2026-03-02", 2, 3, 300), p("2026-03-09", 1, 0.5, 50), p("2026-03-10", 1, 3, 200)}},
			}},
			{"WEEK", "REVIEWER", e.login("alice"), []series{
				{Key: "security", Reviewer: rev("security"), Total: tot("security", 3, 6, 300),
					Points: []point{p("2026-03-02", 2, 3, 300), p("2026-03-09", 1, 3, 200)}},
				{Key: "perf", Reviewer: rev("perf"), Total: tot("perf", 1, 0.5, 50),
					Points: []point{p("2026-03-09", 1, 0.5, 50)}},
			}},
		}
		for _, tc := range cases {
			t.Run(tc.interval+"/"+tc.by, func(t *testing.T) {
				if diff := cmp.Diff(tc.want, get(tc.c, tc.interval, tc.by)); diff != "" {
					t.Errorf("series (-want +got):\n%s", diff)
				}
			})
		}
		// A filter narrows; an anonymous viewer is refused.
		r := admin.do(`query($id: ID!) { costSeries(from: "2026-03-01T00:00:00Z", to: "2026-03-31T00:00:00Z",
			interval: DAY, by: REPOSITORY, where: {reviewerID: $id}) { key total { runs } } }`, map[string]any{"id": e.revPrf.ID})
		r.ok(t)
		var d struct {
			CostSeries []struct {
				Key   string
				Total struct{ Runs int }
			}
		}
		r.into(t, &d)
		if len(d.CostSeries) != 2 || d.CostSeries[0].Key != "acme/secret" || d.CostSeries[1].Total.Runs != 1 {
			t.Errorf("filtered by reviewer: %+v", d.CostSeries)
		}
	})
}

// TestCostFromRollupMatchesRuns: runs spread over three months at odd
// times, then periods with partial days, whole weeks and whole months:
// costSummary (every grouping) and costSeries agree with the figures
// computed here from the runs themselves, on both databases. It checks the
// split of a period into rollup months, weeks, days and raw partial days.
func TestCostFromRollupMatchesRuns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		zone := time.UTC
		if !db.Postgres() {
			zone = time.Local // SQLite's days are the writer's zone's
		}
		type seeded struct {
			at   time.Time
			repo string
			rev  string
			cost float64
		}
		var all []seeded
		start := time.Date(2026, 1, 27, 0, 0, 0, 0, zone)
		repos := []*ent.Repository{e.repoA, e.repoB}
		revs := []*ent.Reviewer{e.revSec, e.revPrf}
		var creates []*ent.RunCreate
		for i := 0; i < 400; i++ {
			at := start.Add(time.Duration(i) * 5 * time.Hour).Add(time.Duration(i*i%3600) * time.Second)
			repo, rev := repos[i%2], revs[(i/2)%2]
			cost := float64(i%7) / 4
			creates = append(creates, db.Run.Create().SetRepository(repo).SetReviewer(rev).SetTrigger(run.TriggerComment).
				SetPrNumber(i).SetHeadSha("x").SetCreatedAt(at).SetStatus(run.StatusSucceeded).SetCostUsd(cost).
				SetDurationMs(int64(60_000+i*1000)))
			all = append(all, seeded{at, repo.FullName, rev.Name, cost})
		}
		db.Run.CreateBulk(creates...).ExecX(ctx)
		admin := e.login("carol")
		type fig struct {
			Key     string
			Runs    int
			CostUsd float64
		}
		round := func(fs []fig) []fig {
			for i := range fs {
				fs[i].CostUsd = math.Round(fs[i].CostUsd*1000) / 1000
			}
			return fs
		}
		// want computes the buckets from the seeded runs.
		want := func(from, to time.Time, key func(s seeded) string) (fig, []fig) {
			total := fig{Key: "total"}
			m := map[string]*fig{}
			var order []string
			for _, s := range all {
				if s.at.Before(from) || !s.at.Before(to) {
					continue
				}
				total.Runs++
				total.CostUsd += s.cost
				k := key(s)
				if m[k] == nil {
					m[k] = &fig{Key: k}
					order = append(order, k)
				}
				m[k].Runs++
				m[k].CostUsd += s.cost
			}
			var out []fig
			for _, k := range order {
				out = append(out, *m[k])
			}
			return total, out
		}
		day := func(s seeded) string { return s.at.In(zone).Format(time.DateOnly) }
		week := func(s seeded) string {
			d := s.at.In(zone)
			d = time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, zone)
			return d.AddDate(0, 0, -(int(d.Weekday())+6)%7).Format(time.DateOnly)
		}
		periods := [][2]time.Time{
			{time.Date(2026, 1, 28, 13, 17, 0, 0, zone), time.Date(2026, 4, 2, 7, 5, 0, 0, zone)},  // months, weeks, days, partial days
			{time.Date(2026, 2, 1, 0, 0, 0, 0, zone), time.Date(2026, 3, 1, 0, 0, 0, 0, zone)},     // one whole month
			{time.Date(2026, 2, 3, 0, 0, 0, 0, zone), time.Date(2026, 2, 24, 0, 0, 0, 0, zone)},    // whole weeks and days
			{time.Date(2026, 2, 10, 9, 0, 0, 0, zone), time.Date(2026, 2, 10, 21, 30, 0, 0, zone)}, // within a day
			{time.Date(2026, 2, 10, 9, 0, 0, 0, zone), time.Date(2026, 2, 11, 1, 0, 0, 0, zone)},   // two partial days
		}
		for _, p := range periods {
			vars := map[string]any{"f": p[0].Format(time.RFC3339), "t": p[1].Format(time.RFC3339)}
			for _, g := range []string{"DAY", "WEEK", "REVIEWER", "REPOSITORY"} {
				vars["g"] = g
				r := admin.do(`query($f: Time!, $t: Time!, $g: CostGroupBy!) { costSummary(from: $f, to: $t, groupBy: $g) {
					total { key runs costUsd } buckets { key runs costUsd } } }`, vars)
				r.ok(t)
				var d struct {
					CostSummary struct {
						Total   fig
						Buckets []fig
					}
				}
				r.into(t, &d)
				key := map[string]func(seeded) string{"DAY": day, "WEEK": week,
					"REVIEWER": func(s seeded) string { return s.rev }, "REPOSITORY": func(s seeded) string { return s.repo }}[g]
				wt, wb := want(p[0], p[1], key)
				sortFigs := func(fs []fig) {
					sort.Slice(fs, func(i, j int) bool { return fs[i].Key < fs[j].Key })
				}
				sortFigs(wb)
				sortFigs(d.CostSummary.Buckets)
				if diff := cmp.Diff(round([]fig{wt}), round([]fig{d.CostSummary.Total})); diff != "" {
					t.Errorf("%v %s total (-want +got):\n%s", p, g, diff)
				}
				if diff := cmp.Diff(round(wb), round(d.CostSummary.Buckets)); diff != "" {
					t.Errorf("%v %s buckets (-want +got):\n%s", p, g, diff)
				}
			}
			// Filtered: the rows per repository (by week, one repository) and
			// per repository and reviewer (by repository, one reviewer).
			for _, fc := range []struct {
				g, field string
				id       int
				key      func(seeded) string
				keep     func(seeded) bool
			}{
				{"WEEK", "repositoryID", e.repoB.ID, week, func(s seeded) bool { return s.repo == e.repoB.FullName }},
				{"REPOSITORY", "reviewerID", e.revPrf.ID, func(s seeded) string { return s.repo }, func(s seeded) bool { return s.rev == e.revPrf.Name }},
			} {
				r := admin.do(`query($f: Time!, $t: Time!, $g: CostGroupBy!, $w: CostFilter) { costSummary(from: $f, to: $t, groupBy: $g, where: $w) {
					total { key runs costUsd } buckets { key runs costUsd } } }`,
					map[string]any{"f": vars["f"], "t": vars["t"], "g": fc.g, "w": map[string]any{fc.field: fc.id}})
				r.ok(t)
				var d struct {
					CostSummary struct {
						Total   fig
						Buckets []fig
					}
				}
				r.into(t, &d)
				saved := all
				all = nil
				for _, s := range saved {
					if fc.keep(s) {
						all = append(all, s)
					}
				}
				wt, wb := want(p[0], p[1], fc.key)
				all = saved
				sort.Slice(wb, func(i, j int) bool { return wb[i].Key < wb[j].Key })
				sort.Slice(d.CostSummary.Buckets, func(i, j int) bool { return d.CostSummary.Buckets[i].Key < d.CostSummary.Buckets[j].Key })
				if diff := cmp.Diff(round(append([]fig{wt}, wb...)), round(append([]fig{d.CostSummary.Total}, d.CostSummary.Buckets...))); diff != "" {
					t.Errorf("%v %s where %s (-want +got):\n%s", p, fc.g, fc.field, diff)
				}
			}
			// costSeries by reviewer per week: each point as computed.
			r := admin.do(`query($f: Time!, $t: Time!) { costSeries(from: $f, to: $t, interval: WEEK, by: REVIEWER) {
				key points { key runs costUsd } } }`, vars)
			r.ok(t)
			var d struct {
				CostSeries []struct {
					Key    string
					Points []fig
				}
			}
			r.into(t, &d)
			got := map[string][]fig{}
			for _, s := range d.CostSeries {
				got[s.Key] = round(s.Points)
			}
			for _, rev := range revs {
				var mine []seeded
				for _, s := range all {
					if s.rev == rev.Name {
						mine = append(mine, s)
					}
				}
				saved := all
				all = mine
				_, wb := want(p[0], p[1], week)
				all = saved
				if diff := cmp.Diff(round(wb), got[rev.Name]); diff != "" {
					t.Errorf("%v series %s (-want +got):\n%s", p, rev.Name, diff)
				}
			}
		}
	})
}

// TestCountOnlyWhenAsked: a page that selects pageInfo but not totalCount
// sends no COUNT (one statement fewer), and its pageInfo is still right.
func TestCountOnlyWhenAsked(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		c := e.login("carol")
		for i := 0; i < 3; i++ {
			e.seedRun(e.repoA, e.revSec, e.prA, run.StatusSucceeded, 1, 1000, 0)
		}
		measure := func(q string) (int64, gqlResp) {
			e.drv.n.Store(0)
			r := c.do(q, nil)
			r.ok(t)
			return e.drv.n.Load(), r
		}
		without, r := measure(`{ runs(first: 2) { edges { node { id } } pageInfo { hasNextPage endCursor } } }`)
		if !strings.Contains(r.raw, `"hasNextPage":true`) {
			t.Errorf("first page: %s", r.raw)
		}
		with, r := measure(`{ runs(first: 2) { totalCount edges { node { id } } pageInfo { hasNextPage } } }`)
		if !strings.Contains(r.raw, `"totalCount":3`) {
			t.Errorf("with totalCount: %s", r.raw)
		}
		if with != without+1 {
			t.Errorf("statements: %d without totalCount, %d with (want one more: the COUNT)", without, with)
		}
		if _, r := measure(`{ runs(first: 5) { edges { node { id } } pageInfo { hasNextPage } } }`); !strings.Contains(r.raw, `"hasNextPage":false`) {
			t.Errorf("last page: %s", r.raw)
		}
	})
}
