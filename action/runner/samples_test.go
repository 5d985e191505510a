package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/action/agent"
	"github.com/chakshu-dev/chakshu/action/internal/hostile"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
	"github.com/chakshu-dev/chakshu/internal/strictjson"
)

// ordersFile is the head version of the file ordersDiff adds: two rule
// findings (SQL from strings, an ignored error) among lines the scripted
// model has hunches about (loops, input, function names).
const ordersFile = `func ListOrders(r *http.Request) {
	id := r.URL.Query().Get("id")
	for i := 0; i <= len(ids); i++ {
	}
	q := "SELECT * FROM orders WHERE id = " + id
	_ = db.Close()
}
func helper() {
	for _, x := range xs {
	}
	v := r.URL.Query().Get("v")
}
func another(a int) int {
	for a > 0 {
	}
}
`

func ordersDiff() string {
	lines := strings.Split(strings.TrimSuffix(ordersFile, "\n"), "\n")
	return fmt.Sprintf("diff --git a/svc/orders.go b/svc/orders.go\nnew file mode 100644\n--- /dev/null\n+++ b/svc/orders.go\n@@ -0,0 +1,%d @@\n+%s\n",
		len(lines), strings.Join(lines, "\n+"))
}

// samplesJob reviews ordersDiff in samples passes that must agree.
func samplesJob(samples, agree int) runnerproto.Job {
	job := reviewJob()
	job.Diff, job.Files = ordersDiff(), []string{"svc/orders.go"}
	job.Prompt = "<untrusted>\n<pr_files>\nsvc/orders.go\n</pr_files>\n<diff>\n" + job.Diff + "</diff>\n</untrusted>\nReview the diff."
	job.Samples, job.Agree = samples, agree
	return job
}

// ordersCheckout is a checkout at hostile.HeadSHA holding svc/orders.go.
func ordersCheckout(t *testing.T) string {
	return writeTree(t, map[string]string{".git/HEAD": hostile.HeadSHA + "\n", "svc/orders.go": ordersFile})
}

// writeTree writes files (slash paths → content) into a new directory.
func writeTree(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// passFindings asks the model directly what pass n of of reports for job
// (pass 0: a one-pass review, no pass text), forcing the result at once.
func passFindings(t *testing.T, model http.Handler, job runnerproto.Job, n, of int) []findings.Finding {
	t.Helper()
	content := []any{map[string]any{"type": "text", "text": job.Prompt}}
	if n > 0 {
		content = append(content, map[string]any{"type": "text", "text": fmt.Sprintf(agent.PassText, n, of)})
	}
	content = append(content, map[string]any{"type": "text", "text": "call submit_result now"})
	body, _ := json.Marshal(map[string]any{"model": job.Model, "max_tokens": 4000, "system": job.System,
		"tools":    []map[string]any{{"name": "submit_result", "input_schema": map[string]any{"type": "object"}}},
		"messages": []any{map[string]any{"role": "user", "content": content}}})
	rec := httptest.NewRecorder()
	model.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(string(body))))
	var out struct {
		Content []struct {
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("model answered %d: %s", rec.Code, rec.Body)
	}
	for _, c := range out.Content {
		if c.Name == "submit_result" {
			res, err := findings.ParseResult(c.Input)
			if err != nil {
				t.Fatal(err)
			}
			return res.Findings
		}
	}
	t.Fatalf("no result in %s", rec.Body)
	return nil
}

// keySet is the findings' hidden IDs with their lines (one title may be
// reported for several places).
func keySet(fs []findings.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, findingKey(f))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func findingKey(f findings.Finding) string { return fmt.Sprintf("%s@%d", f.ID(), f.Line) }

