package eval

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"text/template"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// The judge's two questions, in Martian's meaning (step3_judge_comments.py's
// judge prompt, step2_extract_comments.py's extraction prompt) and our words.
var (
	//go:embed judge.tmpl
	judgeText string
	//go:embed extract.tmpl
	extractText string
)

// The system prompts of the two questions.
const (
	judgeSystem   = "You judge code review tools against the review comments a benchmark expects. You answer with a JSON object only."
	extractSystem = "You list the problems a code review raises. You answer with a JSON object only."
)

// judgeAttempts is how many times an answer that is not the JSON asked for is
// asked again before the pair counts as an error (the benchmark tries three
// times).
const judgeAttempts = 3

// fenceTag neutralises the prompts' own tags inside untrusted text.
var fenceTag = regexp.MustCompile(`(?i)<(/?)\s*(golden_comment|candidate_issue|review_comments)\b`)

var fence = template.FuncMap{"fence": func(tag, s string) string {
	s = fenceTag.ReplaceAllString(s, "&lt;$1$2")
	return "<" + tag + ">\n" + strings.TrimRight(s, "\n") + "\n</" + tag + ">"
}}

var (
	judgeTmpl   = template.Must(template.New("judge").Funcs(fence).Parse(judgeText))
	extractTmpl = template.Must(template.New("extract").Funcs(fence).Parse(extractText))
)

// JudgePrompt renders the question whether candidate is the golden comment's
// problem. Neither carries a place or a category: the judge compares the
// problems only, as the benchmark's does.
func JudgePrompt(golden, candidate string) (string, error) {
	var b strings.Builder
	err := judgeTmpl.Execute(&b, map[string]string{"Golden": golden, "Candidate": candidate})
	return b.String(), err
}

// ExtractPrompt renders the request to list the problems in a review's
// joined comments.
func ExtractPrompt(comments string) (string, error) {
	var b strings.Builder
	err := extractTmpl.Execute(&b, map[string]string{"Comments": comments})
	return b.String(), err
}

// modelJudge asks a model, through the gateway under a run of its own, for
// verdicts and extractions. Answers are kept, so a question is asked once.
type modelJudge struct {
	w        *world
	runID    int
	model    string
	messages anthropic.MessageService // not anthropic.Client: see internal/gateway.sdkOptions

	mu      sync.Mutex
	answers map[string]string
}

func (w *world) newJudge(ctx context.Context, model string) (*modelJudge, error) {
	k := &Case{Name: "judge", Owner: "eval", Repo: "judge", Number: 1, Title: "judge"}
	rn, tok, err := w.newRun(ctx, k, reviewerconfig.Local{Name: "eval-judge", Config: reviewerconfig.Defaults()}, model, 0, "judge")
	if err != nil {
		return nil, err
	}
	c := anthropic.NewClient(option.WithoutEnvironmentDefaults(), option.WithBaseURL(fmt.Sprintf("%s/runs/%d/model", w.url, rn.ID)),
		option.WithAPIKey(tok), option.WithHeader("x-api-key", tok), option.WithHTTPClient(w.http), option.WithMaxRetries(4))
	return &modelJudge{w: w, runID: rn.ID, model: model, messages: c.Messages, answers: map[string]string{}}, nil
}

// ask sends one question and decodes the JSON answer into v, asking again
// when the answer is not that JSON.
func (j *modelJudge) ask(ctx context.Context, system, prompt string, maxTokens int64, v any) error {
	j.mu.Lock()
	text, ok := j.answers[prompt]
	j.mu.Unlock()
	if ok {
		return decodeAnswer(text, v)
	}
	var err error
	for range judgeAttempts {
		var msg *anthropic.Message
		msg, err = j.messages.New(ctx, anthropic.MessageNewParams{
			// No temperature: the benchmark asks at 0, but the Messages API
			// refuses sampling parameters from version 2026-10-21, the one
			// this SDK sends (and generation-5 models refuse them on any
			// version), so the judge's determinism rests on its prompt and
			// the answers kept below.
			Model: anthropic.Model(j.model), MaxTokens: maxTokens,
			System:   []anthropic.TextBlockParam{{Text: system}},
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
		})
		if err != nil {
			return fmt.Errorf("ask the judge: %w", err)
		}
		var b strings.Builder
		for _, c := range msg.Content {
			b.WriteString(c.Text)
		}
		if err = decodeAnswer(b.String(), v); err == nil {
			j.mu.Lock()
			j.answers[prompt] = b.String()
			j.mu.Unlock()
			return nil
		}
	}
	return err
}

// decodeAnswer reads a JSON object from a model's answer, inside a Markdown
// code fence or not.
func decodeAnswer(s string, v any) error {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(strings.TrimPrefix(s, "```"), "json")
		s, _, _ = strings.Cut(s, "```")
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(s)), v); err != nil {
		return errors.New("the answer is not the JSON object asked for")
	}
	return nil
}

// verdict is the judge's answer on one pair (a VerdictJudge).
func (j *modelJudge) verdict(ctx context.Context, golden, candidate string) (Verdict, error) {
	prompt, err := JudgePrompt(golden, candidate)
	if err != nil {
		return Verdict{}, err
	}
	var v struct {
		Reasoning  string   `json:"reasoning"`
		Match      *bool    `json:"match"`
		Confidence *float64 `json:"confidence"`
	}
	if err := j.ask(ctx, judgeSystem, prompt, 512, &v); err != nil {
		return Verdict{}, err
	}
	if v.Match == nil {
		return Verdict{}, errors.New("the verdict has no match")
	}
	out := Verdict{Reasoning: v.Reasoning, Match: *v.Match}
	if v.Confidence != nil {
		out.Confidence = *v.Confidence
	}
	return out, nil
}

// extract lists the issues of a review's joined comments (an Extractor).
func (j *modelJudge) extract(ctx context.Context, comments string) ([]string, error) {
	prompt, err := ExtractPrompt(comments)
	if err != nil {
		return nil, err
	}
	var v struct {
		Issues *[]string `json:"issues"`
	}
	if err := j.ask(ctx, extractSystem, prompt, 4096, &v); err != nil {
		return nil, err
	}
	if v.Issues == nil {
		return nil, errors.New("the answer has no issues list")
	}
	return *v.Issues, nil
}

func (j *modelJudge) cost(ctx context.Context) float64 { return j.w.costOf(ctx, j.runID) }
