package graph

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/graph/exec"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// examplesDir holds the worked examples of docs/api.md.
const examplesDir = "../docs/api/examples"

// The period every example is run over: two whole weeks (Mondays, UTC).
var (
	exFrom = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	exTo   = time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
)

// exampleChecks says, per example file, what its answer must be over the
// seeded history (seedExamples). A file without a check fails the test, so
// a new example is run and checked too.
var exampleChecks = map[string]func(t *testing.T, x *exampleEnv, data json.RawMessage){
	"cost-per-reviewer-per-week.graphql": func(t *testing.T, x *exampleEnv, data json.RawMessage) {
		var d struct{ CostSeries []seriesView }
		decodeInto(t, data, &d)
		want := []seriesView{
			{Key: "perf", Reviewer: &named{Name: "perf"}, Total: pointView{CostUsd: 5, Runs: 2},
				Points: []pointView{{Key: "2026-11-09", Start: "2026-11-09T00:00:00Z", CostUsd: 5, Runs: 2}}},
			{Key: "security", Reviewer: &named{Name: "security"}, Total: pointView{CostUsd: 2, Runs: 2},
				Points: []pointView{{Key: "2026-11-02", Start: "2026-11-02T00:00:00Z", CostUsd: 2, Runs: 2}}},
		}
		if diff := cmp.Diff(want, d.CostSeries); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	},
	"cost-per-repository-per-week.graphql": func(t *testing.T, x *exampleEnv, data json.RawMessage) {
		var d struct{ CostSeries []seriesView }
		decodeInto(t, data, &d)
		want := []seriesView{
			{Key: "acme/api", Repository: &named{FullName: "acme/api"}, Total: pointView{CostUsd: 4, Runs: 3},
				Points: []pointView{
					{Key: "2026-11-02", Start: "2026-11-02T00:00:00Z", CostUsd: 2, Runs: 2},
					{Key: "2026-11-09", Start: "2026-11-09T00:00:00Z", CostUsd: 2, Runs: 1},
				}},
			{Key: "acme/secret", Repository: &named{FullName: "acme/secret"}, Total: pointView{CostUsd: 3, Runs: 1},
				Points: []pointView{{Key: "2026-11-09", Start: "2026-11-09T00:00:00Z", CostUsd: 3, Runs: 1}}},
		}
		if diff := cmp.Diff(want, d.CostSeries); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	},
	"acceptance-rate-per-reviewer.graphql": func(t *testing.T, x *exampleEnv, data json.RawMessage) {
		type figs struct {
			Findings, Fixed, Acknowledged, Dismissed, Decided int
			AcceptanceRate, DismissRate                       *float64
			FindingsPerPullRequest, CostPerFixedFinding       *float64
		}
		var d struct {
			Quality struct {
				Total struct {
					Findings, Decided           int
					AcceptanceRate, DismissRate *float64
				}
				Groups []struct {
					Key      string
					Reviewer named
					Figures  figs
				}
				Series []struct {
					Key, Start string
					Figures    struct {
						Decided        int
						AcceptanceRate *float64
					}
				}
			}
		}
		decodeInto(t, data, &d)
		q := d.Quality
		if q.Total.Findings != 3 || q.Total.Decided != 3 || *q.Total.AcceptanceRate != 2.0/3 || *q.Total.DismissRate != 1.0/3 {
			t.Errorf("total %+v", q.Total)
		}
		// perf: a blocker dismissed and a major acknowledged over PRs 2 and 3
		// (cost 3 + 2, nothing fixed); security: its one posted finding fixed
		// (PR 1, cost 1.5 + 0.5).
		want := map[string]figs{
			"perf":     {Findings: 2, Acknowledged: 1, Dismissed: 1, Decided: 2, AcceptanceRate: f64(0.5), DismissRate: f64(0.5), FindingsPerPullRequest: f64(1)},
			"security": {Findings: 1, Fixed: 1, Decided: 1, AcceptanceRate: f64(1), DismissRate: f64(0), FindingsPerPullRequest: f64(1), CostPerFixedFinding: f64(2)},
		}
		var order []string
		for _, g := range q.Groups {
			order = append(order, g.Key)
			if g.Reviewer.Name != g.Key {
				t.Errorf("group %s: reviewer %q", g.Key, g.Reviewer.Name)
			}
			if diff := cmp.Diff(want[g.Key], g.Figures); diff != "" {
				t.Errorf("%s (-want +got):\n%s", g.Key, diff)
			}
		}
		if diff := cmp.Diff([]string{"perf", "security"}, order); diff != "" {
			t.Errorf("group order (-want +got):\n%s", diff)
		}
		if len(q.Series) != 2 || q.Series[0].Key != "2026-11-02" || *q.Series[0].Figures.AcceptanceRate != 1 ||
			q.Series[1].Start != "2026-11-09T00:00:00Z" || *q.Series[1].Figures.AcceptanceRate != 0.5 {
			t.Errorf("series %+v", q.Series)
		}
	},
	"failure-rate-per-reviewer.graphql": func(t *testing.T, x *exampleEnv, data json.RawMessage) {
		var d struct {
			Reviewers struct {
				Edges []struct {
					Node struct {
						Name  string
						Stats struct {
							Runs, Succeeded, Failed, Cancelled int
							FailureRate                        float64
						}
					}
				}
			}
		}
		decodeInto(t, data, &d)
		got := map[string]string{}
		for _, e := range d.Reviewers.Edges {
			s := e.Node.Stats
			got[e.Node.Name] = jsonOf(t, s)
		}
		want := map[string]string{
			"perf":     `{"Runs":2,"Succeeded":2,"Failed":0,"Cancelled":0,"FailureRate":0}`,
			"security": `{"Runs":2,"Succeeded":1,"Failed":1,"Cancelled":0,"FailureRate":0.5}`,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	},
	"review-duration-percentiles.graphql": func(t *testing.T, x *exampleEnv, data json.RawMessage) {
		type pb struct {
			Key   string
			Start *string
			Runs  int
			P50   *int64 `json:"p50DurationMs"`
			P95   *int64 `json:"p95DurationMs"`
		}
		var d struct {
			ByReviewer struct {
				Total   pb
				Buckets []pb
			}
			ByWeek struct{ Buckets []pb }
		}
		decodeInto(t, data, &d)
		// Durations: security 100 s and 50 s; perf 400 s and 200 s.
		want := pb{Runs: 4, P50: pct(100_000), P95: pct(400_000)}
		if diff := cmp.Diff(want, d.ByReviewer.Total); diff != "" {
			t.Errorf("total (-want +got):\n%s", diff)
		}
		wantRev := []pb{
			{Key: "perf", Runs: 2, P50: pct(200_000), P95: pct(400_000)},
			{Key: "security", Runs: 2, P50: pct(50_000), P95: pct(100_000)},
		}
		if diff := cmp.Diff(wantRev, d.ByReviewer.Buckets); diff != "" {
			t.Errorf("per reviewer (-want +got):\n%s", diff)
		}
		w1, w2 := "2026-11-02T00:00:00Z", "2026-11-09T00:00:00Z"
		wantWeek := []pb{
			{Key: "2026-11-02", Start: &w1, P50: pct(50_000), P95: pct(100_000)},
			{Key: "2026-11-09", Start: &w2, P50: pct(200_000), P95: pct(400_000)},
		}
		if diff := cmp.Diff(wantWeek, d.ByWeek.Buckets); diff != "" {
			t.Errorf("per week (-want +got):\n%s", diff)
		}
	},
	"findings-by-severity-and-category.graphql": func(t *testing.T, x *exampleEnv, data json.RawMessage) {
		type row struct {
			Key, Start, Severity, Category string
			Count, Posted                  int
		}
		var d struct {
			FindingTrends []row
			Weekly        struct {
				Buckets []struct {
					Key      string
					Findings struct{ Blocker, Major, Minor, Nit, Total int }
				}
			}
		}
		decodeInto(t, data, &d)
		w1, w2 := "2026-11-02T00:00:00Z", "2026-11-09T00:00:00Z"
		want := []row{
			{"2026-11-02", w1, "major", "security", 1, 1},
			{"2026-11-02", w1, "minor", "security", 2, 0},
			{"2026-11-09", w2, "blocker", "performance", 1, 1},
			{"2026-11-09", w2, "major", "performance", 1, 1},
			{"2026-11-09", w2, "nit", "style", 1, 0},
		}
		if diff := cmp.Diff(want, d.FindingTrends); diff != "" {
			t.Errorf("trends (-want +got):\n%s", diff)
		}
		got := jsonOf(t, d.Weekly.Buckets)
		wantWeekly := `[{"Key":"2026-11-02","Findings":{"Blocker":0,"Major":1,"Minor":2,"Nit":0,"Total":3}},` +
			`{"Key":"2026-11-09","Findings":{"Blocker":1,"Major":1,"Minor":0,"Nit":1,"Total":3}}]`
		if got != wantWeekly {
			t.Errorf("weekly severities\n got %s\nwant %s", got, wantWeekly)
		}
	},
	"most-expensive-pull-requests.graphql": func(t *testing.T, x *exampleEnv, data json.RawMessage) {
		var d struct {
			ExpensivePullRequests []struct {
				Repository named
				PrNumber   int
				PrTitle    string
				PrURL      string
				CostUsd    float64
				Runs       int
				Findings   int
			}
		}
		decodeInto(t, data, &d)
		var got []string
		for _, p := range d.ExpensivePullRequests {
			if !strings.HasSuffix(p.PrURL, "/pull/"+itoa(p.PrNumber)) || p.PrTitle == "" {
				t.Errorf("PR %d: title %q url %q", p.PrNumber, p.PrTitle, p.PrURL)
			}
			got = append(got, jsonOf(t, []any{p.Repository.FullName, p.PrNumber, p.CostUsd, p.Runs, p.Findings}))
		}
		want := []string{`["acme/secret",2,3,1,2]`, `["acme/api",1,2,2,3]`, `["acme/api",3,2,1,1]`}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	},
	"failed-webhooks.graphql": func(t *testing.T, x *exampleEnv, data json.RawMessage) {
		var d struct {
			Status        struct{ FailedWebhooks int }
			WebhookEvents struct {
				TotalCount int
				Edges      []struct {
					Node struct {
						ID, DeliveryID, Event, Repository, LastError string
						Attempts                                     int
					}
				}
			}
		}
		decodeInto(t, data, &d)
		if d.Status.FailedWebhooks != 2 || d.WebhookEvents.TotalCount != 2 || len(d.WebhookEvents.Edges) != 2 {
			t.Fatalf("failed webhooks: %+v", d)
		}
		// Newest first; the done delivery is not listed.
		first, second := d.WebhookEvents.Edges[0].Node, d.WebhookEvents.Edges[1].Node
		if first.DeliveryID != "d-newer" || second.DeliveryID != "d-older" {
			t.Errorf("order: %s, %s", first.DeliveryID, second.DeliveryID)
		}
		if first.LastError != "boom" || first.Attempts != 3 || first.Event != "pull_request" {
			t.Errorf("admin's view of a failed webhook: %+v", first)
		}
	},
}

type named struct {
	Name     string `json:"name,omitempty"`
	FullName string `json:"fullName,omitempty"`
}

type pointView struct {
	Key     string  `json:"key,omitempty"`
	Start   string  `json:"start,omitempty"`
	CostUsd float64 `json:"costUsd"`
	Runs    int     `json:"runs"`
}

type seriesView struct {
	Key        string
	Reviewer   *named
	Repository *named
	Total      pointView
	Points     []pointView
}

type exampleEnv struct {
	*env
}

func decodeInto(t *testing.T, data json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// seedExamples stores two weeks of history (and a run after the period that
// no example may count): reviewers security and perf on acme/api and
// acme/secret, with findings of three categories, and three webhook events.
func seedExamples(t *testing.T, e *env) {
	ctx := context.Background()
	type f struct {
		sev      finding.Severity
		category string
		posted   bool
	}
	add := func(repo *ent.Repository, rev *ent.Reviewer, pr int, created time.Time, status run.Status, cost float64, durMs int64, fs ...f) {
		c := e.db.Run.Create().SetRepository(repo).SetReviewer(rev).SetTrigger(run.TriggerComment).SetPrNumber(pr).
			SetPrTitle("PR " + itoa(pr)).SetPrURL(e.sim.WebURL() + "/" + repo.FullName + "/pull/" + itoa(pr)).
			SetHeadSha(strings.Repeat("c", 40)).SetCreatedAt(created).SetStatus(status).SetCostUsd(cost).SetDurationMs(durMs)
		n := map[finding.Severity]int{}
		for _, x := range fs {
			n[x.sev]++
		}
		r := c.SetFindingsBlocker(n[finding.SeverityBlocker]).SetFindingsMajor(n[finding.SeverityMajor]).
			SetFindingsMinor(n[finding.SeverityMinor]).SetFindingsNit(n[finding.SeverityNit]).SaveX(ctx)
		for i, x := range fs {
			e.db.Finding.Create().SetRun(r).SetHiddenID("h" + itoa(r.ID) + "-" + itoa(i)).SetPath("a.go").SetLine(i + 1).
				SetSeverity(x.sev).SetCategory(x.category).SetPosted(x.posted).SetTitle("finding").SaveX(ctx)
		}
	}
	day := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, time.UTC) }
	// Week of 2026-11-02: security on acme/api, PR 1 twice (one failed).
	add(e.repoA, e.revSec, 1, day(3, 10), run.StatusSucceeded, 1.5, 100_000,
		f{finding.SeverityMajor, "security", true}, f{finding.SeverityMinor, "security", false}, f{finding.SeverityMinor, "security", false})
	add(e.repoA, e.revSec, 1, day(4, 9), run.StatusFailed, 0.5, 50_000)
	// Week of 2026-11-09: perf on acme/secret PR 2 and acme/api PR 3.
	add(e.repoB, e.revPrf, 2, day(10, 15), run.StatusSucceeded, 3, 400_000,
		f{finding.SeverityBlocker, "performance", true}, f{finding.SeverityMajor, "performance", true})
	add(e.repoA, e.revPrf, 3, day(15, 23), run.StatusSucceeded, 2, 200_000, f{finding.SeverityNit, "style", false})
	// After the period (to is exclusive).
	add(e.repoA, e.revPrf, 4, day(16, 0), run.StatusSucceeded, 50, 900_000, f{finding.SeverityBlocker, "security", true})
	// What became of the posted findings (the quality example).
	decide := func(o finding.Outcome, sev finding.Severity, category string) {
		e.db.Finding.Update().Where(finding.Posted(true), finding.SeverityEQ(sev), finding.Category(category)).
			SetOutcome(o).SetOutcomeAt(day(14, 9)).SetOutcomeReason("seeded").ExecX(ctx)
	}
	decide(finding.OutcomeFixed, finding.SeverityMajor, "security")
	decide(finding.OutcomeDismissed, finding.SeverityBlocker, "performance")
	decide(finding.OutcomeAcknowledged, finding.SeverityMajor, "performance")

	ev := func(id string, status webhookevent.Status, received time.Time) {
		e.db.WebhookEvent.Create().SetDeliveryID(id).SetEvent("pull_request").SetAction("opened").
			SetRepository("acme/api").SetPayload([]byte(`{}`)).SetStatus(status).SetLastError("boom").
			SetAttempts(3).SetReceivedAt(received).SaveX(ctx)
	}
	ev("d-older", webhookevent.StatusFailed, day(5, 8))
	ev("d-newer", webhookevent.StatusFailed, day(12, 8))
	ev("d-done", webhookevent.StatusDone, day(13, 8))
}

