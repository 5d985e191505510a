package agent

import (
	_ "embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/chakshu-dev/chakshu/action/tools"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

//go:embed system.tmpl
var systemTemplate string

var systemTmpl = template.Must(template.New("system").Parse(systemTemplate))

// SystemSuffix renders the part of the system prompt chakshu-action adds to
// the job's: the reviewer's rules, the skill list (names and descriptions
// only), that findings quote their evidence (review runs) and how to finish.
func SystemSuffix(rules string, skills []runnerproto.Skill, submit string) (string, error) {
	type skill struct{ Name, Description string }
	var ss []skill
	for _, s := range skills {
		desc := strings.Join(strings.Fields(s.Description), " ")
		ss = append(ss, skill{s.Name, desc})
	}
	var b strings.Builder
	err := systemTmpl.Execute(&b, map[string]any{"Rules": strings.TrimSpace(rules), "Skills": ss, "Submit": submit,
		"Evidence": submit == tools.NameSubmit})
	if err != nil {
		return "", fmt.Errorf("render system prompt: %w", err)
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}

// Instructions the runner adds to the conversation.
const (
	finalTurnText = "This is your last turn: call %s now with your result so far. No other tool can be called."
	costCapText   = "The run has reached its cost cap: call %s now with your result so far. No other tool can be called."
	wallTimeText  = "The run is almost out of time: call %s now with your result so far. No other tool can be called."
	noToolText    = "Text answers are not read. Call a tool, or call %s to finish."
	// passBudgetText ends one pass of several at its share of the cost cap.
	passBudgetText = "This review pass has used its share of the run's cost cap: call %s now with your result so far. No other tool can be called."
)

// PassText tells the model which pass of several it is (Config.Pass); the
// scripted model reads the numbers back (scriptedmodel's passRE).
const PassText = "This is independent review pass %d of %d: review the pull request on your own judgement."

// LensText gives one pass its focus (Config.Lens): the same review with a
// different angle, so passes find different bugs rather than the same ones.
// Findings outside the focus are still reported.
const LensText = "Focus of this pass: %s. Look hardest for problems of this kind; report any other real problem you find too."
