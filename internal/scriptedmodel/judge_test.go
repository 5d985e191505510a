package scriptedmodel

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestJudgeAnswersByTopic(t *testing.T) {
	ask := func(finding, expected string) string {
		body, _ := json.Marshal(map[string]any{"model": "claude-haiku-5-5", "max_tokens": 16,
			"messages": []map[string]any{{"role": "user", "content": "Same problem?\n<finding>\n" + finding + "\n</finding>\n\n<expected_comment>\n" + expected + "\n</expected_comment>"}}})
		rec := httptest.NewRecorder()
		Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/messages", bytes.NewReader(body)))
		var resp struct {
			Content []struct{ Text string } `json:"content"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || rec.Code != 200 || len(resp.Content) != 1 {
			t.Fatalf("%d %s", rec.Code, rec.Body.String())
		}
		return resp.Content[0].Text
	}
	for _, tc := range []struct{ finding, expected, want string }{
		{"SQL built from strings", "SQL injection through the order parameter", "SAME"},
		{"Hard-coded credential: apikey", "The live secret key is committed", "SAME"},
		{"Error ignored: _ = rows.Scan", "Refunds are listed oldest first", "DIFFERENT"},
		{"Unresolved TODO: check the caller owns the charge", "Broken access control: no permission check", "SAME"},
		{"Debug output left in: print(...)", "The erasure leaves the addresses behind", "DIFFERENT"},
	} {
		if got := ask(tc.finding, tc.expected); got != tc.want {
			t.Errorf("%q vs %q: %s, want %s", tc.finding, tc.expected, got, tc.want)
		}
	}
}
