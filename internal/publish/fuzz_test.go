package publish

import (
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/ghsim/mentions"
)

// FuzzMarkdown checks that no agent text survives sanitising with a way to
// open or close an HTML comment, start raw HTML, load an image or mention
// someone, and that appending Chakshu's markers after it keeps them readable.
func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{
		"plain", "@alice and @acme/team", "<!-- x -->", "--> <!--", "![i](u)", "<img src=x>",
		"```go\ncode", "~~~\n<!-- chakshu:finding:abc -->", "a@b.c", "<!-->", "<<!--!-->",
		"_@victim_", "&#64;victim", "&commat;org/team", "@&#118;ictim", "＠victim", "`x`@y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Markdown(in, 4000)
		switch {
		case strings.Contains(out, "<!--"), strings.Contains(out, "-->"), strings.Contains(out, "--!>"):
			t.Fatalf("comment syntax survived: %q → %q", in, out)
		case strings.Contains(out, "!["):
			t.Fatalf("image survived: %q → %q", in, out)
		case tagRE.MatchString(out):
			t.Fatalf("raw HTML survived: %q → %q", in, out)
		case len(mentions.Find(out)) > 0:
			// The oracle renders the markdown and applies GitHub's
			// mention rule to the text nodes: not the sanitiser's regexp.
			t.Fatalf("mention %q survived: %q → %q", mentions.Find(out), in, out)
		case len(out) > 4000+8:
			t.Fatalf("cap exceeded: %d bytes", len(out))
		}
		body := withMarkers(out, FindingMarker("0123456789abcdef"), RunMarker(5))
		m := ParseMarkers(body)
		if m.Run != 5 || len(m.Findings) != 1 || m.Findings[0] != "0123456789abcdef" {
			t.Fatalf("markers after %q: %+v", in, m)
		}
	})
}

// FuzzParseMarkers checks that markers are only read from the trailing block
// and never from text followed by anything else.
func FuzzParseMarkers(f *testing.F) {
	f.Add("x\n<!-- chakshu:finding:abc -->\n<!-- chakshu:run:1 -->\n")
	f.Add("<!-- chakshu:reply:3 -->")
	f.Add("### Chakshu backtest · security\n\n<!-- chakshu:backtest:security -->\n")
	f.Add("<!-- chakshu:run:99999999999999999999 -->")
	f.Fuzz(func(t *testing.T, body string) {
		m := ParseMarkers(body)
		withText := ParseMarkers(body + "\ntrailing words")
		if withText.Any() {
			t.Fatalf("markers read through trailing text: %+v", withText)
		}
		for _, id := range m.Findings {
			if !strings.Contains(body, FindingMarker(id)) {
				t.Fatalf("finding %q not in the body", id)
			}
		}
	})
}
