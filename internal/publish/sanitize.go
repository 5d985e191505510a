package publish

import (
	"html"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/chakshu-dev/chakshu/internal/textcut"
)

// Everything the agent wrote is data. Before it goes into a PR comment it is
// length-capped, cannot open or close an HTML comment (so it can neither hide
// text nor forge or break Chakshu's hidden markers), cannot start raw HTML or
// load an image, cannot mention a user or team, and cannot leave a code fence
// open that would swallow what Chakshu appends after it.

// zwsp is a zero-width space: it breaks a markdown construct without changing
// what a reader sees.
const zwsp = "\u200b"

var (
	// A mention: an at sign at the start or after anything but an ASCII
	// letter or digit (an e-mail address is not a mention), followed by a
	// login or org/team character. GitHub finds mentions in the rendered
	// text nodes (html-pipeline MentionFilter), so an underscore counts as
	// a separator too: `_@victim_` renders as <em>@victim</em>. The
	// fullwidth and small at signs are broken as well. Inside code it would
	// not ping, but code spans are not tracked here, so it is broken there
	// too (invisibly).
	mentionRE = regexp.MustCompile(`(^|[^A-Za-z0-9])([@\x{FF20}\x{FE6B}])([A-Za-z0-9])`)
	// A character reference as CommonMark reads it (decimal, hexadecimal or
	// named; the semicolon is required). GitHub decodes them before looking
	// for mentions, so `&#64;victim` and `&commat;org/team` ping.
	charRefRE = regexp.MustCompile(`&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});`)
	// The start of raw HTML: a tag, a closing tag, a comment, a processing
	// instruction or a declaration.
	tagRE = regexp.MustCompile(`<([A-Za-z/!?])`)
)

// capBytes cuts s to at most max bytes on a rune boundary, marking the cut.
func capBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const mark = " …(cut)"
	return textcut.Bytes(s, max-len(mark)) + mark
}

// neutralise breaks mentions, HTML comments and tags, comment closers and
// images in s.
func neutralise(s string) string {
	s = strings.ToValidUTF8(s, "�")
	s = strings.ReplaceAll(s, "\u0000", "")
	s = charRefRE.ReplaceAllStringFunc(s, literalMentionRef)
	s = tagRE.ReplaceAllString(s, "<"+zwsp+"$1")
	s = strings.ReplaceAll(s, "-->", "--"+zwsp+">")
	s = strings.ReplaceAll(s, "--!>", "--!"+zwsp+">")
	s = strings.ReplaceAll(s, "![", "!"+zwsp+"[")
	// Twice: the regexp does not see overlapping matches such as "@a @b".
	for range 2 {
		s = mentionRE.ReplaceAllString(s, "$1$2"+zwsp+"$3")
	}
	return breakAfterLinks(s)
}