// TestSamplesKeepAgreedFindings: three passes through the scripted model
// (with hunches that vary by pass) keep exactly the findings that at least
// agree passes report, and the report says so.
func TestSamplesKeepAgreedFindings(t *testing.T) {
	model := scriptedmodel.New(scriptedmodel.Config{Speculative: true})
	for _, agree := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("3 passes, agree %d", agree), func(t *testing.T) {
			job := samplesJob(3, agree)
			// What each pass reports, asked of the model directly; findings
			// are grouped by meaning (findings.Group) and a group is kept
			// when at least agree passes report it.
			var all []findings.Finding
			var passOf, perPass []int
			for n := 1; n <= 3; n++ {
				fs := passFindings(t, model, job, n, 3)
				perPass = append(perPass, len(fs))
				for _, f := range fs {
					all = append(all, f)
					passOf = append(passOf, n)
				}
			}
			votes := map[string]int{}
			byID := map[string]findings.Finding{}
			for _, g := range findings.Group(all) {
				voters := map[int]bool{}
				for _, i := range g {
					voters[passOf[i]] = true
				}
				id := findingKey(all[g[0]]) // the group's first report is its finding (same severities here)
				votes[id], byID[id] = len(voters), all[g[0]]
			}
			var want []string
			for id, v := range votes {
				if v >= agree {
					want = append(want, id)
				}
			}
			slices.Sort(want)
			if agree == 2 && (len(want) == len(votes) || len(want) == 0) {
				t.Fatalf("votes %v: the fixture must have findings both above and below agreement", votes)
			}

			h := newHarness(t, job, model)
			h.cfg.CheckoutDir = ordersCheckout(t)
			if err := h.run(t); err != nil {
				t.Fatalf("Run: %v\nlog:\n%s", err, h.log)
			}
			rep := h.report(t)
			res, err := findings.ParseResult(rep.Result)
			if err != nil {
				t.Fatal(err)
			}
			// The evidence check then drops the agreed findings whose quote
			// is not in the file (the scripted model's unfounded twins).
			dropped := map[string]bool{}
			if rep.Evidence != nil {
				for _, d := range rep.Evidence.DroppedFindings {
					dropped[d.Path+"\x00"+d.Title] = true
				}
			}
			var wantChecked []string
			for _, id := range want {
				if f := byID[id]; !dropped[f.Path+"\x00"+f.Title] {
					wantChecked = append(wantChecked, id)
				}
			}
			if rep.Evidence == nil || rep.Evidence.Dropped != len(want)-len(wantChecked) {
				t.Errorf("evidence report %+v, want %d dropped of the agreed findings", rep.Evidence, len(want)-len(wantChecked))
			}
			if got := keySet(res.Findings); !cmp.Equal(got, wantChecked) {
				t.Errorf("kept %v, want %v (votes %v, evidence %+v)", got, wantChecked, votes, rep.Evidence)
			}
			wantStats := &findings.Samples{Passes: 3, Ran: 3, Agree: agree, PassFindings: perPass,
				Distinct: len(votes), Kept: len(want), Dropped: len(votes) - len(want)}
			if d := cmp.Diff(wantStats, rep.Stats.Samples); d != "" {
				t.Errorf("stats (-want +got):\n%s", d)
			}
			// Every pass ran its whole conversation: 4 model calls each.
			if h.fake.modelCalls != 12 || rep.Stats.Turns != 12 {
				t.Errorf("%d model calls, %d turns reported; want 12 (3 passes of 4)", h.fake.modelCalls, rep.Stats.Turns)
			}
			perPassCalls := map[int]int{}
			for _, body := range h.fake.modelBodies {
				for n := 1; n <= 3; n++ {
					if strings.Contains(body, fmt.Sprintf("independent review pass %d of 3", n)) {
						perPassCalls[n]++
					}
				}
			}
			if want := map[int]int{1: 4, 2: 4, 3: 4}; !cmp.Equal(perPassCalls, want) {
				t.Errorf("model calls by the pass they say: %v, want %v", perPassCalls, want)
			}
			wantNote := fmt.Sprintf("Reviewed in 3 independent passes; kept %s at least %d of them reported and dropped %d", plural(len(want), "finding"), agree, len(votes)-len(want))
			if !strings.Contains(res.Summary, wantNote) {
				t.Errorf("summary %q lacks %q", res.Summary, wantNote)
			}
			// The passes run at once: each gets a third of the $1 cap and the
			// run's 60 s.
			if !strings.Contains(h.log.String(), "Pass 1 of 3: up to $0.3333 and 60s") || !strings.Contains(h.log.String(), "Pass 3 of 3: up to $0.3333 and 60s") {
				t.Errorf("log lacks the passes and their shares:\n%s", h.log)
			}
			if !slices.Contains(res.Checked.Files, "svc/orders.go") {
				t.Errorf("checked = %+v", res.Checked)
			}
		})
	}
}

