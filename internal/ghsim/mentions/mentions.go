// Package mentions says which @-mentions GitHub would see in a comment body,
// stated independently of how Chakshu neutralises them: it renders the
// markdown (CommonMark + GFM, as GitHub does) and scans the rendered text the
// way GitHub's mention filter does.
//
// GitHub finds mentions after rendering, in the document's text nodes, and
// ignores text inside <pre>, <code> and <a> (html-pipeline MentionFilter:
// "Mentions within <pre>, <code>, and <a> elements are ignored"; it searches
// doc.search('text()') and skips nodes with those ancestors). So markdown
// emphasis around a name (`_@victim_` renders <em>@victim</em>) and character
// references (`&#64;victim`, `&commat;org/team`) are mentions once rendered.
// The filter's pattern is "(?:^|\W)@([a-z0-9][a-z0-9-]*)", case-insensitive,
// \W being anything but an ASCII letter, digit or underscore. Find is
// deliberately wider: it also counts the fullwidth and small commercial at
// signs (U+FF20, U+FE6B), and ignores the filter's trailing conditions, so
// it can only over-report. It over-reports after autolinks too: goldmark
// ends "a@b.c@victim" and "http://a.b@victim" before the second at sign,
// leaving "@victim" at the start of a text node, where GitHub's renderer
// (cmark-gfm, GFM spec "Autolinks (extension)": an extended URL autolink
// runs to the next space or "<"; its e-mail scan counts every at sign and
// refuses more than one) would keep it inside the link.
package mentions

import (
	"bytes"
	"html"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// Find returns the mentions GitHub could see in markdown: each is the text
// from the at sign to the end of the login (for example "@victim").
func Find(markdown string) []string {
	var buf bytes.Buffer
	if err := md.Convert([]byte(markdown), &buf); err != nil {
		return []string{"(unrenderable: " + err.Error() + ")"}
	}
	var out []string
	for _, text := range textNodes(buf.String()) {
		out = append(out, scan(text)...)
	}
	return out
}

// textNodes splits rendered HTML into its text runs outside pre, code and a,
// each with its character references decoded.
func textNodes(h string) []string {
	var nodes []string
	skip := 0 // depth inside pre, code or a
	for len(h) > 0 {
		lt := strings.IndexByte(h, '<')
		if lt < 0 {
			lt = len(h)
		}
		if lt > 0 && skip == 0 {
			nodes = append(nodes, html.UnescapeString(h[:lt]))
		}
		h = h[lt:]
		if h == "" {
			break
		}
		end := strings.IndexByte(h, '>')
		if strings.HasPrefix(h, "<!--") {
			end = strings.Index(h, "-->") + 2
		}
		if end < 0 {
			end = len(h) - 1
		}
		tag := strings.ToLower(h[1:end])
		closing := strings.HasPrefix(tag, "/")
		name := strings.TrimPrefix(tag, "/")
		if i := strings.IndexAny(name, " \t\n/"); i >= 0 {
			name = name[:i]
		}
		if name == "pre" || name == "code" || name == "a" {
			if closing {
				skip--
			} else {
				skip++
			}
		}
		h = h[end+1:]
	}
	return nodes
}

func isWord(r rune) bool {
	return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
}

func isLoginStart(b byte) bool {
	return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
}

// scan finds "@login" (or a fullwidth at sign) not preceded by a word
// character.
func scan(t string) []string {
	var out []string
	prev := rune(-1)
	for i, r := range t {
		if (r == '@' || r == '\uff20' || r == '\ufe6b') && (prev < 0 || !isWord(prev)) {
			j := i + utf8.RuneLen(r)
			if j < len(t) && isLoginStart(t[j]) {
				k := j
				for k < len(t) && (isLoginStart(t[k]) || t[k] == '-' || t[k] == '/' || t[k] == '_') {
					k++
				}
				out = append(out, t[i:k])
			}
		}
		prev = r
	}
	return out
}
