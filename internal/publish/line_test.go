package publish_test

import (
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/publish"
)

// A title shows on GitHub as written: emphasis markers outside code are
// literal, and code spans show their text without the backslashes an escape
// would leave there (CommonMark §6.1: no backslash escapes in code spans).
// Compared as the simulator's renderer (GitHub-flavoured, goldmark) shows
// the title in its bold, as a finding's heading has it.
func TestLineRendersAsWritten(t *testing.T) {
	cases := []struct{ name, title, want string }{
		{"blank identifier in code", "Error ignored: `_ = rows.Scan(…)`", "Error ignored: <code>_ = rows.Scan(…)</code>"},
		{"pointer in code", "`*ptr` may be nil", "<code>*ptr</code> may be nil"},
		{"snake case in code", "`snake_case_name` is unused", "<code>snake_case_name</code> is unused"},
		{"emphasis outside code", "snake_case and *stars* and __bold__", "snake_case and *stars* and __bold__"},
		{"double backtick span", "``a ` b_c`` then _x_", "<code>a ` b_c</code> then _x_"},
		{"unclosed backtick", "open `back_tick *x*", "open `back_tick *x*"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			html := ghsim.RenderMarkdown("**" + publish.Line(tc.title, 200) + "**")
			want := "<p><strong>" + tc.want + "</strong></p>"
			if strings.TrimSpace(html) != want {
				t.Fatalf("rendered %s\nwant     %s", strings.TrimSpace(html), want)
			}
		})
	}
}

// A cut title never leaves a code span open (its text would then be read
// as Markdown) and stays within the cap.
func TestLineCutKeepsCodeClosed(t *testing.T) {
	title := strings.Repeat("a_b ", 30) + "`x_y` tail"
	got := publish.Line(title, 100)
	if len(got) > 100 {
		t.Fatalf("%d bytes, want at most 100", len(got))
	}
	if html := ghsim.RenderMarkdown("**" + got + "**"); strings.Contains(html, "<em>") || !strings.Contains(html, "a_b") {
		t.Fatalf("rendered %s", html)
	}
}
