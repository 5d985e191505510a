package findings

import (
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/redact/redacttest"
)

func TestResultRedact(t *testing.T) {
	for name, secret := range redacttest.Corpus {
		t.Run(name, func(t *testing.T) {
			sug := "key := " + secret
			r := Result{Summary: "saw " + secret, Findings: []Finding{
				{Title: "Key `" + secret + "`", Body: "The line `" + secret + "` leaks.", Suggestion: &sug},
				{Title: "clean", Body: "clean", Suggestion: ptr("return nil")},
			}}
			if !r.Redact() {
				t.Fatal("Redact reported no change")
			}
			all := r.Summary + r.Findings[0].Title + r.Findings[0].Body
			if left := redacttest.Survivors(all); len(left) > 0 {
				t.Errorf("survives: %v", left)
			}
			if r.Findings[0].Suggestion != nil {
				t.Errorf("a suggestion holding a credential was kept: %q", *r.Findings[0].Suggestion)
			}
			if r.Findings[1].Suggestion == nil || *r.Findings[1].Suggestion != "return nil" || r.Findings[1].Title != "clean" {
				t.Errorf("a clean finding changed: %+v", r.Findings[1])
			}
			rep := ReplyResult{Reply: "It still holds " + secret, Verdict: VerdictStands}
			if !rep.Redact() || len(redacttest.Survivors(rep.Reply)) > 0 || !strings.HasPrefix(rep.Reply, "It still holds") {
				t.Errorf("reply not redacted: %q", rep.Reply)
			}
		})
	}
	clean := Result{Summary: "fine", Findings: []Finding{{Title: "t", Body: "b"}}}
	if clean.Redact() {
		t.Error("Redact changed a clean result")
	}
}

func ptr(s string) *string { return &s }