// inFlight wraps a model and records the most requests it answered at
// once, and how many answers it had given when a request of a pass other
// than the first first came (-1: none came).
type inFlight struct {
	h                 http.Handler
	mu                sync.Mutex
	now, most, served int
	servedAtOtherPass int
}

func (f *inFlight) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	f.mu.Lock()
	f.now++
	f.most = max(f.most, f.now)
	if f.servedAtOtherPass < 0 && bytes.Contains(body, []byte("independent review pass ")) && !bytes.Contains(body, []byte("independent review pass 1 of")) {
		f.servedAtOtherPass = f.served
	}
	f.mu.Unlock()
	f.h.ServeHTTP(w, r)
	f.mu.Lock()
	f.now--
	f.served++
	f.mu.Unlock()
}

// TestSamplesShareTheCostCap: the passes run at once and split the run's
// cap: each starts with an even share of it, keeps within it, the gateway
// never has to refuse, and the run's cost is the sum of its passes'.
func TestSamplesShareTheCostCap(t *testing.T) {
	job := samplesJob(3, 2)
	job.MaxCostUSD = 3
	model := &inFlight{h: scriptedmodel.New(scriptedmodel.Config{Speculative: true, ExtraInputTokens: 100_000, Latency: 20 * time.Millisecond}), servedAtOtherPass: -1} // about $0.21 a call
	h := newHarness(t, job, model)
	h.cfg.CheckoutDir = ordersCheckout(t)
	if err := h.run(t); err != nil {
		t.Fatalf("Run: %v\nlog:\n%s", err, h.log)
	}
	rep := h.report(t)
	if rep.Result == nil {
		t.Fatalf("no result: %+v", rep.Failure)
	}
	log := h.log.String()
	for i := 1; i <= 3; i++ {
		if !strings.Contains(log, fmt.Sprintf("Pass %d of 3: up to $1.0000", i)) {
			t.Errorf("log does not give pass %d a third of the cap:\n%s", i, log)
		}
	}
	if model.most < 2 {
		t.Errorf("at most %d model requests at once: the passes did not run in parallel", model.most)
	}
	// Passes 2 and 3 start once pass 1's first answer came: the cache
	// entry for the shared tools and system prompt is there for them then.
	if model.servedAtOtherPass < 1 {
		t.Errorf("a later pass's first request came after %d answers; want pass 1's first answer before it", model.servedAtOtherPass)
	}
	if h.fake.capRefused || h.fake.finalUsed {
		t.Error("the gateway had to refuse: the passes did not keep to their shares")
	}
	s := rep.Stats.Samples
	if s == nil || s.Passes != 3 || s.Ran != 3 || s.Agree != 2 || s.AgreeAsked != 0 {
		t.Fatalf("stats = %+v", s)
	}
	if rep.Stats.Turns != 12 || h.fake.modelCalls != 12 {
		t.Errorf("turns %d, model calls %d; want every pass's (12)", rep.Stats.Turns, h.fake.modelCalls)
	}
	if h.fake.spentUSD > job.MaxCostUSD {
		t.Errorf("cost $%.4f over the $%.2f cap", h.fake.spentUSD, job.MaxCostUSD)
	}
}

