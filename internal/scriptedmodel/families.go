package scriptedmodel

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/findings"
)

// Rule families: each rule of review belongs to one, named like the
// category of the findings it makes.
var families = []string{"security", "correctness", "style"}

// rulesRE finds a family declaration: "Rules:" followed by family names, in
// the reviewer's CLAUDE.md or at the end of a skill's description.
var rulesRE = regexp.MustCompile(`(?i)\brules:[ \t]*([^\n]*)`)

// enabledFamilies reads which rule families the reviewer switches on, from
// the system prompt as chakshu-action renders it: the reviewer's rules
// (CLAUDE.md, inside <reviewer_rules>) and its skill list (name and
// description, inside <skills>). A line "Rules: security, correctness"
// switches those families on; several declarations add up; "Rules: none"
// declares none. A declaration naming no family (prose such as "Rules: be
// kind") does not count. Without any declaration every family is on (nil).
func enabledFamilies(system string) map[string]bool {
	var on map[string]bool
	text := between1(system, "<reviewer_rules>", "</reviewer_rules>") + "\n" + between1(system, "<skills>", "</skills>")
	for _, m := range rulesRE.FindAllStringSubmatch(text, -1) {
		words := strings.FieldsFunc(strings.ToLower(m[1]), func(r rune) bool { return r < 'a' || r > 'z' })
		found := map[string]bool{}
		none := false
		for _, w := range words {
			for _, f := range families {
				if w == f {
					found[f] = true
				}
			}
			none = none || w == "none"
		}
		if len(found) == 0 && !(none && len(words) == 1) {
			continue
		}
		if on == nil {
			on = map[string]bool{}
		}
		for f := range found {
			on[f] = true
		}
	}
	return on
}

// focus keeps the findings of the families the reviewer switches on.
func focus(system string, fs []findings.Finding) []findings.Finding {
	on := enabledFamilies(system)
	if on == nil {
		return fs
	}
	out := []findings.Finding{}
	for _, f := range fs {
		if on[f.Category] {
			out = append(out, f)
		}
	}
	return out
}

// Wrong evidence, on purpose, so the evidence checks are exercised: by a
// fixed hash of a finding's path and title, one finding in four names a line
// 3 below its quote (a miscount; the check moves it back), and one in four
// comes with a second, unfounded finding whose quote misremembers a name
// (not in the file; the check drops it). The others quote their line.
const (
	miscountLines = 3
	misquoteName  = "V2"
)

// wrongEvidence returns fs with the miscounts and misquotes applied.
func wrongEvidence(fs []findings.Finding) []findings.Finding {
	out := make([]findings.Finding, 0, len(fs))
	for _, f := range fs {
		switch evidenceSlip(f) {
		case slipMiscount:
			f.Line += miscountLines
			if f.StartLine > 0 {
				f.StartLine += miscountLines
			}
			out = append(out, f)
		case slipMisquote:
			out = append(out, f)
			if q, ok := misremember(f.Evidence); ok {
				g := f
				g.Title = "Same problem again: " + f.Title
				g.Evidence, g.Suggestion = q, nil
				out = append(out, g)
			}
		default:
			out = append(out, f)
		}
	}
	return out
}

type slip int

const (
	slipNone slip = iota
	slipMiscount
	slipMisquote
)

// evidenceSlip is the fixed hash's decision for f.
func evidenceSlip(f findings.Finding) slip {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\x00%s", f.Path, f.Title)
	switch h.Sum32() % 4 {
	case 1:
		return slipMiscount
	case 3:
		return slipMisquote
	}
	return slipNone
}

var nameRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]{2,}`)

// misremember quotes a line with its first name of three or more letters
// changed (apiKey → apiKeyV2).
func misremember(quote string) (string, bool) {
	loc := nameRE.FindStringIndex(quote)
	if loc == nil {
		return "", false
	}
	return quote[:loc[1]] + misquoteName + quote[loc[1]:], true
}
