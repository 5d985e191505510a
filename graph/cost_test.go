package graph

import (
	"context"
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
		add(e.repoA, e.revSec, at(2, 10), run.StatusSucceeded, 1, 100, 1)
		add(e.repoA, e.revSec, at(2, 11), run.StatusSucceeded, 2, 200, 0)
		add(e.repoA, e.revSec, at(2, 23), run.StatusSucceeded, 3, 300, 2)
		add(e.repoB, e.revPrf, at(3, 1), run.StatusFailed, 4, 1000, 0)
		add(e.repoA, e.revPrf, at(9, 12), run.StatusSucceeded, 5, 50, 1)
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
		wantTotal := b("total", 6, 15, 1, 4, i64(200), i64(1000))
		cases := []struct {
			group string
			want  []bucketView
		}{
			{"DAY", []bucketView{
				b("2026-03-02", 3, 6, 0, 3, i64(200), i64(300)),
				b("2026-03-03", 1, 4, 1, 0, i64(1000), i64(1000)),
				b("2026-03-09", 1, 5, 0, 1, i64(50), i64(50)),
				b("2026-03-20", 1, 0, 0, 0, nil, nil),
			}},
			{"WEEK", []bucketView{
				b("2026-03-02", 4, 10, 1, 3, i64(200), i64(1000)),
				b("2026-03-09", 1, 5, 0, 1, i64(50), i64(50)),
				b("2026-03-16", 1, 0, 0, 0, nil, nil),
			}},
			{"REVIEWER", []bucketView{
				b("perf", 3, 9, 1, 1, i64(50), i64(1000)),
				b("security", 3, 6, 0, 3, i64(200), i64(300)),
			}},
			{"REPOSITORY", []bucketView{
				b("acme/api", 5, 11, 0, 4, i64(100), i64(300)),
				b("acme/secret", 1, 4, 1, 0, i64(1000), i64(1000)),
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
		if diff := cmp.Diff(b("total", 5, 11, 0, 4, i64(100), i64(300)), total); diff != "" {
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
		add(e.repoA, e.revSec, at(2, 10), 1, 100)
		add(e.repoA, e.revSec, at(2, 23), 2, 300)
		add(e.repoA, e.revSec, at(10, 1), 3, 200)
		add(e.repoB, e.revPrf, at(3, 1), 10, 1000)
		add(e.repoA, e.revPrf, at(9, 12), 0.5, 50)
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
			v := point{Key: key, Runs: runs, CostUsd: cost, P95: i64(p95)}
			if key != "" {
				if s, err := time.Parse("2006-01-02", key); err == nil {
					v.Start = &s
				}
			}
			return v
		}
		tot := func(key string, runs int, cost float64, p95 int64) point {
			return point{Key: key, Runs: runs, CostUsd: cost, P95: i64(p95)}
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
