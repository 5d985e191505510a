package metrics_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/prometheus/promql/parser"

	entrun "github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/metrics"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/server/webhook"
)

// recorder keeps every collector registered through it.
type recorder struct {
	*prometheus.Registry
	cs []prometheus.Collector
}

func (r *recorder) Register(c prometheus.Collector) error {
	r.cs = append(r.cs, c)
	return r.Registry.Register(c)
}

func (r *recorder) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}

type family struct {
	typ    dto.MetricType
	labels []string
}

var descRe = regexp.MustCompile(`fqName: "([^"]+)".*variableLabels: \{([^}]*)\}`)

// families are Chakshu's metrics as the processes register them: name →
// type and label names, read from each collector's descriptors and a
// collected sample of it.
func families(t *testing.T) map[string]family {
	t.Helper()
	ctx := context.Background()
	db := storetest.Open(t, "sqlite")
	inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
	repo := db.Repository.Create().SetGithubID(2).SetOwner("acme").SetName("w").SetFullName("acme/w").SetInstallation(inst).SaveX(ctx)
	rv := db.Reviewer.Create().SetName("security").SetInstallation(inst).SaveX(ctx)
	for i, st := range []entrun.Status{entrun.StatusSucceeded, entrun.StatusQueued} {
		r := db.Run.Create().SetRepository(repo).SetReviewer(rv).SetTrigger(entrun.TriggerComment).SetPrNumber(1).
			SetHeadSha(string(rune('a' + i))).SetStatus(st).SetDurationMs(40_000).SaveX(ctx)
		// A decided finding, for chakshu_findings_outcomes.
		db.Finding.Create().SetRun(r).SetHiddenID("h").SetPath("a.go").SetTitle("t").SetSeverity("major").
			SetPosted(true).SetOutcome("fixed").SetOutcomeAt(time.Now()).SaveX(ctx)
	}

	rec := &recorder{Registry: prometheus.NewRegistry()}
	col, err := metrics.New(metrics.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	rec.MustRegister(col)
	if _, err := metrics.NewGitHub(rec); err != nil {
		t.Fatal(err)
	}
	if _, err := metrics.NewWebhookOutcomes(rec); err != nil {
		t.Fatal(err)
	}
	wh, err := webhook.New(webhook.Config{DB: db, Log: slog.New(slog.DiscardHandler), Secrets: []string{"s"}, Metrics: rec})
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()

	out := map[string]family{}
	for _, c := range rec.cs {
		descs := make(chan *prometheus.Desc, 64)
		c.Describe(descs)
		close(descs)
		for d := range descs {
			m := descRe.FindStringSubmatch(d.String())
			if m == nil {
				t.Fatalf("cannot read descriptor %s", d)
			}
			var ls []string
			for _, l := range strings.Split(m[2], ",") {
				if l = strings.TrimSpace(l); l != "" {
					ls = append(ls, l)
				}
			}
			out[m[1]] = family{typ: -1, labels: ls}
		}
		switch v := c.(type) {
		case *prometheus.CounterVec:
			v.WithLabelValues(make([]string, len(onlyFamily(t, v).labels))...)
		case *prometheus.GaugeVec:
			v.WithLabelValues(make([]string, len(onlyFamily(t, v).labels))...)
		}
		ms := make(chan prometheus.Metric, 256)
		c.Collect(ms)
		close(ms)
		for m := range ms {
			var pb dto.Metric
			if err := m.Write(&pb); err != nil {
				t.Fatalf("%s: %v", m.Desc(), err)
			}
			name := descRe.FindStringSubmatch(m.Desc().String())[1]
			f := out[name]
			switch {
			case pb.Counter != nil:
				f.typ = dto.MetricType_COUNTER
			case pb.Gauge != nil:
				f.typ = dto.MetricType_GAUGE
			case pb.Histogram != nil:
				f.typ = dto.MetricType_HISTOGRAM
			}
			out[name] = f
		}
	}
	for n, f := range out {
		if f.typ == -1 {
			t.Fatalf("no sample of %s was collected, so its type is unknown", n)
		}
	}
	return out
}

func onlyFamily(t *testing.T, c prometheus.Collector) family {
	descs := make(chan *prometheus.Desc, 4)
	c.Describe(descs)
	close(descs)
	d := <-descs
	m := descRe.FindStringSubmatch(d.String())
	var ls []string
	for _, l := range strings.Split(m[2], ",") {
		if l = strings.TrimSpace(l); l != "" {
			ls = append(ls, l)
		}
	}
	return family{labels: ls}
}

// documented returns each PromQL expression in docs/production.md's promql
// blocks: comment lines separate them, indented or "/" lines continue one.
func documented(t *testing.T) []string {
	b, err := os.ReadFile("../../docs/production.md")
	if err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, block := range regexp.MustCompile("(?s)```promql\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		open := false // the previous line was part of an expression
		for _, line := range strings.Split(block[1], "\n") {
			switch {
			case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
				open = false
			case open && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "/")):
				exprs[len(exprs)-1] += "\n" + line
			default:
				exprs = append(exprs, line)
				open = true
			}
		}
	}
	return exprs
}

