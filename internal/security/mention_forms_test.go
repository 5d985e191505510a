package security

import (
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/ghsim/mentions"
	"github.com/chakshu-dev/chakshu/internal/publish"
)

// TestMentionForms puts every form of mention GitHub renders through the
// publisher's sanitising (Markdown for bodies and summaries, Line for
// titles) and checks, with an independent renderer and GitHub's mention
// rule (internal/ghsim/mentions), that nothing in the result pings anyone,
// while the text is still there to read.
func TestMentionForms(t *testing.T) {
	forms := map[string]string{
		"plain":                   "@victim please look",
		"team":                    "ping @acme/security",
		"underscore emphasis":     "_@victim_",
		"double underscore":       "__@victim__",
		"underscore inside word":  "see_@victim",
		"star emphasis":           "*@victim*",
		"strikethrough":           "~~@victim~~",
		"decimal reference":       "&#64;victim",
		"padded decimal":          "&#0064;victim",
		"hex reference":           "&#x40;victim",
		"upper hex reference":     "&#X40;victim",
		"named reference":         "&commat;org/team",
		"login as references":     "@&#118;ictim and @&#x76;ictim",
		"reference after a word":  "x&#95;@victim",
		"after code span":         "`x`@victim",
		"after emphasis":          "*x*@victim",
		"fullwidth at":            "＠victim",
		"small at":                "﹫victim",
		"zero-width before":       "a\u200b@victim",
		"zero-width joiner":       "a\u200d@victim",
		"backslash escaped":       `\@victim`,
		"after a link":            "[x](https://example.com)@victim",
		"in a heading":            "# @victim",
		"in a table":              "| a |\n|---|\n| @victim |",
		"in a list":               "- @victim",
		"in a quote":              "> @victim",
		"two in a row":            "@a @b@c",
		"entity and emphasis mix": "_&#64;victim_",
	}
	for name, in := range forms {
		t.Run(name, func(t *testing.T) {
			for fn, out := range map[string]string{"Markdown": publish.Markdown(in, 4000), "Line": publish.Line(in, 400)} {
				if got := mentions.Find(out); len(got) > 0 {
					t.Errorf("%s(%q) = %q still mentions %q", fn, in, out, got)
				}
				if !strings.Contains(strings.ReplaceAll(out, "\u200b", ""), "victim") && strings.Contains(in, "victim") && !strings.Contains(in, "&#") {
					t.Errorf("%s(%q) = %q lost the text", fn, in, out)
				}
			}
		})
	}
	// An e-mail address is not a mention and stays readable as one.
	if out := publish.Markdown("mail a@b.example", 100); out != "mail a@b.example" {
		t.Errorf("e-mail address changed: %q", out)
	}
}
