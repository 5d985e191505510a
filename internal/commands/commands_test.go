package commands

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name string
		body string
		want Command
		ok   bool
	}{
		{"bare review", "@chakshu review", Command{Verb: Review}, true},
		{"slug is case-insensitive", "@ChakShu Review", Command{Verb: Review}, true},
		{"bot suffix", "@chakshu[bot] review", Command{Verb: Review}, true},
		{"named", "@chakshu review security perf", Command{Verb: Review, Names: []string{"security", "perf"}}, true},
		{"named with commas and case", "@chakshu review Security,perf, style", Command{Verb: Review, Names: []string{"security", "perf", "style"}}, true},
		{"duplicates dropped", "@chakshu review perf perf", Command{Verb: Review, Names: []string{"perf"}}, true},
		{"all", "@chakshu review all", Command{Verb: Review, All: true}, true},
		{"all wins over names", "@chakshu review perf all", Command{Verb: Review, All: true}, true},
		{"note after the command line", "@chakshu review security\nPlease look at the auth change.\n\nThanks", Command{Verb: Review, Names: []string{"security"}, Note: "Please look at the auth change.\n\nThanks"}, true},
		{"crlf", "@chakshu review\r\nnote here\r\n", Command{Verb: Review, Note: "note here"}, true},
		{"command on a later line", "Looks good overall.\n@chakshu review perf", Command{Verb: Review, Names: []string{"perf"}}, true},
		{"up to three spaces of indent", "   @chakshu review", Command{Verb: Review}, true},
		{"help", "@chakshu help", Command{Verb: Help}, true},
		{"bare mention is help", "@chakshu", Command{Verb: Help}, true},
		{"colon after mention", "@chakshu: review", Command{Verb: Review}, true},
		{"unknown verb", "@chakshu reveiw please", Command{Verb: Unknown, Word: "reveiw"}, true},
		{"not at line start", "please @chakshu review", Command{}, false},
		{"other slug", "@chakshu-dev review", Command{}, false},
		{"longer slug", "@chakshubot review", Command{}, false},
		{"other bot", "@dependabot rebase", Command{}, false},
		{"quoted", "> @chakshu review\nI agree", Command{}, false},
		{"indented code", "    @chakshu review", Command{}, false},
		{"tab code", "\t@chakshu review", Command{}, false},
		{"fenced code", "```\n@chakshu review\n```", Command{}, false},
		{"tilde fence", "~~~md\n@chakshu review\n~~~", Command{}, false},
		{"after a fence closes", "```\ncode\n```\n@chakshu review perf", Command{Verb: Review, Names: []string{"perf"}}, true},
		{"longer fence needs a longer close", "````\n```\n@chakshu review\n````\n", Command{}, false},
		{"inline code is not a fence", "```x``` text\n@chakshu help", Command{Verb: Help}, true},
		{"first command counts", "@chakshu help\n@chakshu review", Command{Verb: Help, Note: "@chakshu review"}, true},
		{"remember", "@chakshu remember we use sql.ErrNoRows on purpose here", Command{Verb: Remember, Directive: "we use sql.ErrNoRows on purpose here"}, true},
		{"remember on the next line", "Fair point.\n@chakshu remember\nPrefer table tests.", Command{Verb: Remember, Directive: "Prefer table tests."}, true},
		{"remember for this directory", "@chakshu remember for this directory: generated code, do not flag style", Command{Verb: Remember, Directive: "generated code, do not flag style", Directory: true}, true},
		{"remember in this folder", "@chakshu remember handlers log with slog in this folder.", Command{Verb: Remember, Directive: "handlers log with slog.", Directory: true}, true},
		{"empty", "", Command{}, false},
		{"invalid utf8", "@chakshu review \xff", Command{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Parse(tc.body, "chakshu")
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tc.body, diff)
			}
		})
	}
}

func TestParseCaps(t *testing.T) {
	long := strings.Repeat("é", MaxNote) // two bytes a rune
	c, ok := Parse("@chakshu review\n"+long, "chakshu")
	if !ok || len(c.Note) > MaxNote || !utf8.ValidString(c.Note) {
		t.Fatalf("note of %d bytes (valid %v)", len(c.Note), utf8.ValidString(c.Note))
	}
	c, _ = Parse("@chakshu remember "+long, "chakshu")
	if len(c.Directive) > MaxDirective || !utf8.ValidString(c.Directive) {
		t.Fatalf("directive of %d bytes", len(c.Directive))
	}
	names := strings.Repeat("x ", 100)
	for i := range 100 {
		names += "n" + strings.Repeat("a", i%30) + " "
	}
	c, _ = Parse("@chakshu review "+names, "chakshu")
	if len(c.Names) > MaxNames {
		t.Fatalf("%d names", len(c.Names))
	}
	if _, ok := Parse("@chakshu review", ""); ok {
		t.Fatal("an empty slug matched")
	}
}

// FuzzParse: Parse never panics, and what it returns stays within its limits
// and is only ever derived from a line that starts with the mention.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"@chakshu review", "@chakshu review security perf\nnote", "```\n@chakshu review\n```",
		"> @chakshu help", "@chakshu remember for this folder: x", "@CHAKSHU[bot] review all",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		c, ok := Parse(body, "chakshu")
		if !ok {
			if c.Verb != "" {
				t.Fatalf("no command but verb %q", c.Verb)
			}
			return
		}
		if !strings.Contains(strings.ToLower(body), "@chakshu") {
			t.Fatalf("command %+v from a body without the mention", c)
		}
		switch c.Verb {
		case Review, Help, Remember, Unknown:
		default:
			t.Fatalf("verb %q", c.Verb)
		}
		if len(c.Note) > MaxNote || len(c.Directive) > MaxDirective || len(c.Names) > MaxNames {
			t.Fatalf("over the caps: note %d directive %d names %d", len(c.Note), len(c.Directive), len(c.Names))
		}
		if !utf8.ValidString(c.Note) || !utf8.ValidString(c.Directive) {
			t.Fatal("invalid UTF-8 out")
		}
		for _, n := range c.Names {
			if n == "" || n != strings.ToLower(n) || strings.ContainsAny(n, " ,\n") {
				t.Fatalf("bad name %q", n)
			}
		}
	})
}
