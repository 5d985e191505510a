// Package agent runs the read-only review agent: a loop over the Anthropic
// Messages API (through Chakshu's model gateway, authenticated with the run
// token) with the tools of action/tools, bounded by the job's cost cap, turn
// limit and wall time.
package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/chakshu-dev/chakshu/action/internal/ghlog"
	"github.com/chakshu-dev/chakshu/action/tools"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/textcut"
)

// Failure reasons: short safe sentences for the run, the check and the log.
const (
	ReasonCostCap       = "cost cap reached"
	ReasonMaxTurns      = "max turns reached without a result"
	ReasonWallTime      = "wall time reached without a result"
	ReasonGateway       = "the model gateway failed"
	ReasonMalformed     = "the model's output was malformed too often"
	ReasonInvalidResult = "the model did not produce a valid result"
	// ReasonRefusal: the model answered stop_reason "refusal" (docs "Stop
	// reasons and fallback"): it declined to go on, and asking the same
	// conversation again is not the documented remedy.
	ReasonRefusal = "the model refused to review this change (stop_reason: refusal)"
	// ReasonTruncated: answers kept stopping at max_tokens inside a tool
	// call even with the room the model allows.
	ReasonTruncated = "the model's answer was cut off at max_tokens too often"
)

// CodeCostCap is the error code the model gateway answers (HTTP 429, the
// runnerproto.Error shape) once a run has spent its cap.
const CodeCostCap = "cost_cap_reached"

// HeaderFinal flags the one request the gateway lets through after the cap,
// in which the agent is told to submit at once.
const HeaderFinal = "X-Chakshu-Final"

// Defaults for limits the job leaves at zero.
const (
	DefaultMaxTurns     = 40
	DefaultWall         = 20 * time.Minute
	DefaultMaxTokens    = 8192
	DefaultMaxMalformed = 5
	DefaultMaxRefusals  = 3
	// DefaultMaxTruncated bounds answers cut off at max_tokens inside a tool
	// call; each is asked again with twice the room.
	DefaultMaxTruncated = 3
)

// Config configures one agent run.
type Config struct {
	// Job is the job from Chakshu.
	Job *runnerproto.Job
	// Tools is the tool set over the workspace.
	Tools *tools.Set
	// Log is the Actions log; every tool call is printed to it.
	Log io.Writer
	// HTTPClient reaches the model gateway; nil means http.DefaultClient.
	HTTPClient *http.Client
	// MaxTokens per model answer (default 8192).
	MaxTokens int64
	// MaxMalformed bounds malformed model output (default 5).
	MaxMalformed int
	// MaxRefusals bounds refused submissions (default 3).
	MaxRefusals int
	// MaxRetries is the SDK's own retry count (default 0: the agent's
	// retrier follows the server's advice up to RetryHorizon instead).
	MaxRetries *int
	// RetryHorizon bounds how long one model request is retried after 429,
	// 529 and 5xx answers; 0 means the job's retry_seconds (the server's
	// CHAKSHU_MODEL_RETRY_HORIZON), else DefaultRetryHorizon (2 minutes).
	RetryHorizon time.Duration
	// CostBudgetUSD, when above 0, is this conversation's share of the run's
	// cost cap (one pass of several): once the running estimate (EstimateCost)
	// reaches it the model is asked for its result at once, and an answer
	// after that without one ends the pass with ReasonCostCap, as at the
	// gateway's cap. The gateway's cap on the whole run still holds.
	CostBudgetUSD float64
	// Pass and Passes number one pass of several (1-based). With Passes
	// above 1 the first user turn says which pass it is (PassText), so the
	// passes are separate conversations rather than byte-identical ones.
	Pass, Passes int
	// Lens, when set, is the focus of this pass (the job's Lenses, chosen
	// by the runner per pass): the first user turn says it (LensText).
	Lens string
}

// Usage counts tokens as the gateway reported them.
type Usage struct {
	Input, Output, CacheWrite, CacheRead int64
}

// Outcome is what a run produced.
type Outcome struct {
	// Result is the accepted result, parsed once by the submit tool and
	// passed on typed; nil on failure.
	Result *tools.Submission
	// Failure says why there is no result.
	Failure *runnerproto.Failure
	// Turns is the number of model calls made.
	Turns     int
	ToolCalls int
	Usage     Usage
	// CostUSD is the runner's estimate; the gateway meters the real cost.
	CostUSD float64
}

// Run runs the agent until it submits a result or hits a limit.
func Run(ctx context.Context, cfg Config) *Outcome {
	a, err := newRun(cfg)
	if err != nil {
		return &Outcome{Failure: &runnerproto.Failure{Reason: ReasonGateway, Detail: redact.Error(err)}}
	}
	return a.loop(ctx)
}

