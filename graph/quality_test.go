package graph

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

type qualityView struct {
	Findings, Open, Fixed, Acknowledged, Dismissed, OpenAtMerge, ClosedUnmerged, Decided, PullRequests int
	AcceptanceRate, DismissRate, FindingsPerPullRequest, CostUsd, CostPerFixedFinding                  *float64
}

type qualityGroupView struct {
	Key     string
	Figures qualityView
}

func f64(v float64) *float64 { return &v }

const qualityQuery = `query($g: QualityGroupBy!, $i: CostInterval!, $w: QualityFilter) {
	quality(from: "2026-03-01T00:00:00Z", to: "2026-03-31T00:00:00Z", groupBy: $g, interval: $i, where: $w) {
		total { ...F } groups { key figures { ...F } } series { key figures { ...F } } } }
	fragment F on QualityFigures { findings open fixed acknowledged dismissed openAtMerge closedUnmerged decided
		pullRequests acceptanceRate dismissRate findingsPerPullRequest costUsd costPerFixedFinding }`

// TestQuality checks every figure of each grouping and both intervals on
// both databases: outcomes of posted findings only, shadow runs left out,
// runs without findings counted in pull requests and cost, the filters,
// and the viewer's repositories.
func TestQuality(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		at := func(day, hour int) time.Time { return time.Date(2026, 3, day, hour, 0, 0, 0, time.UTC) }
		type f struct {
			sev      finding.Severity
			category string
			outcome  finding.Outcome
			posted   bool
		}
		add := func(repo *ent.Repository, rev *ent.Reviewer, pr int, created time.Time, cost float64, shadow bool, fs ...f) {
			r := db.Run.Create().SetRepository(repo).SetReviewer(rev).SetTrigger(run.TriggerComment).SetPrNumber(pr).
				SetHeadSha("x").SetCreatedAt(created).SetStatus(run.StatusSucceeded).SetCostUsd(cost).SetShadow(shadow).SaveX(ctx)
			for i, x := range fs {
				db.Finding.Create().SetRun(r).SetHiddenID(itoa(i)).SetPath("a.go").SetTitle("t").SetSeverity(x.sev).
					SetCategory(x.category).SetOutcome(x.outcome).SetPosted(x.posted).SaveX(ctx)
			}
		}
		p := func(sev finding.Severity, cat string, o finding.Outcome) f { return f{sev, cat, o, true} }
		add(e.repoA, e.revSec, 1, at(2, 10), 2, false,
			p("major", "security", "fixed"), p("minor", "security", "fixed"), p("nit", "style", "dismissed"), p("major", "security", "open"),
			f{"major", "security", "fixed", false}) // not posted: not counted
		add(e.repoA, e.revSec, 1, at(3, 10), 1, false, p("major", "security", "acknowledged"), p("minor", "", "open_at_merge"))
		add(e.repoA, e.revPrf, 2, at(9, 12), 3, false, p("major", "perf", "dismissed"), p("minor", "perf", "closed_unmerged"))
		add(e.repoB, e.revPrf, 3, at(10, 12), 4, false, p("blocker", "perf", "fixed"))
		add(e.repoA, e.revPrf, 4, at(9, 13), 0.5, false)                                                                 // no findings: a PR and a cost
		add(e.repoA, e.revSec, 1, at(4, 10), 10, true, p("major", "security", "fixed"), p("major", "security", "fixed")) // shadow
		add(e.repoA, e.revSec, 1, at(31, 10), 1, false, p("major", "security", "fixed"))                                 // after the period
		// Another installation's repository, for the installation filter.
		inst2 := db.Installation.Create().SetGithubID(999).SetAccountLogin("other").SaveX(ctx)
		repoC := db.Repository.Create().SetGithubID(998).SetOwner("other").SetName("c").SetFullName("other/c").SetInstallation(inst2).SaveX(ctx)
		add(repoC, e.revSec, 9, at(5, 10), 7, false, p("nit", "style", "dismissed"))

		get := func(c *client, g, interval string, where map[string]any) (total qualityView, groups, series []qualityGroupView) {
			vars := map[string]any{"g": g, "i": interval}
			if where != nil {
				vars["w"] = where
			}
			r := c.do(qualityQuery, vars)
			r.ok(t)
			var d struct {
				Quality struct {
					Total          qualityView
					Groups, Series []qualityGroupView
				}
			}
			r.into(t, &d)
			return d.Quality.Total, d.Quality.Groups, d.Quality.Series
		}
		// fig builds the expected figures from the counts; cost < 0 means unknown.
		fig := func(open, fixed, ack, dis, oam, cu, prs int, cost float64) qualityView {
			v := qualityView{Open: open, Fixed: fixed, Acknowledged: ack, Dismissed: dis, OpenAtMerge: oam, ClosedUnmerged: cu, PullRequests: prs}
			v.Findings = open + fixed + ack + dis + oam + cu
			v.Decided = v.Findings - open
			if v.Decided > 0 {
				v.AcceptanceRate, v.DismissRate = f64(float64(fixed+ack)/float64(v.Decided)), f64(float64(dis)/float64(v.Decided))
			}
			if prs > 0 {
				v.FindingsPerPullRequest = f64(float64(v.Findings) / float64(prs))
			}
			if cost >= 0 {
				v.CostUsd = f64(cost)
				if fixed > 0 {
					v.CostPerFixedFinding = f64(cost / float64(fixed))
				}
			}
			return v
		}
		g := func(key string, v qualityView) qualityGroupView { return qualityGroupView{Key: key, Figures: v} }
		admin := e.login("carol")
		acme := map[string]any{"installationID": e.inst.ID}
		wantTotal := fig(1, 3, 1, 2, 1, 1, 4, 10.5)
		security, perf := fig(1, 2, 1, 1, 1, 0, 1, 3), fig(0, 1, 0, 1, 0, 1, 3, 7.5)
		cases := []struct {
			group, interval string
			groups, series  []qualityGroupView
		}{
			{"REVIEWER", "WEEK", []qualityGroupView{g("security", security), g("perf", perf)},
				[]qualityGroupView{g("2026-03-02", security), g("2026-03-09", perf)}},
			{"REPOSITORY", "DAY", []qualityGroupView{g("acme/api", fig(1, 2, 1, 2, 1, 1, 3, 6.5)), g("acme/secret", fig(0, 1, 0, 0, 0, 0, 1, 4))},
				[]qualityGroupView{g("2026-03-02", fig(1, 2, 0, 1, 0, 0, 1, 2)), g("2026-03-03", fig(0, 0, 1, 0, 1, 0, 1, 1)),
					g("2026-03-09", fig(0, 0, 0, 1, 0, 1, 2, 3.5)), g("2026-03-10", fig(0, 1, 0, 0, 0, 0, 1, 4))}},
			{"SEVERITY", "WEEK", []qualityGroupView{g("major", fig(1, 1, 1, 1, 0, 0, 4, -1)), g("minor", fig(0, 1, 0, 0, 1, 1, 4, -1)),
				g("blocker", fig(0, 1, 0, 0, 0, 0, 4, -1)), g("nit", fig(0, 0, 0, 1, 0, 0, 4, -1))}, nil},
			{"CATEGORY", "WEEK", []qualityGroupView{g("security", fig(1, 2, 1, 0, 0, 0, 4, -1)), g("perf", fig(0, 1, 0, 1, 0, 1, 4, -1)),
				g("", fig(0, 0, 0, 0, 1, 0, 4, -1)), g("style", fig(0, 0, 0, 1, 0, 0, 4, -1))}, nil},
			// Per reviewer and category (what demote_below_acceptance judges), keyed reviewer/category.
			{"REVIEWER_CATEGORY", "WEEK", []qualityGroupView{g("security/security", fig(1, 2, 1, 0, 0, 0, 4, -1)),
				g("perf/perf", fig(0, 1, 0, 1, 0, 1, 4, -1)), g("security/", fig(0, 0, 0, 0, 1, 0, 4, -1)),
				g("security/style", fig(0, 0, 0, 1, 0, 0, 4, -1))}, nil},
		}
		for _, tc := range cases {
			t.Run(tc.group, func(t *testing.T) {
				total, groups, series := get(admin, tc.group, tc.interval, acme)
				if diff := cmp.Diff(wantTotal, total); diff != "" {
					t.Errorf("total (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.groups, groups); diff != "" {
					t.Errorf("groups (-want +got):\n%s", diff)
				}
				if tc.series != nil {
					if diff := cmp.Diff(tc.series, series); diff != "" {
						t.Errorf("series (-want +got):\n%s", diff)
					}
				}
			})
		}
		// Without the installation filter the other installation's run counts.
		if total, _, _ := get(admin, "REVIEWER", "DAY", nil); total.Findings != 10 || total.Dismissed != 3 {
			t.Errorf("unfiltered total = %+v, want 10 findings with 3 dismissed", total)
		}
		// One reviewer.
		if total, _, _ := get(admin, "REVIEWER", "DAY", map[string]any{"reviewerID": e.revPrf.ID}); !cmp.Equal(perf, total) {
			t.Errorf("perf total (-want +got):\n%s", cmp.Diff(perf, total))
		}
		// alice cannot read acme/secret: its run is left out of her figures.
		total, groups, _ := get(e.login("alice"), "REPOSITORY", "WEEK", acme)
		if diff := cmp.Diff(fig(1, 2, 1, 2, 1, 1, 3, 6.5), total); diff != "" {
			t.Errorf("alice total (-want +got):\n%s", diff)
		}
		if len(groups) != 1 || groups[0].Key != "acme/api" {
			t.Errorf("alice groups = %+v, want only acme/api", groups)
		}
		// A period that ends before it starts is refused.
		r := admin.do(`{ quality(from: "2026-03-02T00:00:00Z", to: "2026-03-01T00:00:00Z", groupBy: REVIEWER, interval: DAY) { total { findings } } }`, nil)
		if r.code() != "INVALID" {
			t.Errorf("reversed period: code %q, want INVALID", r.code())
		}
	})
}