// breakAfterLinks breaks an at sign that follows a letter or digit when the
// word it ends could be an autolink (it holds an at sign, "://" or "www."):
// a renderer that ends the link just before the at sign leaves "@login" at
// the start of its own text node, where GitHub's mention rule matches it.
// GitHub's own autolinker (cmark-gfm) keeps such an at sign inside the link,
// but not every renderer does (goldmark ends "a@b.c@victim" and
// "http://a.b@victim" before the second at sign), and breaking it costs a
// reader nothing. "lodash@4.17.21" and "git@host" are left as they are.
func breakAfterLinks(s string) string {
	var b strings.Builder
	last := 0 // bytes before last are written to b
	for i, r := range s {
		if (r != '@' && r != '\uff20' && r != '\ufe6b') || i == 0 {
			continue
		}
		j := i + utf8.RuneLen(r)
		if j >= len(s) || !isAlnum(s[j]) || !isAlnum(s[i-1]) {
			continue
		}
		word := strings.ToLower(s[strings.LastIndexAny(s[:i], " \t\n<")+1 : i])
		if !strings.Contains(word, "@") && !strings.Contains(word, "\uff20") && !strings.Contains(word, "\ufe6b") &&
			!strings.Contains(word, "://") && !strings.Contains(word, "www.") {
			continue
		}
		b.WriteString(s[last:j])
		b.WriteString(zwsp)
		last = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isAlnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// literalMentionRef replaces a character reference that stands for a
// character a mention is made of (an at sign, a login's letters, digits and
// punctuation, or a separator like the underscore) with that character, so
// the mention rule sees what GitHub will render; other references (&lt;,
// &amp; …) are left as they are.
func literalMentionRef(ref string) string {
	dec := html.UnescapeString(ref)
	if dec == ref || utf8.RuneCountInString(dec) != 1 {
		return ref
	}
	switch r, _ := utf8.DecodeRuneInString(dec); {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9',
		r == '@', r == '_', r == '-', r == '/', r == '.', r == '\uff20', r == '\ufe6b':
		return dec
	}
	return ref
}

// Markdown makes agent markdown (a summary, a finding's reasoning) safe to
// embed: capped to max bytes, neutralised, and with any code fence it left
// open closed again.
func Markdown(s string, max int) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = neutralise(capBytes(strings.TrimSpace(s), max))
	return closeFences(s)
}

// Line makes agent text safe as one line of markdown (a title): newlines fold
// to spaces and emphasis markers cannot break the bold around it. Code spans
// are left as written: a backslash in one shows literally (CommonMark 0.31
// §6.1 "Backslash escapes do not work in code spans"; GitHub renders it so),
// and the cut at max never leaves one open.
func Line(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	out := escapeEmphasis(capBytes(s, max))
	for cut := max; len(out) > max && cut > 0; {
		// The escapes pushed it past max: cut the text shorter.
		cut -= len(out) - max
		out = escapeEmphasis(capBytes(s, cut))
	}
	return neutralise(out)
}

// escapeEmphasis backslash-escapes * and _ outside code spans. A code span
// opens with a run of n backticks and closes at the next run of exactly n
// (CommonMark §6.1); a run without its closer is literal text.
func escapeEmphasis(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '\\':
			if i+1 < len(s) && isASCIIPunct(s[i+1]) {
				b.WriteString(s[i : i+2]) // already escaped (also a literal backtick)
				i += 2
				continue
			}
			b.WriteByte(c)
			i++
		case '`':
			n := backticks(s[i:])
			if end := spanEnd(s[i+n:], n); end >= 0 {
				b.WriteString(s[i : i+n+end+n])
				i += n + end + n
				continue
			}
			b.WriteString(s[i : i+n])
			i += n
		case '*', '_':
			b.WriteByte('\\')
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// backticks is the length of the backtick run s starts with.
func backticks(s string) int {
	n := 0
	for n < len(s) && s[n] == '`' {
		n++
	}
	return n
}

// spanEnd is where in s the first run of exactly n backticks starts, or -1.
func spanEnd(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		m := backticks(s[i:])
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// closeFences appends a closing fence when s ends inside a fenced code block,
// so what follows s is not rendered as code.
func closeFences(s string) string {
	var open string // the opening fence run; empty outside a fence
	for _, ln := range strings.Split(s, "\n") {
		t := strings.TrimLeft(ln, " ")
		if len(ln)-len(t) > 3 {
			continue // indented code, not a fence
		}
		run := fenceRun(t)
		switch {
		case open == "" && run != "":
			if run[0] == '`' && strings.Contains(t[len(run):], "`") {
				continue // a backtick fence's info string has no backtick: this is inline code
			}
			open = run
		case open != "" && run != "" && run[0] == open[0] && len(run) >= len(open) && strings.TrimSpace(t[len(run):]) == "":
			open = ""
		}
	}
	if open != "" {
		return s + "\n" + open
	}
	return s
}

// fenceRun returns the run of three or more backticks or tildes t starts with.
func fenceRun(t string) string {
	if t == "" || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return t[:n]
}

// Fence returns a backtick fence longer than any backtick run in code, so
// code cannot close the block it is shown in.
func Fence(code string) string {
	longest, cur := 0, 0
	for i := 0; i < len(code); i++ {
		if code[i] == '`' {
			cur++
			longest = max(longest, cur)
		} else {
			cur = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// safeName keeps a config-controlled name (reviewer, login) to characters
// that cannot break a marker or markdown.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		}
		if b.Len() >= 100 {
			break
		}
	}
	return b.String()
}
