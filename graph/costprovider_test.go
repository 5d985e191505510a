package graph

import (
	"context"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// costSummary(groupBy: PROVIDER) sums the runs by the provider that carried
// them, over whole days and partial ones alike, and leaves out what the
// viewer may not read.
func TestCostSummaryByProvider(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		at := func(day, hour int) time.Time { return time.Date(2026, 3, day, hour, 0, 0, 0, time.UTC) }
		add := func(repo *ent.Repository, provider string, created time.Time, cost float64) {
			db.Run.Create().SetRepository(repo).SetReviewer(e.revSec).SetTrigger(run.TriggerComment).SetPrNumber(1).
				SetHeadSha("x").SetCreatedAt(created).SetStatus(run.StatusSucceeded).SetCostUsd(cost).SetDurationMs(1000).
				SetProvider(provider).SaveX(ctx)
		}
		add(e.repoA, "bedrock", at(2, 10), 1)
		add(e.repoA, "bedrock", at(20, 10), 2)
		add(e.repoA, "anthropic", at(5, 10), 4)
		add(e.repoB, "vertex", at(6, 10), 8)
		add(e.repoA, "vertex", at(31, 12), 99) // outside [from, to)
		q := `{ costSummary(from: "2026-03-01T06:00:00Z", to: "2026-03-31T00:00:00Z", groupBy: PROVIDER) {
			total { runs costUsd } buckets { key runs costUsd } } }`
		type bucket struct {
			Key     string
			Runs    int
			CostUsd float64
		}
		get := func(login string) (bucket, []bucket) {
			r := e.login(login).do(q, nil)
			r.ok(t)
			var d struct {
				CostSummary struct {
					Total   bucket
					Buckets []bucket
				}
			}
			r.into(t, &d)
			return d.CostSummary.Total, d.CostSummary.Buckets
		}
		total, buckets := get("carol")
		want := []bucket{{"vertex", 1, 8}, {"anthropic", 1, 4}, {"bedrock", 2, 3}}
		if total.Runs != 4 || total.CostUsd != 15 {
			t.Errorf("total %+v", total)
		}
		if !sameSet(want, buckets) {
			t.Errorf("buckets %+v, want %+v", buckets, want)
		}
		// alice cannot read acme/secret, whose run went to Vertex.
		total, buckets = get("alice")
		if total.Runs != 3 || total.CostUsd != 7 || len(buckets) != 2 {
			t.Errorf("alice: %+v %+v", total, buckets)
		}
	})
}

func sameSet[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[T]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		if m[x]--; m[x] < 0 {
			return false
		}
	}
	return true
}
