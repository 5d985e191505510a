package metrics

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/intake"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	entrun "github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/server"
)

// values flattens a gathered family into "label=value,…" → value (histograms:
// "…:count" and "…:sum").
func values(t *testing.T, reg *prometheus.Registry, name string) map[string]float64 {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName()+"="+l.GetValue())
			}
			k := strings.Join(ls, ",")
			switch f.GetType() {
			case dto.MetricType_HISTOGRAM:
				out[k+":count"] = float64(m.GetHistogram().GetSampleCount())
				out[k+":sum"] = m.GetHistogram().GetSampleSum()
				for _, b := range m.GetHistogram().GetBucket() {
					out[k+fmt.Sprintf(":le%g", b.GetUpperBound())] = float64(b.GetCumulativeCount())
				}
			case dto.MetricType_COUNTER:
				out[k] = m.GetCounter().GetValue()
			default:
				out[k] = m.GetGauge().GetValue()
			}
		}
	}
	return out
}

func TestCollector(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Now()
		inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
		repo := db.Repository.Create().SetGithubID(2).SetOwner("acme").SetName("widget").SetFullName("acme/widget").SetInstallation(inst).SaveX(ctx)
		sec := db.Reviewer.Create().SetName("security").SetInstallation(inst).SaveX(ctx)
		sty := db.Reviewer.Create().SetName("style").SetInstallation(inst).SaveX(ctx)
		mk := func(rv *ent.Reviewer, st entrun.Status, cost float64, durMS int64, created time.Time, sha string) {
			c := db.Run.Create().SetRepository(repo).SetReviewer(rv).SetTrigger(entrun.TriggerComment).SetPrNumber(1).
				SetHeadSha(sha).SetStatus(st).SetCostUsd(cost).SetDurationMs(durMS).SetCreatedAt(created)
			if st == entrun.StatusSucceeded || st == entrun.StatusFailed {
				c.SetFinishedAt(now)
			}
			c.SaveX(ctx)
		}
		mk(sec, entrun.StatusSucceeded, 0.25, 45_000, now.Add(-time.Hour), "a1")
		mk(sec, entrun.StatusSucceeded, 0.50, 90_000, now.Add(-time.Hour), "a2")
		mk(sec, entrun.StatusFailed, 0.05, 20_000, now.Add(-time.Hour), "a3")
		mk(sty, entrun.StatusQueued, 0, 0, now.Add(-10*time.Minute), "b1")
		mk(sec, entrun.StatusQueued, 0, 0, now.Add(-2*time.Minute), "b2")
		for i, st := range []webhookevent.Status{webhookevent.StatusDone, webhookevent.StatusDone, webhookevent.StatusFailed, webhookevent.StatusPending} {
			db.WebhookEvent.Create().SetDeliveryID(string(rune('a' + i))).SetEvent("pull_request").SetPayload([]byte("{}")).SetStatus(st).SaveX(ctx)
		}

		col, err := New(Config{DB: db, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		reg := prometheus.NewRegistry()
		reg.MustRegister(col)

		if d := cmp.Diff(map[string]float64{
			"reviewer=security,status=succeeded": 2, "reviewer=security,status=failed": 1, "reviewer=security,status=cancelled": 0,
			"reviewer=style,status=succeeded": 0, "reviewer=style,status=failed": 0, "reviewer=style,status=cancelled": 0,
		}, values(t, reg, "chakshu_runs_finished_total")); d != "" {
			t.Errorf("chakshu_runs_finished_total (-want +got):\n%s", d)
		}
		if d := cmp.Diff(map[string]float64{"reviewer=security,status=queued": 1, "reviewer=style,status=queued": 1},
			values(t, reg, "chakshu_runs_active")); d != "" {
			t.Errorf("chakshu_runs_active (-want +got):\n%s", d)
		}
		cost := values(t, reg, "chakshu_model_cost_usd_total")
		if got := cost["reviewer=security"]; got < 0.7999 || got > 0.8001 {
			t.Errorf("security spend %v, want 0.80", got)
		}
		if got := values(t, reg, "chakshu_run_queue_depth")[""]; got != 2 {
			t.Errorf("queue depth %v, want 2", got)
		}
		if got := values(t, reg, "chakshu_run_queue_oldest_age_seconds")[""]; got < 599 || got > 601 {
			t.Errorf("oldest queued age %v, want 600", got)
		}
		// 20 s, 45 s and 90 s land in the buckets up to 32, 64 and 128 s.
		dur := values(t, reg, "chakshu_run_duration_seconds")
		if d := cmp.Diff(map[string]float64{"count": 3, "le32": 1, "le64": 2, "le128": 3, "le256": 3, "le2048": 3, "le16": -1},
			map[string]float64{"count": dur["reviewer=security:count"], "le32": dur["reviewer=security:le32"], "le64": dur["reviewer=security:le64"],
				"le128": dur["reviewer=security:le128"], "le256": dur["reviewer=security:le256"], "le2048": dur["reviewer=security:le2048"],
				"le16": orMinus(dur, "reviewer=security:le16")}); d != "" {
			t.Errorf("chakshu_run_duration_seconds (-want +got):\n%s", d)
		}
		if sum := dur["reviewer=security:sum"]; sum < 155/1.19 || sum > 155*1.19 {
			t.Errorf("duration sum %v, want 155 within 19%%", sum)
		}
		if d := cmp.Diff(map[string]float64{"status=failed": 1, "status=pending": 1, "status=processing": 0},
			values(t, reg, "chakshu_webhook_events")); d != "" {
			t.Errorf("chakshu_webhook_events (-want +got):\n%s", d)
		}
		if got := values(t, reg, "chakshu_webhook_oldest_pending_age_seconds")[""]; got < 0 || got > 60 {
			t.Errorf("oldest pending webhook age %v, want a few seconds", got)
		}
		// The waits for SQLite's write connection, by writer: a delivery
		// stored through the intake is counted, and the histogram's buckets
		// agree with the store's own figures.
		if db.Postgres() {
			if waits := values(t, reg, "chakshu_sqlite_write_wait_seconds"); len(waits) != 0 {
				t.Errorf("PostgreSQL reports chakshu_sqlite_write_wait_seconds: %v", waits)
			}
		} else {
			in := intake.NewIntake(db, intake.IntakeConfig{})
			if _, err := in.Store(ctx, &intake.Delivery{DeliveryID: "metrics-1", Event: "ping", Payload: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
			in.Close()
			db.WebhookEvent.Delete().Where(webhookevent.DeliveryID("metrics-1")).ExecX(ctx) // the counts below are the rows above
			waits := values(t, reg, "chakshu_sqlite_write_wait_seconds")
			intake := db.WriteWaits()["intake"]
			if got := waits["writer=intake:count"]; got < 1 || got != float64(intake.Count) {
				t.Errorf("intake commits counted %v, want the one above (the store counts %d)", got, intake.Count)
			}
			if got, want := waits["writer=intake:le10"], waits["writer=intake:count"]; got != want {
				t.Errorf("intake waits within 10 s %v, want all %v", got, want)
			}
			if _, ok := waits["writer=background:count"]; !ok {
				t.Errorf("no background figures: %v", waits)
			}
		}

		// /metrics serves them.
		srv := httptest.NewServer(server.Handler(server.Config{Registry: reg}))
		defer srv.Close()
		resp, err := http.Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, want := range []string{`chakshu_runs_finished_total{reviewer="security",status="failed"} 1`, "chakshu_run_queue_depth 2",
			`chakshu_run_duration_seconds_bucket{reviewer="security",le="64"} 2`, `chakshu_webhook_events{status="failed"} 1`,
			`chakshu_model_cost_usd_total{reviewer="style"} 0`} {
			if !strings.Contains(string(body), want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
	})
}

func TestGitHubTransport(t *testing.T) {
	sim := ghsimtest.New(t)
	appID, key := sim.CreateApp("chakshu")
	sim.CreateOrg("acme")
	sim.CreateRepo("acme", "widget", map[string]string{"a.go": "package a\n"})
	inst := sim.Install(appID, "acme", nil, nil)
	reg := prometheus.NewRegistry()
	g, err := NewGitHub(reg)
	if err != nil {
		t.Fatal(err)
	}
	apps, err := gh.New(gh.Config{AppID: appID, PrivateKey: key, BaseURL: sim.URL(), GraphQLURL: sim.GraphQLURL(),
		Transport: g.Transport(nil), Retry: gh.RetryPolicy{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := apps.Installation(inst)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, _, err := c.REST.Repositories.Get(ctx, "acme", "widget"); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := c.REST.Repositories.Get(ctx, "acme", "nope"); err == nil {
		t.Fatal("want 404")
	}
	ghsimtest.InjectFault(sim, ghsimtest.Fault{Match: "GET /repos/{owner}/{repo}/pulls/{pull_number}", Kind: ghsimtest.FaultPrimaryRateLimit, Times: 1, RetryAfter: 60})
	_, _, _ = c.REST.PullRequests.Get(ctx, "acme", "widget", 5)

	got := values(t, reg, "chakshu_github_requests_total")
	want := map[string]float64{
		"endpoint=/app/installations/{id}/access_tokens,method=POST,status=201": 1,
		"endpoint=/repos/{owner}/{repo},method=GET,status=200":                  2,
		"endpoint=/repos/{owner}/{repo},method=GET,status=404":                  1,
		"endpoint=/repos/{owner}/{repo}/pulls/{id},method=GET,status=403":       1,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("chakshu_github_requests_total (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]float64{"resource=core": 0}, values(t, reg, "chakshu_github_rate_limit_remaining")); d != "" {
		t.Errorf("rate limit remaining (-want +got):\n%s", d)
	}
}

func TestEndpoint(t *testing.T) {
	for _, tc := range []struct{ name, path, want string }{
		{"repo", "/api/v3/repos/acme/widget", "/repos/{owner}/{repo}"},
		{"pull files", "/api/v3/repos/acme/widget/pulls/17/files", "/repos/{owner}/{repo}/pulls/{id}/files"},
		{"contents", "/repos/acme/widget/contents/.github/workflows/chakshu.yml", "/repos/{owner}/{repo}/contents/{path}"},
		{"dispatch", "/repos/acme/w/actions/workflows/chakshu.yml/dispatches", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches"},
		{"check runs of ref", "/repos/a/b/commits/0123abc/check-runs", "/repos/{owner}/{repo}/commits/{ref}/check-runs"},
		{"compare", "/repos/a/b/compare/abc...def", "/repos/{owner}/{repo}/compare/{basehead}"},
		{"label", "/repos/a/b/issues/3/labels/chakshu:review", "/repos/{owner}/{repo}/issues/{id}/labels/{name}"},
		{"team membership", "/orgs/acme/teams/security/memberships/alice", "/orgs/{org}/teams/{team_slug}/memberships/{username}"},
		{"token", "/app/installations/42/access_tokens", "/app/installations/{id}/access_tokens"},
		{"manifest", "/app-manifests/abc/conversions", "/app-manifests/{code}/conversions"},
		{"graphql dotcom", "/graphql", "/graphql"},
		{"graphql ghes", "/api/graphql", "/graphql"},
		{"root", "/", "/"},
		{"unknown value", "/weird/Thing42/x", "/weird/{id}/x"},
		{"reply", "/repos/a/b/pulls/1/comments/99/replies", "/repos/{owner}/{repo}/pulls/{id}/comments/{id}/replies"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Endpoint(tc.path); got != tc.want {
				t.Fatalf("Endpoint(%q) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}

// FuzzEndpoint: every output is "/" followed by fixed words and placeholders,
// never a raw value (so the label's cardinality stays bounded).
func FuzzEndpoint(f *testing.F) {
	for _, s := range []string{"/api/v3/repos/acme/widget/pulls/17/files", "/repos/a", "/orgs/x", "//", "/contents/a/b", "/repos/a/b/contents"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got := Endpoint(p)
		if !strings.HasPrefix(got, "/") {
			t.Fatalf("Endpoint(%q) = %q", p, got)
		}
		for _, s := range strings.Split(strings.Trim(got, "/"), "/") {
			if s != "" && !isWord(s) && !(strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}")) {
				t.Fatalf("Endpoint(%q) = %q keeps the value %q", p, got, s)
			}
		}
	})
}

func orMinus(m map[string]float64, k string) float64 {
	if v, ok := m[k]; ok {
		return v
	}
	return -1
}

// TestFindingOutcomes counts the posted findings decided within the window
// (a decision exactly 30 days old counts, one a second older does not), by
// reviewer and outcome, every decided outcome present for a reviewer; open,
// unposted and shadow runs' findings are left out.
func TestFindingOutcomes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Now().Truncate(time.Second)
		inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
		repo := db.Repository.Create().SetGithubID(2).SetOwner("acme").SetName("widget").SetFullName("acme/widget").SetInstallation(inst).SaveX(ctx)
		sec := db.Reviewer.Create().SetName("security").SetInstallation(inst).SaveX(ctx)
		db.Reviewer.Create().SetName("style").SetInstallation(inst).SaveX(ctx) // no decisions: no series
		mkRun := func(shadow bool, sha string) *ent.Run {
			return db.Run.Create().SetRepository(repo).SetReviewer(sec).SetTrigger(entrun.TriggerComment).SetPrNumber(1).
				SetHeadSha(sha).SetShadow(shadow).SaveX(ctx)
		}
		live, shadow := mkRun(false, "a"), mkRun(true, "b")
		n := 0
		add := func(r *ent.Run, o finding.Outcome, at time.Time, posted bool) {
			n++
			c := db.Finding.Create().SetRun(r).SetHiddenID(itoa(n)).SetPath("a.go").SetTitle("t").SetSeverity("major").
				SetOutcome(o).SetPosted(posted)
			if o != finding.OutcomeOpen {
				c.SetOutcomeAt(at)
			}
			c.SaveX(ctx)
		}
		add(live, finding.OutcomeFixed, now.Add(-time.Hour), true)
		add(live, finding.OutcomeFixed, now.Add(-OutcomesWindow), true)             // at the edge: counts
		add(live, finding.OutcomeFixed, now.Add(-OutcomesWindow-time.Second), true) // past it
		add(live, finding.OutcomeDismissed, now.Add(-time.Minute), true)
		add(live, finding.OutcomeOpen, now, true)
		add(live, finding.OutcomeAcknowledged, now, false) // not posted
		add(shadow, finding.OutcomeDismissed, now, true)   // a backtest's
		col, err := New(Config{DB: db, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		reg := prometheus.NewRegistry()
		reg.MustRegister(col)
		if d := cmp.Diff(map[string]float64{
			"outcome=fixed,reviewer=security": 2, "outcome=dismissed,reviewer=security": 1, "outcome=acknowledged,reviewer=security": 0,
			"outcome=open_at_merge,reviewer=security": 0, "outcome=closed_unmerged,reviewer=security": 0,
		}, values(t, reg, "chakshu_findings_outcomes")); d != "" {
			t.Errorf("chakshu_findings_outcomes (-want +got):\n%s", d)
		}
	})
}

func itoa(i int) string { return strconv.Itoa(i) }
