package scriptedmodel

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
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

func TestFocusByReviewer(t *testing.T) {
	all := review(diff)
	cases := map[string]int{
		"You are security, an AI code reviewer run by Chakshu.":    4,
		"You are correctness, an AI code reviewer run by Chakshu.": 2,
		"You are style, an AI code reviewer run by Chakshu.":       3,
		"You are perf, an AI code reviewer run by Chakshu.":        len(all),
		"no reviewer named": len(all),
	}
	for system, want := range cases {
		if got := focus(system, all); len(got) != want {
			t.Errorf("focus(%q) kept %d findings, want %d", system, len(got), want)
		}
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
