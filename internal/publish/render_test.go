package publish

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/internal/findings"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Fatalf("%s (-want +got):\n%s", name, d)
	}
}

func ptr(s string) *string { return &s }

func TestRenderComment(t *testing.T) {
	multi := fd("a.go", 5, findings.Blocker, "Nil map write panics")
	multi.StartLine = 3
	multi.Body = "`m` is nil when `load` fails, so the write on line 5 panics.\n\nSee @alice's note <!-- hidden -->."
	multi.Suggestion = ptr("if m == nil {\n\tm = map[string]int{}\n}\nm[k] = v")
	withFence := fd("a.go", 4, findings.Minor, "Doc example is wrong")
	withFence.Suggestion = ptr("// ```go\n// x := 1\n// ```\n")
	left := fd("a.go", 3, findings.Nit, "Removed line was clearer")
	left.Side = "LEFT"
	left.Suggestion = ptr("c")
	del := fd("a.go", 4, findings.Major, "Dead code")
	del.Suggestion = ptr("")
	cases := map[string]findings.Finding{
		"comment_multiline_suggestion.md": multi,
		"comment_no_suggestion.md":        fd("b.go", 2, findings.Major, "Error ignored"),
		"comment_fence_in_suggestion.md":  withFence,
		"comment_left_side.md":            left,
		"comment_delete_lines.md":         del,
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			it := &Item{Finding: f, HiddenID: f.ID(), Placement: PlaceInline}
			out := RenderComment(it, 42, "security")
			golden(t, name, out)
			m := ParseMarkers(out)
			if d := cmp.Diff(Markers{Findings: []string{f.ID()}, Run: 42, Reviewer: "security"}, m); d != "" {
				t.Fatalf("markers (-want +got):\n%s", d)
			}
		})
	}
}

func reviewFixture() ReviewInput {
	fs := []findings.Finding{
		fd("a.go", 4, findings.Blocker, "Nil map write"),
		fd("a.go", 90, findings.Major, "Lock not released on error"),
		fd("docs/x.md", 1, findings.Nit, "Typo"),
		fd("a.go", 3, findings.Minor, "Name shadows import"),
	}
	fs[1].Suggestion = ptr("defer mu.Unlock()")
	fs[1].Body = "The early return on line 95 skips `mu.Unlock()`. cc @acme/core"
	p := MakePlan(fs, Rules{MinSeverity: findings.Minor, MaxFindings: 2}, nil, testDiff())
	return ReviewInput{
		RunID: 42, Reviewer: "security", RunURL: "https://chakshu.example/runs/42",
		Summary: "Two real problems in the new cache.\n\n<!-- chakshu:run:1 -->",
		Checked: findings.Checked{Files: []string{"a.go", "b.go", "a.go"}, Skills: []string{"go-errors"}},
		Plan:    &p, Rules: Rules{MinSeverity: findings.Minor, MaxFindings: 2}, Reported: len(fs),
		IncrementalSince: "0123456789abcdef0123", BehindBy: 3, BaseRef: "main",
		CostUSD: 0.4249, Turns: 12,
		Learnings: []Learning{{Glob: "**/*.go", Directive: "We wrap errors with %w; @bob agreed"}},
		Coverage:  Coverage{PRFiles: 12, Read: 2, Filtered: 3, Skipped: 1},
	}
}

func TestRenderReview(t *testing.T) {
	t.Run("findings", func(t *testing.T) {
		in := reviewFixture()
		out := RenderReview(in)
		golden(t, "review_findings.md", out)
		m := ParseMarkers(out)
		var body []string
		for _, it := range in.Plan.Body() {
			body = append(body, it.HiddenID)
		}
		if d := cmp.Diff(Markers{Run: 42, Reviewer: "security", Findings: body}, m); d != "" {
			t.Fatalf("markers (-want +got):\n%s", d)
		}
	})
	t.Run("nothing found", func(t *testing.T) {
		p := MakePlan(nil, Rules{MinSeverity: findings.Nit, MaxFindings: 20}, nil, testDiff())
		out := RenderReview(ReviewInput{
			RunID: 7, Reviewer: "perf", RunURL: "https://chakshu.example/runs/7", Summary: "Looks fine.",
			Checked: findings.Checked{Files: []string{"a.go"}}, Plan: &p, Rules: Rules{MinSeverity: findings.Nit, MaxFindings: 20},
			Coverage: Coverage{PRFiles: 1, Read: 1},
		})
		golden(t, "review_nothing.md", out)
	})
	t.Run("everything already on the PR", func(t *testing.T) {
		fs := []findings.Finding{fd("a.go", 4, findings.Major, "old one"), fd("a.go", 3, findings.Nit, "tiny")}
		p := MakePlan(fs, Rules{MinSeverity: findings.Minor}, map[string]bool{fs[0].ID(): true}, testDiff())
		out := RenderReview(ReviewInput{
			RunID: 8, Reviewer: "perf", RunURL: "https://chakshu.example/runs/8", Plan: &p,
			Rules: Rules{MinSeverity: findings.Minor}, Reported: 2, Coverage: Coverage{PRFiles: 3, Read: 0, Skipped: 1},
		})
		golden(t, "review_already_posted.md", out)
	})
	t.Run("huge body stays under GitHub's limit", func(t *testing.T) {
		var fs []findings.Finding
		for i := range 50 {
			f := fd("far.go", 1000+i, findings.Major, "far finding "+strings.Repeat("x", i%7))
			f.Category = string(rune('a' + i%26))
			f.Body = strings.Repeat("long reasoning ", 400)
			f.Suggestion = ptr(strings.Repeat("code\n", 300))
			fs = append(fs, f)
		}
		p := MakePlan(fs, Rules{}, nil, testDiff())
		out := RenderReview(ReviewInput{RunID: 9, Reviewer: "r", Plan: &p, Reported: 50, Summary: strings.Repeat("s", 20000)})
		if len(out) > 65536 {
			t.Fatalf("body is %d bytes", len(out))
		}
		if got := len(ParseMarkers(out).Findings); got != len(p.Body()) {
			t.Fatalf("markers for %d of %d body findings", got, len(p.Body()))
		}
		if !strings.Contains(out, "<sub>Coverage:") {
			t.Fatal("coverage line lost")
		}
	})
}