type run struct {
	cfg Config
	job *runnerproto.Job
	// api is the SDK's Messages service alone: a field of type
	// anthropic.Client would keep every Beta service's methods in each
	// binary (see internal/gateway.sdkOptions).
	api      anthropic.MessageService
	log      io.Writer
	out      *Outcome
	system   []anthropic.TextBlockParam
	tools    []anthropic.ToolUnionParam
	messages []anthropic.MessageParam
	submit   string
	maxTurns int
	wall     time.Duration
	marks    []int // messages holding the rolling cache breakpoints, oldest first
	// forced says the model accepts tool_choice {type: tool}; models that
	// answer it with 400 (Sonnet 5.5 migration guide) are asked for their
	// result with tool_choice auto and an instruction, one turn earlier.
	forced  bool
	retrier *retrier
}

func newRun(cfg Config) (*run, error) {
	job := cfg.Job
	if job == nil || cfg.Tools == nil {
		return nil, errors.New("agent: job and tools are required")
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.MaxMalformed == 0 {
		cfg.MaxMalformed = DefaultMaxMalformed
	}
	if cfg.MaxRefusals == 0 {
		cfg.MaxRefusals = DefaultMaxRefusals
	}
	if cfg.RetryHorizon <= 0 && job.RetrySeconds > 0 {
		cfg.RetryHorizon = time.Duration(job.RetrySeconds) * time.Second
	}
	retries := 0
	if cfg.MaxRetries != nil {
		retries = *cfg.MaxRetries
	}
	r := &run{cfg: cfg, job: job, log: cfg.Log, out: &Outcome{}, submit: cfg.Tools.SubmitName(),
		forced: forcedToolChoice(job), retrier: newRetrier(cfg.RetryHorizon)}
	r.maxTurns = job.MaxTurns
	if r.maxTurns <= 0 {
		r.maxTurns = DefaultMaxTurns
	}
	r.wall = time.Duration(job.WallSeconds) * time.Second
	if r.wall <= 0 {
		r.wall = DefaultWall
	}
	r.api = anthropic.NewClient(
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(job.ModelURL),
		option.WithAPIKey(job.RunToken), // sent as Authorization: Bearer by this SDK version
		option.WithHeader("x-api-key", job.RunToken),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(retries),
		option.WithMiddleware(r.retrier.middleware, noRetryAtCap),
	).Messages
	suffix, err := SystemSuffix(job.ClaudeMD, job.Skills, r.submit)
	if err != nil {
		return nil, err
	}
	// The stable prefix (tools, then system) carries cache breakpoints.
	r.system = []anthropic.TextBlockParam{{Text: job.System}, {Text: suffix}}
	if strings.TrimSpace(job.System) == "" {
		r.system = r.system[1:]
	}
	r.system[len(r.system)-1].CacheControl = anthropic.NewCacheControlEphemeralParam()
	for _, d := range cfg.Tools.Defs() {
		tp, err := toolParam(d)
		if err != nil {
			return nil, err
		}
		r.tools = append(r.tools, anthropic.ToolUnionParam{OfTool: tp})
	}
	if n := len(r.tools); n > 0 {
		r.tools[n-1].OfTool.CacheControl = anthropic.NewCacheControlEphemeralParam()
	}
	first := []anthropic.ContentBlockParamUnion{anthropic.NewTextBlock(job.Prompt)}
	if cfg.Passes > 1 {
		first = append(first, anthropic.NewTextBlock(fmt.Sprintf(PassText, cfg.Pass, cfg.Passes)))
	}
	if lens := strings.TrimSpace(cfg.Lens); lens != "" {
		first = append(first, anthropic.NewTextBlock(fmt.Sprintf(LensText, lens)))
	}
	r.messages = []anthropic.MessageParam{anthropic.NewUserMessage(first...)}
	return r, nil
}

func toolParam(d tools.Def) (*anthropic.ToolParam, error) {
	var schema map[string]any
	if err := json.Unmarshal(d.InputSchema, &schema); err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", d.Name, err)
	}
	in := anthropic.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
	if req, ok := schema["required"].([]any); ok {
		for _, x := range req {
			if s, ok := x.(string); ok {
				in.Required = append(in.Required, s)
			}
		}
	}
	for k, v := range schema {
		if k != "properties" && k != "required" && k != "type" {
			in.ExtraFields[k] = v
		}
	}
	tp := &anthropic.ToolParam{Name: d.Name, InputSchema: in}
	if d.Description != "" {
		tp.Description = anthropic.String(d.Description)
	}
	return tp, nil
}

