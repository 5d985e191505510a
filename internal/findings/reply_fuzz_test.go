package findings

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseReply: whatever the agent writes, ParseReply either refuses it or
// returns a non-empty, valid-UTF-8 reply within MaxReplyBytes and a known
// verdict.
func FuzzParseReply(f *testing.F) {
	f.Add([]byte(`{"reply":"The query is still built by concatenation.","verdict":"stands"}`))
	f.Add([]byte(`{"reply":"  ","verdict":"fixed"}`))
	f.Add([]byte(`{"reply":"x","verdict":"maybe"}`))
	f.Add([]byte(`{"reply":"x","verdict":"wrong","extra":1}`))
	f.Add([]byte("{\"reply\":\"\xff\",\"verdict\":\"wrong\"}"))
	f.Add([]byte(`{"reply":"x","verdict":"wrong"} {}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseReply(b)
		if err != nil {
			if r != nil {
				t.Fatal("a result with an error")
			}
			return
		}
		if strings.TrimSpace(r.Reply) == "" || len(r.Reply) > MaxReplyBytes || !utf8.ValidString(r.Reply) {
			t.Fatalf("accepted an invalid reply: %q", r.Reply)
		}
		switch r.Verdict {
		case VerdictStands, VerdictWrong, VerdictFixed:
		default:
			t.Fatalf("accepted verdict %q", r.Verdict)
		}
	})
}