// TestSamplesStopAtTheGatewaysCap: passes that meet the gateway's cap (one
// call costs more than the whole cap) share the gateway's one final
// request: one pass returns a result, the others stop at the cap, and the
// one result is kept as it is, with the check told that agree could not be
// met.
func TestSamplesStopAtTheGatewaysCap(t *testing.T) {
	job := samplesJob(3, 2)
	h := newHarness(t, job, scriptedmodel.New(scriptedmodel.Config{ExtraInputTokens: 600_000})) // $1.20 a call, cap $1
	h.cfg.CheckoutDir = ordersCheckout(t)
	if err := h.run(t); err != nil {
		t.Fatalf("Run: %v\nlog:\n%s", err, h.log)
	}
	if !h.fake.finalUsed || !h.fake.capRefused {
		t.Fatalf("gateway saw %d calls (final used: %v, refused: %v); want the cap met", h.fake.modelCalls, h.fake.finalUsed, h.fake.capRefused)
	}
	rep := h.report(t)
	s := rep.Stats.Samples
	if rep.Result == nil || s == nil || s.Ran != 1 || s.Agree != 1 || s.Dropped != 0 || s.Kept != s.Distinct || s.Kept == 0 {
		t.Fatalf("report = %+v, stats %+v", rep.Failure, s)
	}
	if !strings.Contains(h.log.String(), "gave no result: cost cap reached") || !strings.Contains(h.log.String(), "agree 2 could not be met: only 1 of 3 passes ran") {
		t.Errorf("log:\n%s", h.log)
	}
	if s.AgreeAsked != 2 {
		t.Errorf("stats %+v do not say agree 2 could not be met", s)
	}
	if res, _ := findings.ParseResult(rep.Result); !strings.Contains(res.Summary, "agreement of 2 passes, which could not be met") {
		t.Errorf("summary %q does not say agree could not be met", res.Summary)
	}
}

// TestSamplesAllPassesFail: no pass with a result fails the run with the
// first pass's reason.
func TestSamplesAllPassesFail(t *testing.T) {
	job := samplesJob(2, 2)
	job.MaxTurns = 2
	h := newHarness(t, job, scriptedmodel.New(scriptedmodel.Config{NeverSubmit: true}))
	h.cfg.CheckoutDir = ordersCheckout(t)
	if err := h.run(t); err == nil {
		t.Fatal("Run succeeded without a result")
	}
	rep := h.report(t)
	if rep.Failure == nil || rep.Failure.Reason != agent.ReasonMaxTurns || rep.Stats.Turns != 4 {
		t.Fatalf("report = %+v", rep)
	}
}

// TestSamplesCompatibility: a job from a server before samples (no field),
// a job of one sample and a reply job run one pass, with the report of
// before: no pass text, no samples figures, decoded strictly by a server
// that does not know them.
func TestSamplesCompatibility(t *testing.T) {
	reply := samplesJob(3, 2)
	reply.Kind = "reply"
	reply.Prompt = "<thread>\n<comment author=\"alice\">Fixed, thanks.</comment>\n</thread>"
	for name, job := range map[string]runnerproto.Job{"no samples": samplesJob(0, 0), "one sample": samplesJob(1, 1), "reply": reply} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, job, scriptedmodel.New(scriptedmodel.Config{Speculative: true}))
			h.cfg.CheckoutDir = ordersCheckout(t)
			if err := h.run(t); err != nil {
				t.Fatalf("Run: %v\nlog:\n%s", err, h.log)
			}
			rep := h.report(t)
			if rep.Stats.Samples != nil {
				t.Errorf("one pass reported samples figures %+v", rep.Stats.Samples)
			}
			for _, b := range h.fake.modelBodies {
				if strings.Contains(b, "independent review pass") {
					t.Fatal("a one-pass run said which pass it is")
				}
			}
			raw, _ := json.Marshal(rep)
			var before struct {
				Result  json.RawMessage      `json:"result,omitempty"`
				Failure *runnerproto.Failure `json:"failure,omitempty"`
				// Protocol and Evidence came before samples (runner protocol 2).
				Protocol int                         `json:"protocol,omitempty"`
				Evidence *runnerproto.EvidenceReport `json:"evidence,omitempty"`
				Stats    struct {
					Turns      int      `json:"turns"`
					ToolCalls  int      `json:"tool_calls"`
					DurationMS int64    `json:"duration_ms"`
					FilesRead  []string `json:"files_read,omitempty"`
				} `json:"stats"`
			}
			if err := strictjson.Decode(raw, &before); err != nil {
				t.Fatalf("a server before samples would refuse the report: %v", err)
			}
		})
	}
	// A runner before samples reads a job that has them as one of before
	// (unknown fields are ignored when the job is decoded).
	raw, _ := json.Marshal(samplesJob(3, 2))
	var old struct {
		RunID int64 `json:"run_id"`
	}
	if err := json.Unmarshal(raw, &old); err != nil || old.RunID != runID {
		t.Fatalf("old runner's decode: %v", err)
	}
}

