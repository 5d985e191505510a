package scriptedmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/internal/findings"
)

const diff = `diff --git a/store/users.go b/store/users.go
index 111..222 100644
--- a/store/users.go
+++ b/store/users.go
@@ -10,6 +10,14 @@ func Open() {
 	ctx := context.Background()
-	old()
+	q := "SELECT * FROM users WHERE id = " + id
+	_ = db.Close()
+	if err != nil {
+	}
 	keep()
+	password := "hunter22"
+	// TODO: paginate
+	const key = "AKIAIOSFODNN7EXAMPLE"
 }
diff --git a/web/app.ts b/web/app.ts
new file mode 100644
--- /dev/null
+++ b/web/app.ts
@@ -0,0 +1,3 @@
+console.log(user)
+const q = ` + "`" + `DELETE FROM t WHERE id = ${id}` + "`" + `
+// FIXME later
diff --git a/gone.py b/gone.py
deleted file mode 100644
--- a/gone.py
+++ /dev/null
@@ -1,1 +0,0 @@
-print("x")
`

func TestAddedLines(t *testing.T) {
	got := addedLines(diff)
	want := []addedLine{
		{"store/users.go", 11, "\tq := \"SELECT * FROM users WHERE id = \" + id"},
		{"store/users.go", 12, "\t_ = db.Close()"},
		{"store/users.go", 13, "\tif err != nil {"},
		{"store/users.go", 14, "\t}"},
		{"store/users.go", 16, "\tpassword := \"hunter22\""},
		{"store/users.go", 17, "\t// TODO: paginate"},
		{"store/users.go", 18, "\tconst key = \"AKIAIOSFODNN7EXAMPLE\""},
		{"web/app.ts", 1, "console.log(user)"},
		{"web/app.ts", 2, "const q = `DELETE FROM t WHERE id = ${id}`"},
		{"web/app.ts", 3, "// FIXME later"},
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(addedLine{})); d != "" {
		t.Fatalf("added lines (-want +got):\n%s", d)
	}
}