// exampleFiles reads docs/api/examples/*.graphql.
func exampleFiles(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(examplesDir, "*.graphql"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples in %s (%v)", examplesDir, err)
	}
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = string(b)
	}
	return out
}

// TestExamplesAreValidAndDocumented: every example parses and validates
// against the served schema, has a check in exampleChecks, and is linked
// from docs/api.md; every check has its file.
func TestExamplesAreValidAndDocumented(t *testing.T) {
	schema := exec.NewExecutableSchema(exec.Config{}).Schema()
	guide, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	files := exampleFiles(t)
	for name, src := range files {
		t.Run(name, func(t *testing.T) {
			doc, errs := gqlparser.LoadQuery(schema, src)
			if errs != nil {
				t.Fatalf("invalid against the schema: %v", errs)
			}
			if len(doc.Operations) != 1 || doc.Operations[0].Operation != ast.Query {
				t.Errorf("want one query operation, got %d", len(doc.Operations))
			}
			if _, ok := exampleChecks[name]; !ok {
				t.Errorf("no check in exampleChecks")
			}
			if !strings.Contains(string(guide), "(api/examples/"+name+")") {
				t.Errorf("docs/api.md does not link api/examples/%s", name)
			}
		})
	}
	for name := range exampleChecks {
		if _, ok := files[name]; !ok {
			t.Errorf("exampleChecks has %s, which is not in %s", name, examplesDir)
		}
	}
}