// TestSamplesStopAtTheWallTime: passes that run out of the run's wall time
// give no result; with none the run fails with the first pass's reason.
func TestSamplesStopAtTheWallTime(t *testing.T) {
	job := samplesJob(5, 2)
	job.WallSeconds = 1 // the four passes that run at once take it all
	h := newHarness(t, job, scriptedmodel.New(scriptedmodel.Config{Latency: 400 * time.Millisecond}))
	h.cfg.CheckoutDir = ordersCheckout(t)
	if err := h.run(t); err == nil {
		t.Fatal("Run succeeded")
	}
	if rep := h.report(t); rep.Failure == nil || rep.Failure.Reason != agent.ReasonWallTime {
		t.Fatalf("report = %+v", rep)
	}
	// Passes 1-4 run at once and run out of time; pass 5, waiting for a
	// slot, is not started with none left.
	log := h.log.String()
	if !strings.Contains(log, "Pass 1 of 5 gave no result") || !strings.Contains(log, "Pass 4 of 5 gave no result") ||
		!strings.Contains(log, "Pass 5 of 5 not started: 0s of the wall time is left") {
		t.Errorf("log:\n%s", log)
	}
}

func TestWorthAPass(t *testing.T) {
	for _, c := range []struct {
		left, even float64
		want       bool
	}{{0.5, 1, true}, {0.4999, 1, false}, {1, 1, true}, {0, 1, false}, {-0.1, 1, false}, {60, 120, true}, {59, 120, false}} {
		if got := worthAPass(c.left, c.even); got != c.want {
			t.Errorf("worthAPass(%v, %v) = %v, want %v", c.left, c.even, got, c.want)
		}
	}
}

func TestAgreeOn(t *testing.T) {
	f := func(path string, line int, sev findings.Severity, title string) findings.Finding {
		return findings.Finding{Path: path, Line: line, Side: "RIGHT", Severity: sev, Category: "correctness", Title: title, Body: "b"}
	}
	res := func(summary string, fs ...findings.Finding) *findings.Result {
		return &findings.Result{Summary: summary, Findings: fs, Checked: findings.Checked{Files: []string{fs[0].Path}, Skills: []string{}}}
	}
	a1 := f("a.go", 1, findings.Minor, "Leak")
	a1major := f("a.go", 3, findings.Major, "leak!") // the same finding (hidden ID), more severe, elsewhere
	b := f("b.go", 2, findings.Nit, "Name")
	c := f("c.go", 5, findings.Major, "Race")
	passes := []*findings.Result{
		res("first", a1, b, a1), // reports a.go's leak twice: one vote
		res("second", c, a1major),
		res("third", c, a1),
	}
	cases := []struct {
		agree, ran int
		want       []findings.Finding
		summary    string
	}{
		{agree: 1, ran: 3, want: []findings.Finding{a1major, b, c}, summary: "first"},
		{agree: 2, ran: 3, want: []findings.Finding{a1major, c}, summary: "second"}, // c has 2 votes: kept at agree 2
		{agree: 3, ran: 3, want: []findings.Finding{a1major}, summary: "first"},     // c has 2 votes, one short; every pass is one off the kept set: the first wins
		{agree: 3, ran: 1, want: []findings.Finding{a1, b}, summary: "first"},       // one pass ran: agree lowered to 1
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("agree %d of %d", tc.agree, tc.ran), func(t *testing.T) {
			got, stats := agreeOn(passes[:tc.ran], 3, tc.agree)
			if d := cmp.Diff(tc.want, got.Findings); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
			if stats.Kept != len(tc.want) || stats.Distinct-stats.Kept != stats.Dropped || stats.Ran != tc.ran || stats.Passes != 3 {
				t.Errorf("stats = %+v", stats)
			}
			if unmet := tc.agree > tc.ran; (stats.AgreeAsked != 0) != unmet || (unmet && stats.AgreeAsked != tc.agree) {
				t.Errorf("agree %d of %d ran: AgreeAsked %d", tc.agree, tc.ran, stats.AgreeAsked)
			}
			if !strings.HasPrefix(got.Summary, tc.summary+"\n\n") {
				t.Errorf("summary = %q, want the %s pass's", got.Summary, tc.summary)
			}
		})
	}
	got, _ := agreeOn(passes, 3, 2)
	if want := []string{"a.go", "c.go"}; !cmp.Equal(got.Checked.Files, want) {
		t.Errorf("checked files %v, want the union %v", got.Checked.Files, want)
	}
	// A summary at the limit is cut so the note fits and the result stays valid.
	long := res(strings.Repeat("é", findings.MaxSummaryBytes/2), a1)
	got, _ = agreeOn([]*findings.Result{long, long}, 2, 2)
	b2, _ := json.Marshal(got)
	if _, err := findings.ParseResult(b2); err != nil || !strings.HasSuffix(got.Summary, "dropped 0 that fewer reported.") {
		t.Errorf("long summary: %v, ends %q", err, got.Summary[len(got.Summary)-40:])
	}
}

