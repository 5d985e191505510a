package scriptedmodel

import (
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/findings"
)

// passRE reads the pass number chakshu-action puts in the first user turn of
// a review in several passes (action/agent's PassText).
var passRE = regexp.MustCompile(`independent review pass (\d+) of (\d+)`)

// pass is the conversation's pass number, 1 when it does not say.
func (c *conversation) pass() int {
	if m := passRE.FindStringSubmatch(c.prompt); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n >= 1 {
			return n
		}
	}
	return 1
}

// The hunches of Config.Speculative: lines a hasty reviewer has doubts about
// without a rule that proves a bug.
var (
	loopRE     = regexp.MustCompile(`^\s*for\b`)
	inputRE    = regexp.MustCompile(`\.Query\(\)|\bfetch\(|\bopen\(|\brequest\.(args|form)\b|\binput\(`)
	funcNameRE = regexp.MustCompile(`^\s*(?:export\s+)?(?:async\s+)?(?:func(?:\s*\([^)]*\))?|def|function)\s+([A-Za-z_][A-Za-z0-9_]*)`)
)

// speculative are the low-confidence findings of Config.Speculative for the
// conversation's pass: hunches on added lines that carry no rule finding
// (of any reviewer), each the same finding (title, path, line) in every pass it
// appears in. Which passes that is comes from a hash of the finding: most
// appear in one pass of every three (pass p when hash+p is a multiple of 3),
// so a single pass has about a third of them and two passes of three never
// agree on one; one in five is stubborn and appears in every pass, a
// systematic mistake no vote removes. Rule findings appear in every pass.
func speculative(c *conversation) []findings.Finding {
	diff := between1(c.prompt, "<diff>", "</diff>")
	ruled := map[string]bool{}
	for _, f := range review(diff) {
		ruled[f.Path+"\x00"+strconv.Itoa(f.Line)] = true
	}
	pass := c.pass()
	out := []findings.Finding{}
	for _, l := range addedLines(diff) {
		if ruled[l.Path+"\x00"+strconv.Itoa(l.Line)] {
			continue
		}
		var f *findings.Finding
		switch {
		case loopRE.MatchString(l.Text):
			x := finding(l, findings.Minor, "correctness", "Possible off-by-one in this loop",
				"The loop's bounds may skip the last element or run one past it; worth a second look.", nil)
			f = &x
		case inputRE.MatchString(l.Text):
			x := finding(l, findings.Minor, "security", "Input may need validation: `"+snippet(strings.TrimSpace(l.Text))+"`",
				"A value from outside is used here; consider validating it before use.", nil)
			f = &x
		case funcNameRE.MatchString(l.Text):
			name := funcNameRE.FindStringSubmatch(l.Text)[1]
			x := finding(l, findings.Nit, "style", "Name `"+name+"` could be clearer",
				"A more descriptive name would say what this does.", nil)
			f = &x
		}
		if f != nil && inPass(f, pass) {
			out = append(out, *f)
		}
	}
	return out
}

// inPass says whether the hunch f comes up in the given pass.
func inPass(f *findings.Finding, pass int) bool {
	h := fnv.New32a()
	h.Write([]byte(f.ID()))
	h.Write([]byte(strconv.Itoa(f.Line)))
	v := h.Sum32()
	if v%5 == 0 {
		return true // stubborn: every pass
	}
	return (v/5+uint32(pass))%3 == 0
}
