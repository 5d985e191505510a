package scriptedmodel

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/findings"
)

// The scripted model as the verifier (chakshu-action's verification step,
// action/runner/verify.go): offered submit_verdicts, it reads the file of
// the candidates once, then judges each candidate against the truth it can
// derive on its own, the rule findings of the diff in its prompt
// (rules.go).
//
// The marker of a planted false finding is therefore derived, not written
// into the finding: a candidate is true when a rule finds a problem of the
// same category on the same path within verifyLineSlack lines of it (a real
// verifier looks around a moved finding) and the candidate quotes that
// rule's line (when it quotes anything), and false otherwise. Whatever
// passes.go plants (speculative findings, plausible findings with real
// quotes and wrong claims) is refuted so long as it does not quote a rule's
// line with a rule's category; reworded titles, shifted lines and a
// severity one step off are confirmed, because the title and severity are
// not compared.
// Confirmed candidates get confidence 9 and the rule's failing scenario;
// refuted ones confidence 1 and the reason.

const (
	toolSubmitVerdicts = "submit_verdicts"
	toolReadBase       = "ReadBase"
	verifyLineSlack    = 3
)

// candidateRE reads a candidate's first line as the verifier prompt lists
// it: "[n] path:line (severity, category): title".
var candidateRE = regexp.MustCompile(`(?m)^\[(\d+)\] (\S+):(\d+) \(([a-z]+), ([^)]*)\): `)

type candidate struct {
	n        int
	path     string
	line     int
	category string
	quote    string // the candidate's "Quoted code:" lines, "" if none
}

func candidates(prompt string) []candidate {
	var out []candidate
	text := between1(prompt, "<candidates>", "</candidates>")
	idx := candidateRE.FindAllStringSubmatchIndex(text, -1)
	for k, m := range idx {
		n, _ := strconv.Atoi(text[m[2]:m[3]])
		line, _ := strconv.Atoi(text[m[6]:m[7]])
		end := len(text)
		if k+1 < len(idx) {
			end = idx[k+1][0]
		}
		_, quote, _ := strings.Cut(text[m[1]:end], "\nQuoted code:\n")
		out = append(out, candidate{n: n, path: text[m[4]:m[5]], line: line, category: text[m[10]:m[11]], quote: quote})
	}
	return out
}

// verdictFor judges one candidate against the rule findings.
func verifierVerdict(c candidate, truth []findings.Finding) map[string]any {
	for _, f := range truth {
		if f.Path == c.path && f.Category == c.category && abs(f.Line-c.line) <= verifyLineSlack &&
			(c.quote == "" || strings.Contains(c.quote, strings.TrimSpace(f.Evidence))) {
			return map[string]any{"candidate": c.n, "verdict": "confirmed", "confidence": 9,
				"scenario": f.Scenario, "quote": f.Evidence}
		}
	}
	return map[string]any{"candidate": c.n, "verdict": "refuted", "confidence": 1,
		"scenario": fmt.Sprintf("Read %s around line %d: the code there does not do what the finding claims, and no input makes it fail that way.", c.path, c.line)}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// verify answers a verification conversation: read the candidates' file
// first (unless asked for the verdicts at once), then submit.
func (m *model) verify(c *conversation) []outItem {
	cands := candidates(c.prompt)
	forced := (c.req.ToolChoice != nil && c.req.ToolChoice.Type == "tool") || strings.Contains(c.lastUser, "call "+toolSubmitVerdicts+" now")
	if !forced && c.called[toolRead] == 0 && c.tools[toolRead] && len(cands) > 0 {
		return []outItem{{Type: "text", Text: "I'll read the file and try to refute each candidate."},
			c.toolUse(1, toolRead, map[string]string{"file_path": cands[0].path})}
	}
	truth := review(between1(c.prompt, "<diff>", "</diff>"))
	verdicts := []map[string]any{}
	for _, cd := range cands {
		verdicts = append(verdicts, verifierVerdict(cd, truth))
	}
	return []outItem{{Type: "text", Text: "Submitting the verdicts."}, c.toolUse(1, toolSubmitVerdicts, map[string]any{"verdicts": verdicts})}
}

// modifiedFile is the first file the prompt's diff changes that existed
// before it ("" if none): the one a reviewer compares with its base.
func modifiedFile(prompt string) string {
	for _, l := range strings.Split(between1(prompt, "<diff>", "</diff>"), "\n") {
		if p, ok := strings.CutPrefix(l, "--- a/"); ok {
			return strings.TrimSpace(p)
		}
	}
	return ""
}