func (r *run) fail(reason string, detail error) *Outcome {
	r.out.Failure = &runnerproto.Failure{Reason: reason}
	if detail != nil {
		r.out.Failure.Detail = redact.Error(detail)
	}
	fmt.Fprintf(r.log, "✗ stopped: %s\n", ghlog.Escape(reason))
	return r.out
}

// loop is the conversation. Every exit returns r.out.
func (r *run) loop(parent context.Context) *Outcome {
	start := time.Now()
	ctx, cancel := context.WithTimeout(parent, r.wall)
	defer cancel()
	softDeadline := start.Add(r.wall * 85 / 100)

	final := ""         // why the model was told to submit at once, if it was
	costCap := false    // the gateway refused a request at the cap
	overBudget := false // the estimate reached the pass's CostBudgetUSD
	malformed, refusals, truncated := 0, 0, 0
	maxTokens := r.cfg.MaxTokens
	for {
		// A request repeated for room (truncated) is not a new turn of the
		// conversation: it does not use up the turn limit.
		if r.out.Turns-truncated >= r.maxTurns {
			return r.fail(ReasonMaxTurns, nil)
		}
		if final == "" {
			lead := 1 // turns left when the model is told to submit
			if !r.forced {
				lead = 2 // without forced tool choice it gets a second chance
			}
			switch {
			case r.out.Turns >= r.maxTurns-lead:
				final = finalTurnText
			case time.Now().After(softDeadline):
				final = wallTimeText
			}
			if final != "" {
				r.appendText(fmt.Sprintf(final, r.submit))
			}
		}
		if !overBudget && !costCap && r.cfg.CostBudgetUSD > 0 && r.out.CostUSD >= r.cfg.CostBudgetUSD {
			overBudget = true
			if final == "" {
				final = passBudgetText
				r.appendText(fmt.Sprintf(passBudgetText, r.submit))
			}
			fmt.Fprintf(r.log, "! this pass's share of the cost cap ($%.4f) reached after %d model calls; asking for the result at once\n", r.cfg.CostBudgetUSD, r.out.Turns)
		}
		params := anthropic.MessageNewParams{
			Model:     anthropic.Model(r.job.Model),
			MaxTokens: maxTokens,
			System:    r.system,
			Tools:     r.tools,
			Messages:  r.markCache(),
		}
		if final != "" && r.forced {
			params.ToolChoice = anthropic.ToolChoiceUnionParam{OfTool: &anthropic.ToolChoiceToolParam{Name: r.submit}}
		} // else tool_choice stays auto: the instruction in the user turn asks for the submit

		var opts []option.RequestOption
		if costCap {
			opts = append(opts, option.WithHeader(HeaderFinal, "1"))
		}
		r.out.Turns++
		msg, err := r.api.New(ctx, params, opts...)
		if err != nil {
			switch {
			case ctx.Err() != nil && parent.Err() == nil:
				return r.fail(ReasonWallTime, err)
			case isCostCap(err) && !costCap && r.out.Turns < r.maxTurns:
				costCap = true
				if final == "" {
					final = costCapText
					r.appendText(fmt.Sprintf(costCapText, r.submit))
				}
				fmt.Fprintf(r.log, "! cost cap reached after %d model calls; asking for the result at once\n", r.out.Turns)
				continue
			case isCostCap(err):
				return r.fail(ReasonCostCap, err)
			case isTransient(err):
				return r.fail(ReasonOverloaded, err)
			default:
				return r.fail(ReasonGateway, err)
			}
		}
		r.account(msg.Usage)
		switch msg.StopReason {
		case anthropic.StopReasonRefusal:
			return r.fail(ReasonRefusal, fmt.Errorf("stop_reason refusal on model call %d", r.out.Turns))
		case anthropic.StopReasonMaxTokens:
			// The answer's last block is incomplete: a tool call (often the
			// submit, the longest answer) whose input is a fragment, or
			// thinking that used up the room (max_tokens bounds thinking
			// plus the answer). Running a cut call would act on a fragment;
			// the answer is dropped and asked for again with room to finish
			// (docs "Stop reasons and fallback": raise max_tokens), up to
			// the model's output limit.
			truncated++
			next := min(maxTokens*2, r.maxOutput())
			if truncated > DefaultMaxTruncated || next <= maxTokens {
				return r.fail(ReasonTruncated, fmt.Errorf("%d answers stopped at max_tokens %d (last block %s)", truncated, maxTokens, lastBlock(msg)))
			}
			fmt.Fprintf(r.log, "! the model's answer stopped at max_tokens (%d) in a %s block; asking again with max_tokens %d\n", maxTokens, lastBlock(msg), next)
			maxTokens = next
			continue
		}
		r.messages = append(r.messages, msg.ToParam())
		var results []anthropic.ContentBlockParamUnion
		for _, b := range msg.Content {
			switch b.Type {
			case "text":
				if t := strings.TrimSpace(b.Text); t != "" {
					fmt.Fprintf(r.log, "  model: %s\n", oneLine(redact.String(t), 300))
				}
			case "tool_use":
				r.out.ToolCalls++
				res := r.cfg.Tools.Call(ctx, b.Name, b.Input)
				r.logCall(b.Name, b.Input, res)
				if res.Submitted != nil {
					r.out.Result = res.Submitted
					fmt.Fprintf(r.log, "✓ result submitted after %d model calls and %d tool calls (est. $%.4f)\n", r.out.Turns, r.out.ToolCalls, r.out.CostUSD)
					return r.out
				}
				if res.Malformed {
					malformed++
				}
				if res.Refused {
					refusals++
				}
				results = append(results, anthropic.NewToolResultBlock(b.ID, res.Output, res.IsError))
			}
		}
		switch {
		case refusals > r.cfg.MaxRefusals:
			return r.fail(ReasonInvalidResult, fmt.Errorf("%d submissions refused", refusals))
		case malformed > r.cfg.MaxMalformed:
			return r.fail(ReasonMalformed, fmt.Errorf("%d malformed tool calls", malformed))
		case costCap:
			// The one request allowed past the cap did not submit.
			return r.fail(ReasonCostCap, errors.New("no result after the cost cap"))
		case overBudget:
			return r.fail(ReasonCostCap, errors.New("no result after the pass's share of the cost cap"))
		}
		if len(results) == 0 {
			malformed++
			if malformed > r.cfg.MaxMalformed {
				return r.fail(ReasonMalformed, fmt.Errorf("answer without a tool call (stop reason %s)", msg.StopReason))
			}
			r.messages = append(r.messages, anthropic.NewUserMessage(anthropic.NewTextBlock(fmt.Sprintf(noToolText, r.submit))))
			continue
		}
		r.messages = append(r.messages, anthropic.NewUserMessage(results...))
		final = "" // a new user turn: the limits are checked again for it
	}
}