// TestAgreeOnGroupsByMeaning: passes that word one finding differently and
// name a line or two apart vote for it together; two findings of one kind
// on other code stay two.
func TestAgreeOnGroupsByMeaning(t *testing.T) {
	quote := `q := "SELECT * FROM orders WHERE id = " + id`
	sql := func(line int, title, body string, sev findings.Severity) findings.Finding {
		return findings.Finding{Path: "svc/orders.go", Line: line, Side: "RIGHT", Severity: sev, Category: "security",
			Title: title, Body: body, Evidence: quote}
	}
	other := findings.Finding{Path: "svc/orders.go", Line: 12, Side: "RIGHT", Severity: findings.Major, Category: "security",
		Title: "SQL built from strings", Body: "The query is assembled by concatenation.", Evidence: `d := "DELETE FROM orders WHERE id = " + id`}
	res := func(fs ...findings.Finding) *findings.Result {
		return &findings.Result{Summary: "s", Findings: fs, Checked: findings.Checked{Files: []string{}, Skills: []string{}}}
	}
	passes := []*findings.Result{
		res(sql(5, "SQL built from strings", "The query is assembled by concatenation; use placeholders.", findings.Major), other),
		res(sql(6, "Possible SQL injection: query concatenated with +", "User input is concatenated into the SQL text.", findings.Blocker)),
		res(sql(5, "Query built by string concatenation", "Pass the id as a bound parameter instead of concatenating it.", findings.Minor)),
	}
	got, stats := agreeOn(passes, 3, 3)
	if stats.Distinct != 2 || stats.Kept != 1 || len(got.Findings) != 1 {
		t.Fatalf("stats %+v, kept %+v; want the reworded finding kept by all three passes, the other dropped", stats, got.Findings)
	}
	if got.Findings[0].Severity != findings.Blocker {
		t.Errorf("kept %+v, want the group's most severe report", got.Findings[0])
	}
}

