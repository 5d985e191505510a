package scriptedmodel

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/findings"
)

// addedLine is one line a diff adds, with its number in the new file.
type addedLine struct {
	Path string
	Line int
	Text string
}

var hunkRE = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// addedLines parses a unified diff and returns the lines it adds.
func addedLines(diff string) []addedLine {
	var out []addedLine
	file := ""
	newLine, oldLeft, newLeft := 0, 0, 0
	for _, l := range strings.Split(diff, "\n") {
		l = strings.TrimSuffix(l, "\r")
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(l, "+"):
				out = append(out, addedLine{file, newLine, l[1:]})
				newLine++
				newLeft--
				continue
			case strings.HasPrefix(l, "-"):
				oldLeft--
				continue
			case strings.HasPrefix(l, " ") || l == "":
				newLine++
				oldLeft--
				newLeft--
				continue
			case strings.HasPrefix(l, `\`):
				continue
			}
		}
		switch {
		case strings.HasPrefix(l, "diff --git "):
			file, oldLeft, newLeft = "", 0, 0
		case strings.HasPrefix(l, "+++ "):
			p := strings.TrimSpace(strings.TrimPrefix(l, "+++ "))
			if i := strings.IndexByte(p, '\t'); i >= 0 {
				p = p[:i]
			}
			if p == "/dev/null" {
				file = ""
			} else {
				file = strings.TrimPrefix(p, "b/")
			}
		case strings.HasPrefix(l, "@@ "):
			m := hunkRE.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			oldLeft, newLeft = count(m[2]), count(m[4])
			newLine, _ = strconv.Atoi(m[3])
		}
	}
	return out
}

func count(s string) int {
	if s == "" {
		return 1
	}
	n, _ := strconv.Atoi(s)
	return n
}

var (
	awsKeyRE     = regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`)
	passwordRE   = regexp.MustCompile(`(?i)\b(password|passwd|pwd|secret|api_?key|token)\b(\s*:?=\s*|\s*:\s*|\s*=\s*)(["'])[^"']{4,}["']`)
	skKeyRE      = regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`)
	sqlRE        = regexp.MustCompile(`(?i)\b(SELECT|INSERT|UPDATE|DELETE)\b`)
	concatRE     = regexp.MustCompile(`"\s*\+|\+\s*"|'\s*\+|\+\s*'|fmt\.Sprintf|\bf"|\bf'|\$\{|\.format\(|%\s*\(`)
	ignoredErrRE = regexp.MustCompile(`^(\s*)_\s*(?:,\s*_\s*)?=\s*(\S.*)$`)
	emptyIfErrRE = regexp.MustCompile(`if\s+err\s*!=\s*nil\s*\{\s*\}`)
	openIfErrRE  = regexp.MustCompile(`if\s+err\s*!=\s*nil\s*\{\s*$`)
	todoRE       = regexp.MustCompile(`\b(TODO|FIXME)\b:?\s*(.*)`)
	debugRE      = regexp.MustCompile(`\bconsole\.log\(|\bprint\(`)
)

// review applies the rules to the diff's added lines.
func review(diff string) []findings.Finding {
	lines := addedLines(diff)
	var out []findings.Finding
	seen := map[string]int{}
	add := func(f findings.Finding) {
		key := f.Path + "\x00" + findings.NormaliseTitle(f.Title)
		seen[key]++
		if n := seen[key]; n > 1 {
			f.Title += fmt.Sprintf(" (%d)", n)
		}
		out = append(out, f)
	}
	for i, l := range lines {
		t := l.Text
		trim := strings.TrimSpace(t)
		switch {
		case awsKeyRE.MatchString(t):
			add(ruleFinding(l, findings.Blocker, "security", "Hard-coded AWS access key",
				"An AWS access key id is committed in the source. Anyone who can read the repository can use it; rotate the key and load it from the environment or a secret store.", nil,
				"Anyone who can read the repository calls AWS with this key until it is rotated."))
		case skKeyRE.MatchString(t):
			add(ruleFinding(l, findings.Blocker, "security", "Hard-coded API key",
				"An API key (`sk-…`) is committed in the source. Rotate it and read it from the environment or a secret store.", nil,
				"Anyone who can read the repository calls the API with this key and is billed or served as the project."))
		case passwordRE.MatchString(t):
			m := passwordRE.FindStringSubmatch(t)
			name := strings.ToLower(m[1])
			add(ruleFinding(l, findings.Blocker, "security", "Hard-coded credential: "+name,
				"A credential is written into the code as a string literal. It ends up in every clone and build log; read it from the environment or a secret store instead.",
				envSuggestion(l.Path, t, m), "Anyone with read access to the repository or a build log reads the credential and uses it."))
		}
		if sqlRE.MatchString(t) && concatRE.MatchString(t) {
			add(ruleFinding(l, findings.Major, "security", "SQL built from strings: `"+snippet(trim)+"`",
				"The SQL statement is assembled from strings, so a value containing quotes changes the query (SQL injection). Pass the values as query parameters (`?` / `$1` placeholders) instead.", nil,
				"A value containing a quote, such as `x' OR '1'='1`, reaches this line and changes what the query selects or writes."))
		}
		if m := ignoredErrRE.FindStringSubmatch(t); m != nil && strings.Contains(m[2], "(") {
			add(ruleFinding(l, findings.Major, "correctness", "Error ignored: `"+snippet(trim)+"`",
				"The error returned here is discarded, so a failure goes unnoticed and the code carries on with a bad state. Handle or return it.",
				ignoredSuggestion(l.Path, m), "The call fails (disk full, connection lost); its error is dropped and the caller goes on as if it had succeeded."))
		}
		if emptyIfErrRE.MatchString(t) || (openIfErrRE.MatchString(t) && i+1 < len(lines) && lines[i+1].Path == l.Path &&
			lines[i+1].Line == l.Line+1 && strings.TrimSpace(lines[i+1].Text) == "}") {
			add(ruleFinding(l, findings.Major, "correctness", "Error checked but not handled",
				"`if err != nil {}` swallows the error: nothing is returned, logged or retried.", nil,
				"The call fails; the empty branch runs and the function goes on with a zero value as if it had succeeded."))
		}
		if m := todoRE.FindStringSubmatch(t); m != nil {
			add(ruleFinding(l, findings.Nit, "style", "Unresolved "+m[1]+": "+snippet(strings.TrimSpace(m[2])),
				"A "+m[1]+" is added with this change. Track it in an issue or resolve it before merging.", nil,
				"The change merges with the "+m[1]+" open; nothing tracks it and the unfinished case ships."))
		}
		if debugRE.MatchString(t) && !strings.HasPrefix(trim, "//") && !strings.HasPrefix(trim, "#") {
			empty := ""
			add(ruleFinding(l, findings.Minor, "style", "Debug output left in: `"+snippet(trim)+"`",
				"This looks like debugging output. Remove it or use the project's logger.", &empty,
				"Every call of this code prints to standard output in production, around the project's logger."))
		}
	}
	return out
}

func finding(l addedLine, sev findings.Severity, cat, title, body string, suggestion *string) findings.Finding {
	return findings.Finding{Path: l.Path, Line: l.Line, Side: "RIGHT", Severity: sev, Category: cat,
		Title: title, Body: body, Suggestion: suggestion, Evidence: quotable(l.Text)}
}

// ruleFinding is a rule's finding with its failing scenario, as the review
// prompt asks; the scripted model is as sure of a rule as its severity says.
func ruleFinding(l addedLine, sev findings.Severity, cat, title, body string, suggestion *string, scenario string) findings.Finding {
	f := finding(l, sev, cat, title, body, suggestion)
	f.Scenario = scenario
	f.Confidence = map[findings.Severity]int{findings.Blocker: 9, findings.Major: 8, findings.Minor: 6, findings.Nit: 5}[sev]
	return f
}

// quotable is a line as a model can quote it as evidence: without NUL
// bytes, which a finding's evidence may not hold (a fuzzed diff had one).
func quotable(line string) string {
	return strings.ReplaceAll(line, "\x00", "")
}

// snippet is a short, title-safe excerpt of a line.
func snippet(s string) string {
	s = strings.NewReplacer("`", "'", "\t", " ", "\r", "", "\n", " ").Replace(s)
	if len(s) > 48 {
		r := []rune(s)
		if len(r) > 45 {
			s = string(r[:45]) + "…"
		}
	}
	if s == "" {
		s = "(empty)"
	}
	return s
}

func envSuggestion(p, line string, m []string) *string {
	env := strings.ToUpper(m[1])
	var repl string
	switch path.Ext(p) {
	case ".go":
		repl = `os.Getenv("` + env + `")`
	case ".ts", ".tsx", ".js", ".jsx", ".mjs":
		repl = `process.env.` + env
	case ".py":
		repl = `os.environ["` + env + `"]`
	default:
		return nil
	}
	lit := passwordRE.FindStringSubmatchIndex(line)
	// Replace only the quoted literal (the last part of the match).
	q := m[3]
	start := strings.Index(line[lit[0]:], q) + lit[0]
	s := line[:start] + repl + line[lit[1]:]
	return &s
}

func ignoredSuggestion(p string, m []string) *string {
	if path.Ext(p) != ".go" || strings.Contains(m[0], ",") {
		return nil
	}
	indent, call := m[1], strings.TrimSpace(m[2])
	s := indent + "if err := " + call + "; err != nil {\n" + indent + "\treturn err\n" + indent + "}"
	return &s
}
