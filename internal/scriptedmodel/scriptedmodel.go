// Package scriptedmodel is a deterministic stand-in for the Anthropic
// Messages API (POST /v1/messages), used as the model gateway's upstream in
// sandbox mode and in end-to-end tests. It speaks the real wire format: it
// reads the tools it is offered, calls them in a fixed order (Glob and Read
// the changed files, load a skill, grep for TODOs), and submits findings it
// derives from simple rules over the added lines of the diff, in the rule
// families the reviewer's CLAUDE.md and skills switch on (families.go),
// each quoting its line as evidence (one in four slips on purpose). Its token
// usage is computed from the sizes of what it got and said, so costs are
// real numbers. With "stream": true it answers the same message as the
// API's server-sent events.
package scriptedmodel

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/models"
)

// Config holds the test hooks. The zero value is the well-behaved model.
type Config struct {
	// APIKey, when set, must be sent as x-api-key.
	APIKey string
	// InferenceGeo is the workspace's default_inference_geo ("" is
	// "global"): where a request that names no inference_geo runs.
	InferenceGeo string
	// ExtraInputTokens is added to every answer's input_tokens, to drive a
	// run into its cost cap.
	ExtraInputTokens int64
	// Malformed makes the first answer call an unknown tool and give broken
	// tool inputs, and the first submit carry an invalid result.
	Malformed bool
	// NeverSubmit keeps the model searching for ever (for max-turns tests).
	NeverSubmit bool
	// Dawdle keeps the model searching until it is asked for its result
	// (forced tool choice or the instruction in words).
	Dawdle bool
	// Fanout is how many changed files the first turn reads at once (in
	// parallel tool calls); below 6 it is 6.
	Fanout int
	// TextOnly makes the model answer in prose, never calling a tool.
	TextOnly bool
	// Latency delays every answer (for wall-time tests).
	Latency time.Duration
	// HoldStream, when set, holds every streamed answer (stream: true) just
	// before its message_stop event until the channel is closed, so a test
	// can see that the events before it were passed on as they came.
	HoldStream <-chan struct{}
	// Catalog decides which models exist, which are retired, which refuse
	// forced tool choice and their minimum cacheable length; nil means the
	// built-in catalogue.
	Catalog *models.Catalog
	// Now is the clock of lifecycles and the prompt cache; nil means time.Now.
	Now func() time.Time
	// Overloaded answers the first Overloaded requests with 529
	// overloaded_error, with retry-after: OverloadRetryAfter when set.
	Overloaded         int
	OverloadRetryAfter string
	// Speculative adds low-confidence findings that only some review passes
	// report (passes.go), so reviewer.yaml's samples and agree have noise
	// to remove; rule findings stay the same in every pass.
	Speculative bool
	// Thinking opens every answer with a signed thinking block of about
	// ThinkingTokens tokens (200 when 0), as adaptive-thinking models do;
	// its tokens are output tokens and count against max_tokens (stops.go).
	// A thinking block sent back with its signature altered is refused.
	Thinking       bool
	ThinkingTokens int
	// StopAtMaxTokens cuts an answer longer than the request's max_tokens
	// and answers stop_reason "max_tokens", a cut tool call keeping only
	// the input that fits (stops.go). Off by default because many tests
	// send max_tokens: 10 for brevity.
	StopAtMaxTokens bool
	// RefuseAt, when above 0, answers the RefuseAt-th model call of a
	// conversation with stop_reason "refusal" and no content (stops.go).
	RefuseAt int
	// Reword makes the model word each finding differently between passes
	// and runs, move it by a line, vary its severity by a step, and add a
	// planted false finding with a real quote (reword.go); RewordSeed
	// varies the wording between runs of one diff.
	Reword     bool
	RewordSeed int64
	// Seen, when set, is told the system prompt and first user message of
	// every request the model answers (tests: what reached the model).
	Seen func(system, prompt string)
	// TooLong, when set and true for a request's system prompt, answers it
	// 400 invalid_request_error "prompt is too long" (docs "Errors": 400
	// invalid_request_error is an issue with the request; that wording is
	// the API's answer past the context window): a review that fails by
	// itself while others go on (tests pick a reviewer by its rules).
	TooLong func(system string) bool
}

// Handler returns the well-behaved scripted model.
func Handler() http.Handler { return New(Config{}) }