func TestReviewRules(t *testing.T) {
	type row struct {
		Path     string
		Line     int
		Severity findings.Severity
		Category string
		Title    string
		Suggest  string
	}
	var got []row
	for _, f := range review(diff) {
		s := "-"
		if f.Suggestion != nil {
			s = *f.Suggestion
		}
		got = append(got, row{f.Path, f.Line, f.Severity, f.Category, f.Title, s})
		if err := f.Validate(); err != nil {
			t.Errorf("finding %+v invalid: %v", f, err)
		}
	}
	want := []row{
		{"store/users.go", 11, findings.Major, "security", "SQL built from strings: `q := \"SELECT * FROM users WHERE id = \" + id`", "-"},
		{"store/users.go", 12, findings.Major, "correctness", "Error ignored: `_ = db.Close()`", "\tif err := db.Close(); err != nil {\n\t\treturn err\n\t}"},
		{"store/users.go", 13, findings.Major, "correctness", "Error checked but not handled", "-"},
		{"store/users.go", 16, findings.Blocker, "security", "Hard-coded credential: password", "\tpassword := os.Getenv(\"PASSWORD\")"},
		{"store/users.go", 17, findings.Nit, "style", "Unresolved TODO: paginate", "-"},
		{"store/users.go", 18, findings.Blocker, "security", "Hard-coded AWS access key", "-"},
		{"web/app.ts", 1, findings.Minor, "style", "Debug output left in: `console.log(user)`", ""},
		{"web/app.ts", 2, findings.Major, "security", "SQL built from strings: `const q = 'DELETE FROM t WHERE id = ${id}'`", "-"},
		{"web/app.ts", 3, findings.Nit, "style", "Unresolved FIXME: later", "-"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("findings (-want +got):\n%s", d)
	}
}

func TestReplyVerdicts(t *testing.T) {
	cases := map[string]findings.Verdict{
		"<thread>\n<comment author=\"bot\">SQL injection</comment>\n<comment author=\"alice\">Fixed in the last commit.</comment>\n</thread>": findings.VerdictFixed,
		"<thread>\n<comment author=\"alice\">This is a false positive, id is an int.</comment>\n</thread>":                                    findings.VerdictWrong,
		"<thread>\n<comment author=\"bot\">fixed?</comment>\n<comment author=\"alice\">Why is this a problem?</comment>\n</thread>":           findings.VerdictStands,
		"no fences at all, just: done": findings.VerdictFixed,
	}
	for prompt, want := range cases {
		r := replyFor(prompt)
		if r.Verdict != want {
			t.Errorf("replyFor(%q) = %s, want %s", prompt, r.Verdict, want)
		}
		b, _ := json.Marshal(r)
		if _, err := findings.ParseReply(b); err != nil {
			t.Errorf("reply invalid: %v", err)
		}
	}
}

func post(t *testing.T, h http.Handler, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/messages", bytes.NewReader(b)))
	var out map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	return rec.Code, out
}

func TestWireValidation(t *testing.T) {
	h := Handler()
	tools := []map[string]any{{"name": "Read", "input_schema": map[string]any{"type": "object"}}, {"name": "submit_result", "input_schema": map[string]any{"type": "object"}}}
	cases := map[string]map[string]any{
		"no model":            {"max_tokens": 10, "messages": []any{map[string]any{"role": "user", "content": "hi"}}},
		"no messages":         {"model": "claude-haiku-4-5", "max_tokens": 10},
		"assistant first":     {"model": "claude-haiku-4-5", "max_tokens": 10, "messages": []any{map[string]any{"role": "assistant", "content": "hi"}}},
		"unanswered tool":     {"model": "claude-haiku-4-5", "max_tokens": 10, "tools": tools, "messages": []any{map[string]any{"role": "user", "content": "hi"}, map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Read", "input": map[string]any{}}}}, map[string]any{"role": "user", "content": "go on"}}},
		"bad tool name":       {"model": "claude-haiku-4-5", "max_tokens": 10, "tools": []any{map[string]any{"name": "github.get", "input_schema": map[string]any{}}}, "messages": []any{map[string]any{"role": "user", "content": "hi"}}},
		"forced tool unknown": {"model": "claude-haiku-4-5", "max_tokens": 10, "tool_choice": map[string]any{"type": "tool", "name": "nope"}, "messages": []any{map[string]any{"role": "user", "content": "hi"}}},
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			code, out := post(t, h, body)
			if code != http.StatusBadRequest || out["type"] != "error" {
				t.Fatalf("status %d body %v; want 400 error", code, out)
			}
		})
	}
	code, out := post(t, h, map[string]any{"model": "claude-haiku-4-5", "max_tokens": 100, "tools": tools,
		"messages": []any{map[string]any{"role": "user", "content": "<pr_files>\nstore/users.go\n</pr_files>\n<diff>" + diff + "</diff>"}}})
	if code != http.StatusOK || out["stop_reason"] != "tool_use" || out["type"] != "message" {
		t.Fatalf("first turn: %d %v", code, out)
	}
	content := out["content"].([]any)
	last := content[len(content)-1].(map[string]any)
	if last["name"] != "Read" || last["input"].(map[string]any)["file_path"] != "store/users.go" {
		t.Fatalf("first turn should read the changed file: %v", content)
	}
	u := out["usage"].(map[string]any)
	if u["input_tokens"].(float64) < 100 || u["output_tokens"].(float64) < 10 {
		t.Fatalf("usage not derived from sizes: %v", u)
	}
}

func TestAPIKey(t *testing.T) {
	h := New(Config{APIKey: "k"})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(`{}`))
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("status %d without key", rec.Code)
	}
}

// system renders a system prompt the way chakshu-action does: the
// server's part, the reviewer's rules (CLAUDE.md) and its skill list.
func system(claudeMD string, skills ...string) string {
	s := "You are security, an AI code reviewer run by Chakshu. Rules: style\n<reviewer_rules>\n" + claudeMD + "\n</reviewer_rules>\n"
	if len(skills) > 0 {
		s += "<skills>\n- " + strings.Join(skills, "\n- ") + "\n</skills>\n"
	}
	return s
}

func TestFocusByRuleFamilies(t *testing.T) {
	all := review(diff)
	count := func(cats ...string) int {
		n := 0
		for _, f := range all {
			for _, c := range cats {
				if f.Category == c {
					n++
				}
			}
		}
		return n
	}
	cases := []struct {
		name, system string
		want         int
	}{
		{"no declaration: every family", system("# Security reviewer\nDo not comment on style."), len(all)},
		{"the reviewer's name alone does not focus", "You are security, an AI code reviewer run by Chakshu.", len(all)},
		{"one family", system("# Security reviewer\n\nRules: security"), count("security")},
		{"two families", system("rules: Security, correctness."), count("security", "correctness")},
		{"a list item", system("- Rules: style"), count("style")},
		{"declarations add up", system("Rules: security\nRules: style"), count("security", "style")},
		{"a skill switches its family on", system("Rules: security", "error-handling: Errors in Go. Rules: correctness"), count("security", "correctness")},
		{"a skill alone", system("# Reviewer", "naming: Names. Rules: style"), count("style")},
		{"prose naming no family does not count", system("Rules: be kind and brief"), len(all)},
		{"none", system("Rules: none"), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := focus(c.system, all); len(got) != c.want {
				t.Fatalf("focus kept %d findings, want %d", len(got), c.want)
			}
		})
	}
}

