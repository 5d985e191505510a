package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/internal/findings"
)

// hunchDiff adds lines that carry hunches (loops, input, function names)
// beside lines with rule findings.
const hunchDiff = `diff --git a/svc/orders.go b/svc/orders.go
new file mode 100644
--- /dev/null
+++ b/svc/orders.go
@@ -0,0 +1,16 @@
+func ListOrders(r *http.Request) {
+	id := r.URL.Query().Get("id")
+	for i := 0; i <= len(ids); i++ {
+	}
+	q := "SELECT * FROM orders WHERE id = " + id
+	_ = db.Close()
+}
+func helper() {
+	for _, x := range xs {
+	}
+	v := r.URL.Query().Get("v")
+}
+func another(a int) int {
+	for a > 0 {
+	}
+}
`

// submitted asks the model for its result at once (pass text as the
// runner's agent writes it, or none) and returns the submitted findings.
func submitted(t *testing.T, h http.Handler, system, passText string) []findings.Finding {
	t.Helper()
	prompt := "<diff>\n" + hunchDiff + "</diff>\nReview the diff."
	content := []any{map[string]any{"type": "text", "text": prompt}}
	if passText != "" {
		content = append(content, map[string]any{"type": "text", "text": passText})
	}
	content = append(content, map[string]any{"type": "text", "text": "This is your last turn: call submit_result now with your result so far."})
	code, out := post(t, h, map[string]any{"model": "claude-haiku-4-5", "max_tokens": 1000, "system": system,
		"tools":    []map[string]any{{"name": "submit_result", "input_schema": map[string]any{"type": "object"}}},
		"messages": []any{map[string]any{"role": "user", "content": content}}})
	if code != http.StatusOK {
		t.Fatalf("status %d: %v", code, out)
	}
	for _, c := range out["content"].([]any) {
		m := c.(map[string]any)
		if m["name"] != "submit_result" {
			continue
		}
		b, _ := json.Marshal(m["input"])
		res, err := findings.ParseResult(b)
		if err != nil {
			t.Fatalf("submitted result invalid: %v", err)
		}
		return res.Findings
	}
	t.Fatalf("no submit_result in %v", out)
	return nil
}

func ids(fs []findings.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.ID())
	}
	return out
}

// TestSpeculativeVariesByPass: with Speculative, every pass reports the
// rule findings, and each hunch comes up in exactly one pass of every three
// or in every pass; without it, passes are the same.
func TestSpeculativeVariesByPass(t *testing.T) {
	pass := func(n int) string {
		return fmt.Sprintf("This is independent review pass %d of %d: review the pull request on your own judgement.", n, 3)
	}
	plain := Handler()
	rules := submitted(t, plain, "", "")
	if len(rules) != 3 {
		t.Fatalf("the diff has %d rule findings, want 3 (SQL, ignored error, and the unfounded twin the model slips in): %v", len(rules), ids(rules))
	}
	for n := 1; n <= 3; n++ {
		if got := submitted(t, plain, "", pass(n)); !cmp.Equal(ids(got), ids(rules)) {
			t.Fatalf("without Speculative, pass %d differs: %v", n, ids(got))
		}
	}

	h := New(Config{Speculative: true})
	isRule := map[string]bool{}
	for _, id := range ids(rules) {
		isRule[id] = true
	}
	votes := map[string]int{}
	byPass := map[int][]string{}
	for n := 1; n <= 4; n++ {
		got := submitted(t, h, "", pass(n))
		byPass[n] = ids(got)
		left := map[string]bool{}
		for _, id := range ids(rules) {
			left[id] = true
		}
		for _, f := range got {
			if isRule[f.ID()] {
				delete(left, f.ID())
				continue
			}
			if f.Severity != findings.Minor && f.Severity != findings.Nit {
				t.Errorf("pass %d: hunch %q is %s; hunches are minor or nit", n, f.Title, f.Severity)
			}
			if n <= 3 {
				votes[f.ID()]++
			}
		}
		if len(left) > 0 {
			t.Errorf("pass %d lacks rule findings %v", n, left)
		}
	}
	once, every := 0, 0
	for id, v := range votes {
		switch v {
		case 1:
			once++
		case 3:
			every++
		default:
			t.Errorf("hunch %s came up in %d of 3 passes; want 1 or 3", id, v)
		}
	}
	if once < 3 || every < 1 {
		t.Errorf("%d hunches in one pass, %d in every pass; the diff should give several of the first and one of the second", once, every)
	}
	if !cmp.Equal(byPass[4], byPass[1]) {
		t.Errorf("pass 4 = %v, want pass 1's %v (a cycle of three)", byPass[4], byPass[1])
	}
	// No pass text is pass 1, so one-pass reviews have hunches too.
	if got := ids(submitted(t, h, "", "")); !cmp.Equal(got, byPass[1]) {
		t.Errorf("no pass text = %v, want pass 1's %v", got, byPass[1])
	}
	// Hunches follow the rule families the reviewer switches on, like rule findings.
	for _, f := range submitted(t, h, "You are style, an AI code reviewer run by Chakshu.\n<reviewer_rules>\nRules: style\n</reviewer_rules>", pass(1)) {
		if f.Category != "style" {
			t.Errorf("style reviewer got a %s hunch %q", f.Category, f.Title)
		}
	}
}