// Every documented alert parses, names only metrics and labels Chakshu
// registers (histograms by their _bucket/_sum/_count series and le), groups
// by labels its metrics carry, and applies rate/increase only to counters.
func TestDocumentedPromQL(t *testing.T) {
	fams := families(t)
	exprs := documented(t)
	if len(exprs) < 8 {
		t.Fatalf("found %d PromQL expressions in docs/production.md, want the alerts", len(exprs))
	}
	for _, src := range exprs {
		for _, p := range checkExpr(fams, src) {
			t.Errorf("%s\n%s", p, src)
		}
	}

	// The doc's metrics table lists every family the processes register.
	b, _ := os.ReadFile("../../docs/production.md")
	for name := range fams {
		if strings.HasPrefix(name, "chakshu_") && !strings.Contains(string(b), "`"+name+"`") {
			t.Errorf("docs/production.md does not list %s", name)
		}
	}
}

// The check catches what the issue found: increase() over a gauge, a label
// the metric lacks, a metric nobody registers.
func TestDocumentedPromQLCheckCatches(t *testing.T) {
	fams := families(t)
	if f := fams["chakshu_webhook_events"]; f.typ != dto.MetricType_GAUGE {
		t.Fatalf("chakshu_webhook_events is %s", f.typ)
	}
	if f := fams["chakshu_webhook_duplicates_total"]; !slices.Equal(f.labels, []string{"event"}) || f.typ != dto.MetricType_COUNTER {
		t.Fatalf("chakshu_webhook_duplicates_total: %+v, want a counter by event", f)
	}
	if _, ok := fams["chakshu_runs"]; ok {
		t.Fatal("the old gauge chakshu_runs is still registered")
	}
	for src, want := range map[string]string{
		`increase(max(chakshu_webhook_events{status="failed"})[1h:]) > 0`:                      "need a counter",
		`sum(rate(chakshu_webhook_duplicates_total{reason="x"}[5m]))`:                          `no label "reason"`,
		`max(chakshu_runs{status="failed"})`:                                                   "no metric chakshu_runs",
		`sum by (status) (chakshu_model_cost_usd_total)`:                                       `grouped by "status"`,
		`histogram_quantile(0.9, sum by (le) (rate(chakshu_run_duration_seconds_bucket[1h])))`: "",
		`max(chakshu_run_queue_depth) >`:                                                       "does not parse",
	} {
		got := strings.Join(checkExpr(fams, src), "; ")
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%s: problems %q, want %q", src, got, want)
		}
	}
}

// checkExpr says what is wrong with one PromQL expression against fams.
func checkExpr(fams map[string]family, src string) (problems []string) {
	bad := func(f string, a ...any) { problems = append(problems, fmt.Sprintf(f, a...)) }
	resolve := func(name string) (family, []string, bool) {
		if f, ok := fams[name]; ok {
			return f, f.labels, true
		}
		for _, suf := range []string{"_bucket", "_sum", "_count"} {
			if f, ok := fams[strings.TrimSuffix(name, suf)]; ok && strings.HasSuffix(name, suf) && f.typ == dto.MetricType_HISTOGRAM {
				ls := f.labels
				if suf == "_bucket" {
					ls = append(slices.Clone(ls), "le")
				}
				return family{typ: dto.MetricType_COUNTER, labels: ls}, ls, true
			}
		}
		return family{}, nil, false
	}
	expr, err := parser.ParseExpr(src)
	if err != nil {
		bad("does not parse: %v", err)
		return problems
	}
	parser.Inspect(expr, func(n parser.Node, path []parser.Node) error {
		switch n := n.(type) {
		case *parser.VectorSelector:
			f, labels, ok := resolve(n.Name)
			if !ok {
				bad("%s: no metric %s is registered", n.Name, n.Name)
				return nil
			}
			for _, m := range n.LabelMatchers {
				if m.Name != "__name__" && !slices.Contains(labels, m.Name) {
					bad("%s has no label %q (it has %v)", n.Name, m.Name, labels)
				}
			}
			for _, p := range path {
				if c, ok := p.(*parser.Call); ok && (c.Func.Name == "rate" || c.Func.Name == "increase" || c.Func.Name == "irate") && f.typ != dto.MetricType_COUNTER {
					bad("%s() over %s, a %s: rate and increase need a counter", c.Func.Name, n.Name, f.typ)
				}
			}
		case *parser.AggregateExpr:
			var inner []string
			parser.Inspect(n.Expr, func(m parser.Node, _ []parser.Node) error {
				if vs, ok := m.(*parser.VectorSelector); ok {
					_, ls, _ := resolve(vs.Name)
					inner = append(inner, ls...)
				}
				return nil
			})
			for _, g := range n.Grouping {
				if !slices.Contains(inner, g) {
					bad("grouped by %q, which no metric inside carries", g)
				}
			}
		}
		return nil
	})
	return problems
}