// TestSeededReviewersSwitchTheirFamily reads the sandbox's seeded reviewers'
// CLAUDE.md and skills: each switches on the family it is named after.
func TestSeededReviewersSwitchTheirFamily(t *testing.T) {
	for _, name := range families {
		dir := "../sandbox/seed/reviewers/" + name
		md, err := os.ReadFile(dir + "/CLAUDE.md")
		if err != nil {
			t.Fatal(err)
		}
		skills, _ := filepath.Glob(dir + "/skills/*/SKILL.md")
		var list []string
		for _, p := range skills {
			b, _ := os.ReadFile(p)
			desc := ""
			for _, l := range strings.Split(string(b), "\n") {
				if d, ok := strings.CutPrefix(l, "description: "); ok {
					desc = d
				}
			}
			list = append(list, filepath.Base(filepath.Dir(p))+": "+desc)
		}
		on := enabledFamilies(system(string(md), list...))
		if d := cmp.Diff(map[string]bool{name: true}, on); d != "" {
			t.Errorf("%s switches on (-want +got):\n%s", name, d)
		}
	}
}

func TestWrongEvidence(t *testing.T) {
	fs := review(diff)
	added := map[string]string{} // path:line → text
	for _, l := range addedLines(diff) {
		added[fmt.Sprintf("%s:%d", l.Path, l.Line)] = l.Text
	}
	out := wrongEvidence(fs)
	var miscounts, misquotes int
	i := 0
	for _, f := range fs {
		got := out[i]
		i++
		if got.Evidence != f.Evidence || got.Evidence != added[fmt.Sprintf("%s:%d", f.Path, f.Line)] {
			t.Fatalf("%s: evidence %q is not the line's text", f.Title, got.Evidence)
		}
		switch evidenceSlip(f) {
		case slipMiscount:
			miscounts++
			if got.Line != f.Line+miscountLines {
				t.Errorf("%s: miscount put it on line %d, want %d", f.Title, got.Line, f.Line+miscountLines)
			}
		case slipMisquote:
			misquotes++
			g := out[i]
			i++
			if g.Line != f.Line || !strings.HasPrefix(g.Title, "Same problem again: ") || g.Suggestion != nil || g.ID() == f.ID() {
				t.Errorf("unfounded sibling of %s: %+v", f.Title, g)
			}
			for _, text := range added {
				if strings.Contains(text, strings.TrimSpace(g.Evidence)) {
					t.Errorf("the misquote %q is in the diff", g.Evidence)
				}
			}
			if err := g.Validate(); err != nil {
				t.Errorf("unfounded sibling invalid: %v", err)
			}
		default:
			if got.Line != f.Line {
				t.Errorf("%s moved to %d", f.Title, got.Line)
			}
		}
	}
	if i != len(out) {
		t.Fatalf("%d findings out, %d accounted for", len(out), i)
	}
	if miscounts == 0 || misquotes == 0 {
		t.Fatalf("the test diff exercises %d miscounts and %d misquotes; want both", miscounts, misquotes)
	}
}

func TestSummaryCountsFindings(t *testing.T) {
	major := findings.Finding{Severity: findings.Major}
	nit := findings.Finding{Severity: findings.Nit}
	cases := []struct {
		name string
		fs   []findings.Finding
		want string
	}{
		{"one", []findings.Finding{major}, "Found 1 issue in the added lines (1 major)."},
		{"two", []findings.Finding{major, nit}, "Found 2 issues in the added lines (1 major, 1 nit)."},
		{"two of one severity", []findings.Finding{nit, nit}, "Found 2 issues in the added lines (2 nit)."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := summary(c.fs, 3); got != c.want {
				t.Fatalf("summary = %q, want %q", got, c.want)
			}
		})
	}
	if got := summary(nil, 3); !strings.HasPrefix(got, "Read 3 changed files; none of the added lines") {
		t.Fatalf("summary of no findings = %q", got)
	}
}
