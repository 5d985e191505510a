package eval

import (
	"context"
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"text/template"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/chakshu-dev/chakshu/internal/reviewers"
)

//go:embed judge.tmpl
var judgeText string

// judgeSystem tells the judge model what it is for.
const judgeSystem = "You compare code review findings with the review comments a benchmark expects. You answer with one word."

// fenceTag neutralises the judge prompt's own tags inside untrusted text.
var fenceTag = regexp.MustCompile(`(?i)<(/?)\s*(finding|expected_comment)\b`)

var judgeTmpl = template.Must(template.New("judge").Funcs(template.FuncMap{"fence": func(tag, s string) string {
	s = fenceTag.ReplaceAllString(s, "&lt;$1$2")
	return "<" + tag + ">\n" + strings.TrimRight(s, "\n") + "\n</" + tag + ">"
}}).Parse(judgeText))

// JudgePrompt renders the question the judge model is asked.
func JudgePrompt(f Finding, e Expected) (string, error) {
	var b strings.Builder
	fd := fmt.Sprintf("%s:%d (%s, %s) %s\n\n%s", f.Path, f.Line, f.Severity, f.Category, f.Title, f.Body)
	ed := e.Comment
	if e.Path != "" {
		ed = fmt.Sprintf("%s:%d (%s, %s) %s", e.Path, e.Line, e.Severity, e.Category, e.Comment)
	}
	err := judgeTmpl.Execute(&b, map[string]string{"Finding": fd, "Expected": ed})
	return b.String(), err
}

// modelJudge asks a model, through the gateway under a run of its own, whether a
// finding and an expected comment are the same problem. Answers are kept, so
// a pair is asked once.
type modelJudge struct {
	w        *world
	runID    int
	model    string
	messages anthropic.MessageService // not anthropic.Client: see internal/gateway.sdkOptions

	mu      sync.Mutex
	answers map[string]bool
}

func (w *world) newJudge(ctx context.Context, model string) (*modelJudge, error) {
	k := &Case{Name: "judge", Owner: "eval", Repo: "judge", Number: 1, Title: "judge"}
	rn, tok, err := w.newRun(ctx, k, reviewers.Local{Name: "eval-judge", Config: reviewers.Defaults()}, model, 0, "judge")
	if err != nil {
		return nil, err
	}
	c := anthropic.NewClient(option.WithoutEnvironmentDefaults(), option.WithBaseURL(fmt.Sprintf("%s/runs/%d/model", w.url, rn.ID)),
		option.WithAPIKey(tok), option.WithHeader("x-api-key", tok), option.WithHTTPClient(w.http), option.WithMaxRetries(4))
	return &modelJudge{w: w, runID: rn.ID, model: model, messages: c.Messages, answers: map[string]bool{}}, nil
}

func (j *modelJudge) ask(ctx context.Context, f Finding, e Expected) (bool, error) {
	prompt, err := JudgePrompt(f, e)
	if err != nil {
		return false, err
	}
	j.mu.Lock()
	ans, ok := j.answers[prompt]
	j.mu.Unlock()
	if ok {
		return ans, nil
	}
	msg, err := j.messages.New(ctx, anthropic.MessageNewParams{
		Model: anthropic.Model(j.model), MaxTokens: 16,
		System:   []anthropic.TextBlockParam{{Text: judgeSystem}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
	})
	if err != nil {
		return false, fmt.Errorf("ask the judge: %w", err)
	}
	var text strings.Builder
	for _, b := range msg.Content {
		text.WriteString(b.Text)
	}
	ans = parseVerdict(text.String())
	j.mu.Lock()
	j.answers[prompt] = ans
	j.mu.Unlock()
	return ans, nil
}

// parseVerdict reads the judge's answer: SAME (any case, maybe with
// punctuation) is a match; anything else is not.
func parseVerdict(s string) bool {
	w := strings.Fields(strings.ToUpper(s))
	return len(w) > 0 && strings.Trim(w[0], ".*:!\"'`") == "SAME"
}

func (j *modelJudge) cost(ctx context.Context) float64 { return j.w.costOf(ctx, j.runID) }