func TestRenderCheck(t *testing.T) {
	in := reviewFixture()
	title, summary := RenderCheck(CheckInput{
		RunID: 42, RunURL: "https://chakshu.example/runs/42", ReviewURL: "https://github.example/acme/w/pull/1#pullrequestreview-5",
		Standing: in.Plan.Posted(), Posted: 2, OnPR: 0, Dropped: 2, FailOn: "blocker", CostUSD: 0.42, Duration: 83 * time.Second,
	})
	golden(t, "check_findings.md", title+"\n\n"+summary)
	title, summary = RenderCheck(CheckInput{RunID: 7, RunURL: "https://chakshu.example/runs/7", FailOn: "never", Duration: 2 * time.Second})
	golden(t, "check_nothing.md", title+"\n\n"+summary)
	_, summary = RenderCheck(CheckInput{RunID: 8, RunURL: "https://chakshu.example/runs/8", Duration: time.Second,
		Samples: &findings.Samples{Passes: 3, Ran: 1, Agree: 1, AgreeAsked: 2}})
	if want := "1 of 3 passes ran; agree 2 could not be met, so the findings at least 1 of them reported were kept."; !strings.Contains(summary, want) {
		t.Errorf("check summary lacks %q:\n%s", want, summary)
	}
	_, summary = RenderCheck(CheckInput{RunID: 8, RunURL: "https://chakshu.example/runs/8", Duration: time.Second,
		Samples: &findings.Samples{Passes: 3, Ran: 3, Agree: 2}})
	if want := "3 of 3 passes ran; kept the findings at least 2 of them reported."; !strings.Contains(summary, want) {
		t.Errorf("check summary lacks %q:\n%s", want, summary)
	}
}

func TestRenderReply(t *testing.T) {
	cases := map[string]ReplyInput{
		"reply_wrong_resolved.md": {RunID: 5, Reply: "You're right, @alice: the map is initialised in `New`.", Verdict: findings.VerdictWrong, Resolved: true},
		"reply_stands.md":         {RunID: 6, Reply: "It still panics when `load` fails <!-- x -->", Verdict: findings.VerdictStands},
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			out := RenderReply(in)
			golden(t, name, out)
			if ParseMarkers(out).Reply != in.RunID {
				t.Fatal("reply marker missing")
			}
		})
	}
}

// A finding placed in the review body shows the code it quotes (in a fence
// longer than any backtick run in it); an inline comment sits on its lines
// and does not repeat it; a body too long for GitHub keeps titles only. The
// review says what the evidence checks dropped and moved.
func TestRenderEvidence(t *testing.T) {
	in := reviewFixture()
	for i := range in.Plan.Items {
		it := &in.Plan.Items[i]
		it.Evidence = "mu.Lock()\nif err != nil { return err } // ``` fence\n"
	}
	in.EvidenceDropped, in.EvidenceMoved = 2, 1
	out := RenderReview(in)
	golden(t, "review_evidence.md", out)
	if len(in.Plan.Body()) == 0 || !strings.Contains(out, "````\nmu.Lock()\nif err != nil { return err } // ``` fence\n````") {
		t.Fatalf("the quote is not shown in a safe fence:\n%s", out)
	}
	for _, it := range in.Plan.Inline() {
		if c := RenderComment(it, 42, "security"); strings.Contains(c, "mu.Lock()") {
			t.Fatalf("an inline comment repeats its quote:\n%s", c)
		}
	}
	if short := renderReview(in, 0); strings.Contains(short, "mu.Lock()") {
		t.Fatalf("titles-only body keeps the quote:\n%s", short)
	}
}