// New returns a scripted model with the given hooks.
func New(cfg Config) http.Handler { return &model{cfg: cfg} }

type model struct {
	cfg       Config
	overloads atomic.Int64
	cache     promptCache
}

// Tool names the script knows (chakshu-action's).
const (
	toolRead        = "Read"
	toolGrep        = "Grep"
	toolGlob        = "Glob"
	toolSkill       = "Skill"
	toolSubmit      = "submit_result"
	toolSubmitReply = "submit_reply"
	maxRequestBytes = 32 << 20
)

func (m *model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/v1/models") {
		m.serveModels(w, r)
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		apiError(w, http.StatusNotFound, "not_found_error", "Not found: "+r.Method+" "+r.URL.Path)
		return
	}
	if m.cfg.APIKey != "" && r.Header.Get("x-api-key") != m.cfg.APIKey {
		apiError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
	if err != nil || len(raw) > maxRequestBytes {
		apiError(w, http.StatusRequestEntityTooLarge, "request_too_large", "request body too large or unreadable")
		return
	}
	var req request
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid JSON body: "+err.Error())
		return
	}
	conv, err := parse(&req)
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	if m.cfg.Seen != nil {
		m.cfg.Seen(conv.system, conv.prompt)
	}
	if m.cfg.TooLong != nil && m.cfg.TooLong(conv.system) {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")
		return
	}
	entry, ok := m.checkModel(req.Model)
	if !ok {
		apiError(w, http.StatusNotFound, "not_found_error", "model: "+req.Model)
		return
	}
	// Models that refuse forced tool use answer 400 (Sonnet 5.5 migration
	// guide: forced tool use returns an error).
	if req.ToolChoice != nil && req.ToolChoice.Type == "tool" && !entry.ForcedToolChoice {
		apiError(w, http.StatusBadRequest, "invalid_request_error",
			"tool_choice: forcing a specific tool is not supported by "+req.Model+"; use auto")
		return
	}
	geo, msg := m.inferenceGeo(req.InferenceGeo, entry)
	if msg != "" {
		apiError(w, http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	pb, promptTokens, err := prefixBlocks(&req, marshal)
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	if m.overloaded(w) {
		return
	}
	if err := m.checkThinking(conv); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	cached := m.cache.lookup(pb, entry.MinCacheTokens, m.now()) // when the request starts
	if m.cfg.Latency > 0 {
		select {
		case <-time.After(m.cfg.Latency):
		case <-r.Context().Done():
			return
		}
	}
	content, stop := m.stop(conv, m.think(conv, m.next(conv)))
	out, _ := json.Marshal(content)
	resp := response{
		ID:         "msg_" + conv.hash("msg"),
		Type:       "message",
		Role:       "assistant",
		Model:      req.Model,
		Content:    content,
		StopReason: stop,
		Usage:      m.usage(cached, promptTokens, out),
	}
	m.cache.commit(cached) // the answer begins: its writes are readable now
	resp.Usage.InferenceGeo = geo
	if stop == "max_tokens" {
		resp.Usage.OutputTokens = int64(req.MaxTokens)
	}
	w.Header().Set("request-id", "req_"+conv.hash("req"))
	if req.Stream {
		writeStream(w, r, resp, m.cfg.HoldStream)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

func apiError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
}

// conversation is what the script needs to know of a request.
type conversation struct {
	req        *request
	system     string
	prompt     string // the first user message's text
	lastUser   string // the last user message's text
	tools      map[string]bool
	called     map[string]int // tool → times called
	calls      []call         // every tool_use so far, in order
	lastErrors map[string]bool
	assistant  int
}

type call struct {
	name  string
	input json.RawMessage
}

// parse checks the request like the real API would and indexes it.
func parse(req *request) (*conversation, error) {
	if req.Model == "" {
		return nil, fmt.Errorf("model: field required")
	}
	if req.MaxTokens <= 0 {
		return nil, fmt.Errorf("max_tokens: must be at least 1")
	}
	if len(req.Messages) == 0 {
		return nil, fmt.Errorf("messages: at least one message is required")
	}
	c := &conversation{req: req, system: systemText(req.System), tools: map[string]bool{}, called: map[string]int{}, lastErrors: map[string]bool{}}
	for _, t := range req.Tools {
		if !toolNameRE.MatchString(t.Name) {
			return nil, fmt.Errorf("tools: name %q does not match ^[a-zA-Z0-9_-]{1,128}$", t.Name)
		}
		if c.tools[t.Name] {
			return nil, fmt.Errorf("tools: tool names must be unique (%s)", t.Name)
		}
		c.tools[t.Name] = true
	}
	if req.ToolChoice != nil && req.ToolChoice.Type == "tool" && !c.tools[req.ToolChoice.Name] {
		return nil, fmt.Errorf("tool_choice: tool %q not found in tools", req.ToolChoice.Name)
	}
	pending := map[string]string{} // tool_use id → name, awaiting a result
	for i, msg := range req.Messages {
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		if msg.Role != want {
			return nil, fmt.Errorf("messages.%d: roles must alternate between user and assistant, starting with user", i)
		}
		bs, err := blocks(msg.Content)
		if err != nil {
			return nil, fmt.Errorf("messages.%d.content: %v", i, err)
		}
		if len(bs) == 0 {
			return nil, fmt.Errorf("messages.%d: content must not be empty", i)
		}
		if msg.Role == "assistant" {
			c.assistant++
			for _, b := range bs {
				if b.Type == "tool_use" {
					pending[b.ID] = b.Name
					c.called[b.Name]++
					c.calls = append(c.calls, call{b.Name, b.Input})
				}
			}
			continue
		}
		if i == 0 {
			c.prompt = text(bs)
		}
		c.lastUser = text(bs)
		errs := map[string]bool{}
		for _, b := range bs {
			if b.Type != "tool_result" {
				continue
			}
			name, ok := pending[b.ToolUseID]
			if !ok {
				return nil, fmt.Errorf("messages.%d: unexpected tool_use_id %q in tool_result blocks", i, b.ToolUseID)
			}
			delete(pending, b.ToolUseID)
			errs[name] = errs[name] || b.IsError
		}
		if len(pending) > 0 {
			return nil, fmt.Errorf("messages.%d: tool_use ids were found without tool_result blocks immediately after", i)
		}
		if i > 0 {
			c.lastErrors = errs
		}
	}
	if len(req.Messages)%2 == 0 {
		return nil, fmt.Errorf("messages: the last message must be from the user")
	}
	return c, nil
}

func (c *conversation) hash(salt string) string {
	h := sha256.New()
	h.Write([]byte(salt))
	for _, m := range c.req.Messages {
		h.Write([]byte(m.Role))
		h.Write(m.Content)
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

func tokens(n int) int64 { return int64(n+3) / 4 }

// usage estimates tokens from bytes (about four per token) and takes the
// cached part of the prompt from the request's cache plan. input_tokens are the
// prompt's tokens neither read from nor written to the cache (docs "Prompt
// caching", Tracking cache performance).
func (m *model) usage(c cachePlan, promptTokens int64, out []byte) usage {
	return usage{
		InputTokens:              max(promptTokens-c.read-c.w5m-c.w1h, 1) + m.cfg.ExtraInputTokens,
		OutputTokens:             tokens(len(out)) + 10,
		CacheReadInputTokens:     c.read,
		CacheCreationInputTokens: c.w5m + c.w1h,
		CacheCreation:            cacheCreation{Ephemeral5m: c.w5m, Ephemeral1h: c.w1h},
	}
}

// inferenceGeo is where a request asking for geo runs, as the API decides
// it (docs "Data residency"): "global" (the default) or "us", else the
// workspace's default; a model before Claude Opus 4.6 (none in the
// catalogue prices US-only inference for it) refuses the parameter with
// 400 and reports no geo. msg is the refusal.
func (m *model) inferenceGeo(geo string, e *models.Entry) (string, string) {
	switch {
	case geo != "" && geo != "global" && geo != models.GeoUS:
		return "", fmt.Sprintf("inference_geo: %q is not one of global, us", geo)
	case e.USOnlyMultiplier == 0 && geo != "":
		return "", "inference_geo is not supported by " + e.ID
	case e.USOnlyMultiplier == 0:
		return "", ""
	}
	return cmp.Or(geo, m.cfg.InferenceGeo, "global"), ""
}

func (c *conversation) toolUse(i int, name string, input any) outItem {
	b, _ := json.Marshal(input)
	return outItem{Type: "tool_use", ID: fmt.Sprintf("toolu_%s_%d", c.hash("tool"), i), Name: name, Input: b}
}

// next decides the answer.
func (m *model) next(c *conversation) []outItem {
	if c.tools[toolSubmitVerdicts] {
		return m.verify(c) // verifier.go
	}
	submit := ""
	switch {
	case c.tools[toolSubmitReply]:
		submit = toolSubmitReply
	case c.tools[toolSubmit]:
		submit = toolSubmit
	}
	forced := c.req.ToolChoice != nil && c.req.ToolChoice.Type == "tool" && c.req.ToolChoice.Name == submit && submit != ""
	// Asked in words (tool_choice auto, for models that refuse forcing), the
	// model does as told, like a real one mostly does.
	forced = forced || (submit != "" && strings.Contains(c.lastUser, "call "+submit+" now"))

	if m.cfg.Malformed && c.assistant == 0 && !forced {
		return []outItem{
			{Type: "text", Text: "Let me start."},
			c.toolUse(0, "Bash", map[string]string{"command": "cat /etc/passwd"}),
			{Type: "tool_use", ID: fmt.Sprintf("toolu_%s_1", c.hash("tool")), Name: toolRead, Input: json.RawMessage(`"{not json"`)},
			c.toolUse(2, toolRead, map[string]any{"file_path": 42}),
			c.toolUse(3, toolRead, map[string]any{"file_path": "../../../../etc/passwd"}),
		}
	}
	if m.cfg.TextOnly {
		return []outItem{{Type: "text", Text: "The code looks fine to me."}}
	}
	if m.cfg.NeverSubmit {
		return []outItem{c.toolUse(c.assistant, toolGrep, map[string]any{"pattern": fmt.Sprintf("TODO|FIXME|x%d", c.assistant)})}
	}
	if submit == "" && isJudgePrompt(c.prompt) {
		return []outItem{{Type: "text", Text: judgeAnswer(c.prompt)}}
	}
	if submit == "" {
		return []outItem{{Type: "text", Text: "I have no way to submit a result."}}
	}
	if m.cfg.Dawdle && !forced {
		return []outItem{c.toolUse(c.assistant, toolGrep, map[string]any{"pattern": fmt.Sprintf("TODO|x%d", c.assistant)})}
	}
	if submit == toolSubmitReply {
		return []outItem{c.toolUse(0, submit, replyFor(c.prompt))}
	}
	if !forced {
		files := between(c.prompt, "<pr_files>", "</pr_files>")
		switch {
		case c.called[toolGlob] == 0 && c.called[toolRead] == 0 && (c.tools[toolGlob] || c.tools[toolRead]):
			out := []outItem{{Type: "text", Text: "I'll look at the repository layout and read the changed files."}}
			if c.tools[toolGlob] {
				out = append(out, c.toolUse(len(out), toolGlob, map[string]string{"pattern": "**/*"}))
			}
			if c.tools[toolRead] {
				for _, f := range files {
					if len(out) > max(6, m.cfg.Fanout) {
						break
					}
					out = append(out, c.toolUse(len(out), toolRead, map[string]string{"file_path": f}))
				}
			}
			return out
		case c.tools[toolSkill] && c.called[toolSkill] == 0 && len(skillNames(c.system)) > 0:
			return []outItem{{Type: "text", Text: "Loading the reviewer's skill."}, c.toolUse(1, toolSkill, map[string]string{"name": skillNames(c.system)[0]})}
		case c.tools[toolGrep] && c.called[toolGrep] == 0:
			out := []outItem{c.toolUse(0, toolGrep, map[string]any{"pattern": `TODO|FIXME`, "output_mode": "content"})}
			if f := modifiedFile(c.prompt); f != "" && c.tools[toolReadBase] {
				out = append(out, c.toolUse(1, toolReadBase, map[string]string{"file_path": f})) // impact first: what it was before
			}
			return out
		}
	}
	res := m.result(c)
	if m.cfg.Malformed && c.called[submit] == 0 {
		bad := map[string]any{"summary": res.Summary, "findings": []map[string]any{{"path": "/etc/passwd", "line": 0, "severity": "critical", "title": "bad"}}}
		return []outItem{c.toolUse(0, submit, bad)}
	}
	return []outItem{{Type: "text", Text: "Submitting the review."}, c.toolUse(1, submit, res)}
}

func (m *model) result(c *conversation) findings.Result {
	fs := wrongEvidence(focus(c.system, review(between1(c.prompt, "<diff>", "</diff>"))))
	if m.cfg.Speculative {
		fs = append(fs, focus(c.system, speculative(c))...)
	}
	if m.cfg.Reword {
		fs = m.rewordAll(c, append(fs, focus(c.system, plantedFalse(between1(c.prompt, "<diff>", "</diff>")))...))
	}
	res := findings.Result{Findings: fs, Checked: findings.Checked{Files: []string{}, Skills: []string{}}}
	if res.Findings == nil {
		res.Findings = []findings.Finding{}
	}
	for _, cl := range c.calls {
		var in struct {
			FilePath string `json:"file_path"`
			Name     string `json:"name"`
		}
		_ = json.Unmarshal(cl.input, &in)
		switch {
		case cl.name == toolRead && in.FilePath != "" && !slices.Contains(res.Checked.Files, in.FilePath):
			res.Checked.Files = append(res.Checked.Files, in.FilePath)
		case cl.name == toolSkill && in.Name != "" && !slices.Contains(res.Checked.Skills, in.Name):
			res.Checked.Skills = append(res.Checked.Skills, in.Name)
		}
	}
	res.Summary = summary(fs, len(res.Checked.Files))
	return res
}

// summary is the review's one-line summary: how many findings, by severity.
func summary(fs []findings.Finding, files int) string {
	if len(fs) == 0 {
		return fmt.Sprintf("Read %d changed files; none of the added lines builds SQL from strings, ignores an error, holds a secret, leaves a TODO or prints debugging output.", files)
	}
	counts := map[findings.Severity]int{}
	for _, f := range fs {
		counts[f.Severity]++
	}
	var parts []string
	for _, s := range findings.Severities {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	noun := "issues"
	if len(fs) == 1 {
		noun = "issue" // "Found 1 issues" read as a typo in every one-finding review (issue 23)
	}
	return fmt.Sprintf("Found %d %s in the added lines (%s).", len(fs), noun, strings.Join(parts, ", "))
}

// replyFor answers a reply run from the thread's latest comment.
func replyFor(prompt string) findings.ReplyResult {
	last := strings.ToLower(latestComment(prompt))
	switch {
	case containsAny(last, "false positive", "not a bug", "wrong", "incorrect", "not an issue"):
		return findings.ReplyResult{Verdict: findings.VerdictWrong, Reply: "Thanks — you're right, this finding does not apply here. I'll drop it."}
	case containsAny(last, "fixed", "done", "addressed", "resolved"):
		return findings.ReplyResult{Verdict: findings.VerdictFixed, Reply: "Thanks for fixing it; the finding is resolved."}
	}
	return findings.ReplyResult{Verdict: findings.VerdictStands, Reply: "I still think this finding stands: the code path described above remains reachable. Happy to look again after a change."}
}

func latestComment(prompt string) string {
	thread := between1(prompt, "<thread>", "</thread>")
	if thread == "" {
		thread = prompt
	}
	if i := strings.LastIndex(thread, "<comment"); i >= 0 {
		rest := thread[i:]
		if j := strings.IndexByte(rest, '>'); j >= 0 {
			rest = rest[j+1:]
		}
		if k := strings.Index(rest, "</comment>"); k >= 0 {
			rest = rest[:k]
		}
		return rest
	}
	paras := strings.Split(strings.TrimSpace(thread), "\n\n")
	return paras[len(paras)-1]
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// between1 returns the text between the first open fence and the next close.
func between1(s, open, close string) string {
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	rest := s[i+len(open):]
	j := strings.Index(rest, close)
	if j < 0 {
		return rest
	}
	return rest[:j]
}

// between returns the non-empty lines inside a fence.
func between(s, open, close string) []string {
	var out []string
	for _, l := range strings.Split(between1(s, open, close), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, strings.TrimPrefix(l, "- "))
		}
	}
	return out
}

// skillNames reads the skill list chakshu-action puts in the system prompt:
// lines "- name: description" inside <skills>…</skills>.
func skillNames(system string) []string {
	var out []string
	for _, l := range strings.Split(between1(system, "<skills>", "</skills>"), "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "- ") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(l, "- "), ":")
		if name = strings.TrimSpace(name); name != "" {
			out = append(out, name)
		}
	}
	return out
}

var toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)
