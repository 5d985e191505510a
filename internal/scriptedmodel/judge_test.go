package scriptedmodel

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// askScripted sends one user prompt to the scripted model and returns its
// text, with a Markdown code fence around JSON taken off.
func askScripted(t *testing.T, prompt string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "claude-haiku-5-5", "max_tokens": 512,
		"messages": []map[string]any{{"role": "user", "content": prompt}}})
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/messages", bytes.NewReader(body)))
	var resp struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || rec.Code != 200 || len(resp.Content) != 1 {
		t.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
	s := strings.TrimSpace(resp.Content[0].Text)
	if strings.HasPrefix(s, "```json\n") {
		s = strings.TrimSuffix(strings.TrimPrefix(s, "```json\n"), "\n```")
	}
	return s
}

func judgeVerdict(t *testing.T, golden, candidate string) verdict {
	t.Helper()
	var v verdict
	text := askScripted(t, "Same problem?\n<golden_comment>\n"+golden+"\n</golden_comment>\n\n<candidate_issue>\n"+candidate+"\n</candidate_issue>\nJSON.")
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("verdict %q: %v", text, err)
	}
	return v
}

func TestJudgeVerdictsByTopic(t *testing.T) {
	for _, tc := range []struct {
		name, golden, candidate string
		match                   bool
	}{
		{"same topic, other words", "SQL injection through the order parameter", "SQL built from strings", true},
		{"secret", "The live secret key is committed", "Hard-coded credential: apikey", true},
		{"other problem nearby", "Refunds are listed oldest first", "Error ignored: _ = rows.Scan", false},
		{"access", "Broken access control: no permission check", "Unresolved TODO: check the caller owns the charge", true},
		{"unrelated", "The erasure leaves the addresses behind", "Debug output left in: print(...)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeVerdict(t, tc.golden, tc.candidate)
			if v.Match != tc.match || v.Confidence <= 0 || v.Confidence > 1 || v.Reasoning == "" {
				t.Fatalf("%+v, want match %v with a confidence in (0, 1] and a reason", v, tc.match)
			}
		})
	}
}

// Confidences make the best match and one-to-many matter: of two candidates
// on one topic the closer wording is surer; a candidate naming two problems
// matches a golden comment on each.
func TestJudgeConfidenceOrdersCandidates(t *testing.T) {
	golden := "RefundsFor builds its SQL by concatenating chargeID into the query: SQL injection."
	close := judgeVerdict(t, golden, "RefundsFor concatenates chargeID into the SQL query string: injection")
	far := judgeVerdict(t, golden, "A query is built from strings")
	if !close.Match || !far.Match || close.Confidence <= far.Confidence {
		t.Fatalf("closer wording %+v, farther %+v: want both matches, the closer surer", close, far)
	}
	both := "The SQL is concatenated and the error of rows.Scan is ignored"
	if a, b := judgeVerdict(t, golden, both), judgeVerdict(t, "The error of rows.Scan is discarded", both); !a.Match || !b.Match {
		t.Fatalf("a candidate on two problems: %+v, %+v", a, b)
	}
}

// Extraction lists one issue per bullet or per comment and leaves out the
// summary's count of findings.
func TestExtractIssues(t *testing.T) {
	text := askScripted(t, "List them.\n<review_comments>\nFound 2 issues in the added lines (1 critical, 1 minor).\n\n---\n\n"+
		"**SQL built from strings**\n\nThe query concatenates chargeID. Use placeholders.\n\n---\n\n"+
		"Two more things:\n- the error of Scan is ignored\n- a TODO is left in\n</review_comments>")
	var got struct{ Issues []string }
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	want := []string{"SQL built from strings: The query concatenates chargeID.", "the error of Scan is ignored", "a TODO is left in"}
	if d := cmp.Diff(want, got.Issues); d != "" {
		t.Fatalf("issues (-want +got):\n%s", d)
	}
}