// appendText adds an instruction to the pending user message.
func (r *run) appendText(t string) {
	last := &r.messages[len(r.messages)-1]
	if last.OfUser == nil {
		r.messages = append(r.messages, anthropic.NewUserMessage(anthropic.NewTextBlock(t)))
		return
	}
	last.OfUser.Content = append(last.OfUser.Content, anthropic.NewTextBlock(t))
}

// rollingMarks is how many user turns carry a cache breakpoint. With the
// breakpoints on the last tool and the system prompt that is 4, the API's
// limit (docs "Prompt caching": up to 4 cache breakpoints).
const rollingMarks = 2

// markCache places the rolling cache breakpoints (docs "Prompt caching",
// Continuing a multi-turn conversation): on the last block of the newest user
// message, so the next turn reads this one's prefix from cache, and on the
// previous turn's, whose cache entry this request reads. The API looks for
// an earlier entry only about 20 blocks back from a breakpoint; a turn of
// many parallel tool calls adds more blocks than that, and the previous
// turn's breakpoint keeps its entry in reach ("When to use multiple
// breakpoints"). Tools and system carry their own breakpoints, so they are
// read across runs whatever the conversation does.
func (r *run) markCache() []anthropic.MessageParam {
	last := len(r.messages) - 1
	if n := len(r.marks); n == 0 || r.marks[n-1] != last {
		r.marks = append(r.marks, last)
	}
	for len(r.marks) > rollingMarks {
		setCache(&r.messages[r.marks[0]], false)
		r.marks = r.marks[1:]
	}
	for _, i := range r.marks {
		setCache(&r.messages[i], true)
	}
	return r.messages
}

// setCache puts the breakpoint on m's last block (on) or none (off): a block
// appended to a marked message moves its breakpoint rather than adding one.
func setCache(m *anthropic.MessageParam, on bool) {
	if m.OfUser == nil {
		return
	}
	for i := range m.OfUser.Content {
		cc := anthropic.CacheControlEphemeralParam{}
		if on && i == len(m.OfUser.Content)-1 {
			cc = anthropic.NewCacheControlEphemeralParam()
		}
		b := &m.OfUser.Content[i]
		switch {
		case b.OfText != nil:
			b.OfText.CacheControl = cc
		case b.OfToolResult != nil:
			b.OfToolResult.CacheControl = cc
		}
	}
}

