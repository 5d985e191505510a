package tools

import (
	"regexp"
	"strings"
	"testing"
)

// withoutNewline must match a single line exactly as the pattern does, and
// never match a newline.
func FuzzWithoutNewline(f *testing.F) {
	for _, s := range [][2]string{
		{`(?s)[ab].*[yz]`, "xa..y"}, {`[^q]+`, "abc"}, {`\s+`, " \t"}, {`a\nb`, "ab"},
		{`(?i)K.`, "k\u212a"}, {`[\n]`, "x"}, {`^$`, ""}, {`\W`, "-"}, {`(?m)^a$`, "a"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, line string) {
		line = strings.ReplaceAll(line, "\n", "")
		re, err := regexp.Compile("(?m)" + pattern)
		if err != nil {
			return
		}
		find, err := withoutNewline("(?m)" + pattern)
		if err != nil {
			t.Fatalf("%q compiles but not without newlines: %v", pattern, err)
		}
		if re.MatchString(line) != find.MatchString(line) {
			t.Fatalf("%q on %q: %v, without newlines %v", pattern, line, re.MatchString(line), find.MatchString(line))
		}
		if m := find.FindString("x\ny\n\n"); strings.Contains(m, "\n") {
			t.Fatalf("%q without newlines matched %q", pattern, m)
		}
	})
}
