package ghsim

import (
	"bytes"
	"html"
	"html/template"
	"regexp"
	"strconv"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// Markdown as GitHub renders a comment, a review or a check run summary:
// GitHub-flavoured Markdown (tables, task lists, strikethrough, autolinks;
// raw HTML passed to the sanitiser), then GitHub's sanitisation allow-list.
//
// The allow-list is GitHub's html-pipeline SanitizationFilter WHITELIST
// (github.com/gjtorikian/html-pipeline lib/html/pipeline/sanitization_filter.rb,
// the filter GitHub ran on user content): those elements, href on a with
// http/https/mailto/relative, src/longdesc on img with http/https/relative,
// cite on blockquote/del/ins/q, the listed global attributes, <script>
// removed with its content. HTML comments are dropped (so Chakshu's hidden
// markers stay hidden). Two things GitHub adds after sanitising are allowed
// back: the disabled checkboxes of task lists and the language class of a
// fenced code block (GitHub's syntax highlighter keys on it).
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithRendererOptions(gmhtml.WithUnsafe()), // raw HTML goes to the sanitiser, as on GitHub
)

var githubPolicy = func() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowElements("h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "br", "b", "i", "strong", "em", "a", "pre", "code", "img", "tt",
		"div", "ins", "del", "sup", "sub", "p", "ol", "ul", "table", "thead", "tbody", "tfoot", "blockquote",
		"dl", "dt", "dd", "kbd", "q", "samp", "var", "hr", "ruby", "rt", "rp", "li", "tr", "td", "th", "s", "strike", "summary", "details")
	p.AllowURLSchemes("http", "https", "mailto")
	p.AllowRelativeURLs(true)
	p.AllowAttrs("href").OnElements("a")
	p.AllowAttrs("src", "longdesc").OnElements("img")
	p.AllowAttrs("itemscope", "itemtype").OnElements("div")
	p.AllowAttrs("cite").OnElements("blockquote", "del", "ins", "q")
	p.AllowAttrs("abbr", "accept", "accept-charset", "accesskey", "action", "align", "alt", "axis", "border", "cellpadding",
		"cellspacing", "char", "charoff", "charset", "checked", "clear", "cols", "colspan", "color", "compact", "coords",
		"datetime", "dir", "disabled", "enctype", "for", "frame", "headers", "height", "hreflang", "hspace", "ismap", "label",
		"lang", "maxlength", "media", "method", "multiple", "name", "nohref", "noshade", "nowrap", "open", "prompt", "readonly",
		"rel", "rev", "rows", "rowspan", "rules", "scope", "selected", "shape", "size", "span", "start", "summary", "tabindex",
		"target", "title", "type", "usemap", "valign", "value", "vspace", "width", "itemprop").Globally()
	// Task list items: <input type="checkbox" disabled checked>.
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").OnElements("input")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^language-[A-Za-z0-9_+#.-]+$`)).OnElements("code")
	return p
}()

// suggestionBlock is a sanitised ```suggestion fence.
var suggestionBlock = regexp.MustCompile(`(?s)<pre><code class="language-suggestion">(.*?)</code></pre>`)

// suggestionTarget is what a suggestion in a review comment replaces: the
// commented lines of the file at the comment's commit.
type suggestionTarget struct {
	start int      // first line number
	lines []string // the lines it replaces
}

// renderMarkdown renders untrusted Markdown as GitHub shows it. target, when
// set, turns each suggestion block into GitHub's "Suggested change" diff
// against the commented lines.
func renderMarkdown(src string, target *suggestionTarget) template.HTML {
	var b bytes.Buffer
	if err := markdown.Convert([]byte(src), &b); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(src) + "</pre>") //nolint:gosec // escaped
	}
	out := githubPolicy.SanitizeBytes(b.Bytes())
	out = suggestionBlock.ReplaceAllFunc(out, func(m []byte) []byte {
		// The fence's text, as the sanitiser left it (escaped), is read back
		// and escaped again by suggestionHTML: nothing of it becomes markup.
		body := html.UnescapeString(string(suggestionBlock.FindSubmatch(m)[1]))
		return []byte(suggestionHTML(strings.TrimSuffix(body, "\n"), target))
	})
	return template.HTML(out) //nolint:gosec // sanitised by the allow-list above
}

// RenderMarkdown is the HTML GitHub shows for a Markdown body (a comment, a
// review, a check run's text): what tests compare instead of the Markdown.
func RenderMarkdown(src string) string { return string(renderMarkdown(src, nil)) }

// suggestionHTML is GitHub's "Suggested change" box: the commented lines
// removed, the suggestion's lines added.
func suggestionHTML(suggested string, target *suggestionTarget) string {
	var b strings.Builder
	b.WriteString(`<div class="suggestion"><div class="suggestion-head">Suggested change</div><table class="diff">`)
	row := func(class, num, sign, text string) {
		b.WriteString(`<tr class="` + class + `"><td class="num">` + num + `</td><td class="code"><span class="sign">` + sign + `</span>` +
			template.HTMLEscapeString(text) + `</td></tr>`)
	}
	if target != nil {
		for i, l := range target.lines {
			row("del", strconv.Itoa(target.start+i), "-", l)
		}
	}
	if suggested != "" {
		for _, l := range strings.Split(suggested, "\n") {
			row("add", "", "+", l)
		}
	}
	b.WriteString(`</table></div>`)
	return b.String()
}

// suggestionTargetOf is the commented lines of c: start_line..line of the
// file at the comment's commit (the original ones once it is outdated).
// Called with s.mu held.
func (s *Sim) suggestionTargetOf(rp *repo, c *reviewComment) *suggestionTarget {
	commitID, line, start := c.commitID, c.line, c.startLine
	if line == 0 {
		commitID, line, start = c.originalCommit, c.originalLine, c.originalStart
	}
	if start == 0 || start > line {
		start = line
	}
	cm := rp.commits[commitID]
	if cm == nil || line <= 0 || c.side == "LEFT" {
		return nil
	}
	lines := strings.Split(cm.files[c.path], "\n")
	if line > len(lines) {
		return nil
	}
	return &suggestionTarget{start: start, lines: lines[start-1 : line]}
}