// TestExamplesAnswer runs every example with a read API token (as a
// dashboard would) over the seeded history on SQLite and PostgreSQL and
// checks the answers.
func TestExamplesAnswer(t *testing.T) {
	files := exampleFiles(t)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		seedExamples(t, e)
		dash := e.login("carol").token("read")
		x := &exampleEnv{env: e}
		vars := map[string]any{"from": exFrom.Format(time.RFC3339), "to": exTo.Format(time.RFC3339)}
		for _, name := range names {
			t.Run(name, func(t *testing.T) {
				check := exampleChecks[name]
				if check == nil {
					t.Fatal("no check")
				}
				r := dash.do(files[name], declared(t, files[name], vars))
				r.ok(t)
				check(t, x, r.Data)
			})
		}
		// The access rule holds in the examples too: alice cannot read
		// acme/secret, so its PR is not among her most expensive ones.
		r := e.login("alice").token("read").do(files["most-expensive-pull-requests.graphql"], vars)
		r.ok(t)
		if strings.Contains(string(r.Data), "acme/secret") || !strings.Contains(string(r.Data), "acme/api") {
			t.Errorf("alice's expensive PRs: %s", r.Data)
		}
	})
}

// declared keeps the variables the operation declares.
func declared(t *testing.T, src string, vars map[string]any) map[string]any {
	t.Helper()
	doc, errs := gqlparser.LoadQuery(exec.NewExecutableSchema(exec.Config{}).Schema(), src)
	if errs != nil {
		t.Fatal(errs)
	}
	out := map[string]any{}
	for _, v := range doc.Operations[0].VariableDefinitions {
		if val, ok := vars[v.Variable]; ok {
			out[v.Variable] = val
		}
	}
	return out
}