// noRetryAtCap stops the SDK from retrying a cost-cap refusal (a 429 it
// would otherwise treat as a rate limit): asking again cannot help.
func noRetryAtCap(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if err != nil || resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusPaymentRequired {
		return resp, err
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr == nil && bytes.Contains(body, []byte(`"`+CodeCostCap+`"`)) {
		resp.Header.Set("x-should-retry", "false")
	}
	return resp, nil
}

func isCostCap(err error) bool {
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		return false
	}
	var e runnerproto.Error
	if json.Unmarshal([]byte(apiErr.RawJSON()), &e) == nil && e.Error.Code == CodeCostCap {
		return true
	}
	return strings.Contains(apiErr.RawJSON(), `"`+CodeCostCap+`"`)
}

// isTransient says err is a 429 (not the cost cap), 529 or 5xx answer the
// retrier gave up on at its horizon.
func isTransient(err error) bool {
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		return false
	}
	c := apiErr.StatusCode
	return c == http.StatusTooManyRequests || c >= 500
}

// forcedToolChoice says whether the job's model accepts a forced tool
// choice: the job says so (from the server's catalogue), else the built-in
// catalogue; a model neither knows is asked without forcing, which works on
// every model.
func forcedToolChoice(job *runnerproto.Job) bool {
	if job.ForcedToolChoice != nil {
		return *job.ForcedToolChoice
	}
	if e, err := models.Builtin().Lookup(job.Model); err == nil {
		return e.ForcedToolChoice
	}
	return false
}

// account adds one answer's usage and its cost: each request is priced on
// its own, because a price tier (Haiku 5.5 above 100k prompt tokens) is
// chosen by one request's prompt length, not by a conversation's total
// (REALITY.md; docs "Pricing", long context).
func (r *run) account(u anthropic.Usage) {
	req := Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheWrite: u.CacheCreationInputTokens, CacheRead: u.CacheReadInputTokens}
	r.out.Usage.Input += req.Input
	r.out.Usage.Output += req.Output
	r.out.Usage.CacheWrite += req.CacheWrite
	r.out.Usage.CacheRead += req.CacheRead
	r.out.CostUSD += EstimateCost(r.job.Model, req)
}

// lastBlock is the type of the answer's last block, for the log.
func lastBlock(msg *anthropic.Message) string {
	if n := len(msg.Content); n > 0 {
		return msg.Content[n-1].Type
	}
	return "empty"
}

// maxOutput is the most max_tokens may be raised to: the model's output
// limit from the catalogue, else four times the configured max_tokens.
func (r *run) maxOutput() int64 {
	if e, err := models.Builtin().Lookup(r.job.Model); err == nil && e.MaxOutput > 0 {
		return e.MaxOutput
	}
	return 4 * r.cfg.MaxTokens
}

func (r *run) logCall(name string, input json.RawMessage, res tools.Result) {
	status := "ok"
	switch {
	case res.Submitted != nil:
		status = "accepted"
	case res.IsError:
		status = "error: " + oneLine(res.Output, 160)
	}
	args := oneLine(redact.String(string(input)), 300)
	if name == r.submit && len(input) > 300 {
		args = fmt.Sprintf("(%d bytes of result JSON)", len(input))
	}
	fmt.Fprintf(r.log, "→ [%d/%d] %s %s — %d bytes, %s · est. $%.4f\n",
		r.out.Turns, r.maxTurns, oneLine(name, 80), args, len(res.Output), status, r.out.CostUSD)
}

// oneLine is s on one line, cut to about n bytes and escaped for the Actions
// log (model text and tool arguments are untrusted: issue 19 item 11).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = textcut.Bytes(s, n) + "…"
	}
	return ghlog.Escape(s)
}

// EstimateCost estimates the cost in USD of one request's usage on model
// from the built-in catalogue (all cache writes at the 5-minute rate, which
// is what the agent asks for), at the price tier of that request's prompt
// length. A conversation's cost is the sum over its requests: priced on
// the summed usage, a long run would cross a tier no request crossed. The
// gateway's meter is the authority, this is only the running estimate
// printed in the log. An unknown model estimates 0.
func EstimateCost(model string, u Usage) float64 {
	e, err := models.Builtin().Lookup(model)
	if err != nil {
		return 0
	}
	return e.Cost(models.Usage{InputTokens: u.Input, OutputTokens: u.Output,
		CacheCreationInputTokens: u.CacheWrite, CacheReadInputTokens: u.CacheRead})
}