// TestRewordingPassesExactTitlesLoseTrueFindings: against a model that
// words findings differently in each pass (scriptedmodel.Config.Reword),
// voting by hidden ID (exact normalised title) loses true findings that
// voting on groups by meaning keeps; both keep the planted false finding,
// which every pass reports (a verification step must remove it).
func TestRewordingPassesExactTitlesLoseTrueFindings(t *testing.T) {
	job := samplesJob(3, 2)
	truth := findings.Group(passFindings(t, scriptedmodel.Handler(), job, 0, 0))
	truthFs := passFindings(t, scriptedmodel.Handler(), job, 0, 0)
	trueKept := func(kept []findings.Finding) int {
		n := 0
		for _, g := range truth {
			if slices.ContainsFunc(kept, func(k findings.Finding) bool { return findings.Same(&truthFs[g[0]], &k) }) {
				n++
			}
		}
		return n
	}
	byTitle, byMeaning, all := 0, 0, 0
	for _, seed := range []int64{1, 2, 3} {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			model := scriptedmodel.New(scriptedmodel.Config{Reword: true, RewordSeed: seed, Speculative: true})
			var results []*findings.Result
			votes := map[string]int{}
			first := map[string]findings.Finding{}
			for n := 1; n <= 3; n++ {
				fs := passFindings(t, model, job, n, 3)
				results = append(results, &findings.Result{Summary: "s", Findings: fs, Checked: findings.Checked{Files: []string{}, Skills: []string{}}})
				seen := map[string]bool{}
				for _, f := range fs {
					if id := f.ID(); !seen[id] {
						seen[id] = true
						votes[id]++
						if _, ok := first[id]; !ok {
							first[id] = f
						}
					}
				}
			}
			var byID []findings.Finding
			for id, v := range votes {
				if v >= 2 {
					byID = append(byID, first[id])
				}
			}
			merged, _ := agreeOn(results, 3, 2)
			if got := trueKept(merged.Findings); got != len(truth) {
				t.Errorf("grouping by meaning kept %d of %d true findings: %+v", got, len(truth), merged.Findings)
			}
			byMeaning += trueKept(merged.Findings)
			byTitle += trueKept(byID)
			all += len(truth)
			planted := 0
			for i := range merged.Findings {
				if scriptedmodel.Planted(&merged.Findings[i]) {
					planted++
				}
			}
			if planted != 1 {
				t.Errorf("%d planted false findings kept, want 1: every pass reports it", planted)
			}
		})
	}
	t.Logf("true findings kept over three runs: %d of %d voting on groups by meaning, %d voting on exact titles", byMeaning, all, byTitle)
	if byTitle >= byMeaning {
		t.Errorf("voting on exact titles kept %d true findings, on groups by meaning %d: the rewording model should make exact titles lose some", byTitle, byMeaning)
	}
}

// TestPassesTakeLensesInTurn: with lenses declared, each pass's first turn
// names the lens it takes, the reviewer's lenses one a pass in turn; with
// none, no pass is given a focus.
func TestPassesTakeLensesInTurn(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lenses []string
		want   map[string]int // lens → passes that took it
		report []string       // the lenses reported, one a pass that ran
	}{
		{"two lenses, three passes", []string{"logic and data flow", "security"}, map[string]int{"logic and data flow": 2, "security": 1},
			[]string{"logic and data flow", "security", "logic and data flow"}},
		{"no lenses", nil, map[string]int{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var prompts []string
			model := scriptedmodel.New(scriptedmodel.Config{Seen: func(_, prompt string) {
				mu.Lock()
				defer mu.Unlock()
				prompts = append(prompts, prompt)
			}})
			job := samplesJob(3, 1)
			job.Lenses = tc.lenses
			h := newHarness(t, job, model)
			h.cfg.CheckoutDir = ordersCheckout(t)
			if err := h.run(t); err != nil {
				t.Fatalf("Run: %v\nlog:\n%s", err, h.log)
			}
			mu.Lock()
			defer mu.Unlock()
			// Every request of a pass repeats its first turn (which names the
			// pass, "pass i of n"): distinct first turns are distinct passes.
			focused := 0
			passesWith := map[string]int{}
			for _, p := range slices.Compact(slices.Sorted(slices.Values(prompts))) {
				if !strings.Contains(p, "Focus of this pass") {
					continue
				}
				focused++
				for _, l := range tc.lenses {
					if strings.Contains(p, fmt.Sprintf(agent.LensText, l)) {
						passesWith[l]++
					}
				}
			}
			if len(tc.lenses) == 0 && focused != 0 {
				t.Fatalf("%d requests carried a focus with no lenses declared", focused)
			}
			if diff := cmp.Diff(tc.want, passesWith); diff != "" {
				t.Errorf("passes per lens (-want +got):\n%s", diff)
			}
			rep := h.report(t)
			if rep.Stats.Samples == nil {
				t.Fatal("no pass figures reported")
			}
			if diff := cmp.Diff(tc.report, rep.Stats.Samples.Lenses); diff != "" {
				t.Errorf("reported lenses (-want +got):\n%s", diff)
			}
		})
	}
}
