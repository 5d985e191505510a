package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/strictjson"
	"github.com/chakshu-dev/chakshu/internal/textcut"
)

// Names of the built-in tools.
const (
	NameRead        = "Read"
	NameGrep        = "Grep"
	NameGlob        = "Glob"
	NameSkill       = "Skill"
	NameSubmit      = "submit_result"
	NameSubmitReply = "submit_reply"
)

// Limits on connector calls.
const (
	ConnectorMaxResponse = 1 << 20
	ConnectorMaxOutput   = 64 << 10
)

// Def describes one tool to the model.
type Def struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// Result is the answer to one tool call.
type Result struct {
	// Output is what the model sees.
	Output string
	// IsError marks Output as an error message for the model.
	IsError bool
	// Submitted is the accepted result, parsed, when the submit tool
	// succeeded: the runner passes it on typed and encodes it once, to
	// report it.
	Submitted *Submission
	// Malformed marks a call the model got wrong in form (unknown tool,
	// input that is not valid JSON of the tool's shape), as opposed to a
	// well-formed call that failed.
	Malformed bool
	// Refused marks a submit whose result failed validation.
	Refused bool
}

// Config configures a Set.
type Config struct {
	// FS is the workspace.
	FS *FS
	// Kind is "review" (submit_result) or "reply" (submit_reply).
	Kind string
	// Skills are the reviewer's skills (the Skill tool serves them).
	Skills []runnerproto.Skill
	// Connectors are the reviewer's connector tools, proxied to ToolURL.
	Connectors []runnerproto.ToolDef
	// ToolURL is the job's tool URL with {tool}.
	ToolURL string
	// RunToken authenticates connector calls.
	RunToken string
	// HTTPClient calls connectors; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Diff is the unified diff under review; when set, ReadBase serves the
	// changed files as they were before it (base.go).
	Diff string
	// CallBudget bounds the wall time of one tool call, within the run's
	// own deadline (the context Call is given); 0 means DefaultCallBudget.
	CallBudget time.Duration
}

// DefaultCallBudget is the wall time one tool call may take.
const DefaultCallBudget = 60 * time.Second

// Set is the agent's whole tool box.
type Set struct {
	cfg        Config
	defs       []Def
	connectors map[string]string // API name → connector tool name
	skills     map[string]runnerproto.Skill
	submit     string
	// mu guards what the set records of its calls: the passes of a review
	// in several passes call one set at once (action/runner).
	mu         sync.Mutex
	filesRead  []string
	basesRead  []string // files read at their base version (ReadBase)
	skillsUsed []string
}

var toolNameRE = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// SanitiseName maps a connector tool name ("github.get_file") to the API's
// tool-name charset ([a-zA-Z0-9_-], at most 64 characters).
func SanitiseName(name string) string {
	s := toolNameRE.ReplaceAllString(name, "_")
	if s == "" {
		s = "tool"
	}
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

// New builds the tool set.
func New(cfg Config) (*Set, error) {
	if cfg.FS == nil {
		return nil, errors.New("tools: FS is required")
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	s := &Set{cfg: cfg, connectors: map[string]string{}, skills: map[string]runnerproto.Skill{}}
	s.defs = []Def{
		{NameRead, "Read a file of the pull request's checkout, with line numbers (like cat -n). Paths are relative to the repository root.", json.RawMessage(readSchema)},
		{NameGrep, "Search file contents with a regular expression (RE2 syntax), like ripgrep.", json.RawMessage(grepSchema)},
		{NameGlob, "List files matching a glob pattern, sorted by path.", json.RawMessage(globSchema)},
	}
	if cfg.Diff != "" && cfg.Kind != "reply" {
		s.defs = append(s.defs, Def{NameReadBase, readBaseDescription, json.RawMessage(readBaseSchema)})
	}
	if len(cfg.Skills) > 0 {
		for _, sk := range cfg.Skills {
			s.skills[sk.Name] = sk
		}
		s.defs = append(s.defs, Def{NameSkill, "Load one of the reviewer's skills (listed in the system prompt) by name: returns its SKILL.md.", json.RawMessage(skillSchema)})
	}
	used := map[string]bool{NameRead: true, NameGrep: true, NameGlob: true, NameSkill: true, NameSubmit: true, NameSubmitReply: true, NameSubmitVerdicts: true, NameReadBase: true}
	for _, c := range cfg.Connectors {
		api := SanitiseName(c.Name)
		for i := 2; used[api]; i++ {
			suffix := "_" + strconv.Itoa(i)
			api = SanitiseName(c.Name)[:min(len(SanitiseName(c.Name)), 64-len(suffix))] + suffix
		}
		used[api] = true
		s.connectors[api] = c.Name
		schema := c.InputSchema
		if len(schema) == 0 || !json.Valid(schema) {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		s.defs = append(s.defs, Def{api, c.Description, schema})
	}
	switch cfg.Kind {
	case "", "review":
		s.submit = NameSubmit
		s.defs = append(s.defs, Def{NameSubmit, "Submit the review result. Call it exactly once, when done; it ends the review. If it answers with an error, fix the result and call it again.", json.RawMessage(resultSchema)})
	case "verify":
		s.submit = NameSubmitVerdicts
		s.defs = append(s.defs, Def{NameSubmitVerdicts, "Submit your verdict on every candidate finding. Call it exactly once, when done; it ends the verification.", json.RawMessage(verdictsSchema)})
	case "reply":
		s.submit = NameSubmitReply
		s.defs = append(s.defs, Def{NameSubmitReply, "Submit your reply to the thread. Call it exactly once, when done; it ends the run.", json.RawMessage(replySchema)})
	default:
		return nil, fmt.Errorf("tools: unknown run kind %q", cfg.Kind)
	}
	return s, nil
}

// Defs lists the tools, in a stable order (the prompt cache depends on it).
func (s *Set) Defs() []Def { return s.defs }

// SubmitName is the name of the submit tool.
func (s *Set) SubmitName() string { return s.submit }

// FilesRead lists the files the Read tool returned, in first-read order.
func (s *Set) FilesRead() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.filesRead)
}

// BasesRead lists the files read at their base version with ReadBase.
func (s *Set) BasesRead() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.basesRead)
}

// SkillsUsed lists the skills loaded with the Skill tool.
func (s *Set) SkillsUsed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.skillsUsed)
}

// Call runs one tool. Every failure, including malformed input and unknown
// tools, is an error result for the model, never a Go error.
func (s *Set) Call(ctx context.Context, name string, input json.RawMessage) Result {
	budget := s.cfg.CallBudget
	if budget <= 0 {
		budget = DefaultCallBudget
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	r := s.dispatch(ctx, name, input)
	if ctx.Err() != nil && r.Submitted == nil {
		// Whatever the tool got done is dropped: a partial search would
		// read as "no matches".
		return Result{IsError: true, Output: fmt.Sprintf("%s stopped: the run's time is up or the call took longer than its budget of %s. Narrow the call (a path, a glob, a simpler pattern) or submit the result.", cut(name, 100), budget)}
	}
	return r
}

func (s *Set) dispatch(ctx context.Context, name string, input json.RawMessage) Result {
	switch name {
	case NameRead:
		return call(name, input, func(in ReadInput) (string, error) {
			if err := ctx.Err(); err != nil {
				return "", err
			}
			out, err := s.cfg.FS.Read(in)
			if rel, cerr := CleanRel(in.FilePath); err == nil && cerr == nil {
				s.mu.Lock()
				if !slices.Contains(s.filesRead, rel) {
					s.filesRead = append(s.filesRead, rel)
				}
				s.mu.Unlock()
			}
			return out, err
		})
	case NameGrep:
		return call(name, input, func(in GrepInput) (string, error) { return s.cfg.FS.GrepContext(ctx, in) })
	case NameGlob:
		return call(name, input, func(in GlobInput) (string, error) { return s.cfg.FS.GlobContext(ctx, in) })
	case NameReadBase:
		if s.cfg.Diff == "" || s.cfg.Kind == "reply" {
			break
		}
		return call(name, input, func(in ReadInput) (string, error) {
			out, err := s.readBase(in)
			if rel, cerr := CleanRel(in.FilePath); err == nil && cerr == nil {
				s.mu.Lock()
				if !slices.Contains(s.basesRead, rel) {
					s.basesRead = append(s.basesRead, rel)
				}
				s.mu.Unlock()
			}
			return out, err
		})
	case NameSkill:
		if len(s.skills) == 0 {
			break
		}
		return s.skill(input)
	case s.submit:
		return s.submitResult(input)
	}
	if c, ok := s.connectors[name]; ok {
		return s.connector(ctx, name, c, input)
	}
	return Result{IsError: true, Malformed: true, Output: fmt.Sprintf("There is no tool named %q. The tools are: %s.", cut(name, 100), strings.Join(s.names(), ", "))}
}

// call decodes a built-in tool's input strictly and runs it.
func call[T any](name string, input json.RawMessage, f func(T) (string, error)) Result {
	var in T
	if err := decodeInput(input, &in); err != nil {
		return malformed(name, err)
	}
	out, err := f(in)
	if err != nil {
		return errResult(name, err)
	}
	return Result{Output: out}
}

func (s *Set) names() []string {
	var n []string
	for _, d := range s.defs {
		n = append(n, d.Name)
	}
	return n
}

func malformed(tool string, err error) Result {
	r := errResult(tool, err)
	r.Malformed = true
	return r
}

func errResult(tool string, err error) Result {
	return Result{IsError: true, Output: fmt.Sprintf("%s failed: %v", tool, err)}
}

// decodeInput strictly decodes a tool input object.
func decodeInput(input json.RawMessage, v any) error {
	in := bytes.TrimSpace(input)
	if len(in) == 0 || in[0] != '{' {
		return errors.New("the input must be a JSON object")
	}
	if err := strictjson.Decode(in, v); errors.Is(err, strictjson.ErrTrailing) {
		return errors.New("invalid input: data after the JSON object")
	} else if err != nil {
		return fmt.Errorf("invalid input: %v", err)
	}
	return nil
}

const skillSchema = `{"type":"object","properties":{"name":{"type":"string","description":"The skill's name as listed."}},"required":["name"],"additionalProperties":false}`

func (s *Set) skill(input json.RawMessage) Result {
	var in struct {
		Name string `json:"name"`
	}
	if err := decodeInput(input, &in); err != nil {
		return malformed(NameSkill, err)
	}
	sk, ok := s.skills[in.Name]
	if !ok {
		var names []string
		for n := range s.skills {
			names = append(names, n)
		}
		slices.Sort(names)
		return Result{IsError: true, Output: fmt.Sprintf("No skill named %q. Skills: %s.", cut(in.Name, 100), strings.Join(names, ", "))}
	}
	s.mu.Lock()
	if !slices.Contains(s.skillsUsed, sk.Name) {
		s.skillsUsed = append(s.skillsUsed, sk.Name)
	}
	s.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "Skill %s (.claude/skills/%s/SKILL.md):\n\n%s\n", sk.Name, sk.Name, sk.Content)
	if len(sk.Files) > 0 {
		var files []string
		for p := range sk.Files {
			files = append(files, ".claude/skills/"+sk.Name+"/"+p)
		}
		slices.Sort(files)
		fmt.Fprintf(&b, "\nOther files of this skill (use Read):\n%s\n", strings.Join(files, "\n"))
	}
	return Result{Output: b.String()}
}

// Submission is a result the submit tool accepted, parsed once: exactly
// one of Review (submit_result), Reply (submit_reply) and Verdicts
// (submit_verdicts) is set.
type Submission struct {
	Review   *findings.Result
	Reply    *findings.ReplyResult
	Verdicts *Verdicts
}

// JSON encodes the submission as the runner reports it.
func (s *Submission) JSON() (json.RawMessage, error) {
	var v any
	switch {
	case s.Review != nil:
		v = s.Review
	case s.Reply != nil:
		v = s.Reply
	case s.Verdicts != nil:
		v = s.Verdicts
	default:
		return nil, errors.New("empty submission")
	}
	return json.Marshal(v)
}

func (s *Set) submitResult(input json.RawMessage) Result {
	var err error
	sub := &Submission{}
	switch s.submit {
	case NameSubmitReply:
		sub.Reply, err = findings.ParseReply(input)
	case NameSubmitVerdicts:
		sub.Verdicts, err = ParseVerdicts(input)
	default:
		if sub.Review, err = findings.ParseResult(input); err == nil {
			if err = sub.Review.RequireEvidence(); err == nil {
				err = sub.Review.RequireFromAgent()
			}
		}
	}
	if err != nil {
		return Result{IsError: true, Refused: true, Output: fmt.Sprintf("The result was refused: %v. Fix it and call %s again.", err, s.submit)}
	}
	return Result{Output: "Result accepted.", Submitted: sub}
}

// connector proxies a call to Chakshu, which runs the tool with its stored
// credentials and answers a size-capped, redacted output.
func (s *Set) connector(ctx context.Context, api, name string, input json.RawMessage) Result {
	in := bytes.TrimSpace(input)
	if len(in) == 0 || in[0] != '{' || !json.Valid(in) {
		return malformed(api, errors.New("the input must be a JSON object"))
	}
	body, _ := json.Marshal(runnerproto.ToolRequest{Input: in})
	u := strings.ReplaceAll(s.cfg.ToolURL, "{tool}", url.PathEscape(name))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return errResult(api, errors.New("the connector URL is invalid"))
	}
	req.Header.Set("Authorization", "Bearer "+s.cfg.RunToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.cfg.HTTPClient.Do(req)
	if err != nil {
		return errResult(api, errors.New("could not reach Chakshu to run the connector"))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, ConnectorMaxResponse))
	if err != nil {
		return errResult(api, errors.New("the connector's answer could not be read"))
	}
	if resp.StatusCode != http.StatusOK {
		var e runnerproto.Error
		if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
			return errResult(api, errors.New(cut(e.Error.Message, 500)))
		}
		return errResult(api, fmt.Errorf("Chakshu answered HTTP %d", resp.StatusCode))
	}
	var tr runnerproto.ToolResponse
	if err := json.Unmarshal(raw, &tr); err != nil {
		return errResult(api, errors.New("the connector's answer was not valid"))
	}
	if tr.Error != "" {
		return errResult(api, errors.New(cut(tr.Error, 2000)))
	}
	out := string(tr.Output)
	if len(out) > ConnectorMaxOutput {
		out = textcut.Bytes(out, ConnectorMaxOutput)
		tr.Truncated = true
	}
	if tr.Truncated {
		out += "\n(output truncated)"
	}
	return Result{Output: out}
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return textcut.Bytes(s, n) + "…"
}

const resultSchema = `{"type":"object","properties":{
"summary":{"type":"string","description":"Markdown summary of the review."},
"checked":{"type":"object","properties":{
  "files":{"type":"array","items":{"type":"string"},"description":"Files you read."},
  "skills":{"type":"array","items":{"type":"string"},"description":"Skills you used."}},
  "required":["files","skills"],"additionalProperties":false},
"findings":{"type":"array","items":{"type":"object","properties":{
  "path":{"type":"string","description":"File path relative to the repository root."},
  "line":{"type":"integer","minimum":1,"description":"Line in the new version (side RIGHT) or old version (LEFT)."},
  "start_line":{"type":"integer","minimum":1,"description":"First line of a multi-line finding."},
  "side":{"type":"string","enum":["RIGHT","LEFT"]},
  "severity":{"type":"string","enum":["blocker","major","minor","nit"]},
  "category":{"type":"string","description":"Short category, e.g. security, correctness, performance, style."},
  "title":{"type":"string","description":"One line."},
  "body":{"type":"string","description":"Markdown reasoning."},
  "suggestion":{"type":"string","description":"Replacement text for lines start_line..line, when there is a mechanical fix."},
  "evidence":{"type":"string","minLength":3,"maxLength":2000,"description":"The code the finding rests on, copied exactly from the file (one or a few lines, at most 10), so it can be checked: a finding whose quote is not in the file is dropped."},
  "scenario":{"type":"string","maxLength":2000,"description":"The failing scenario: the input or state, and the wrong outcome it causes in the quoted code."},
  "confidence":{"type":"integer","minimum":0,"maximum":10,"description":"How sure you are, 0 to 10, that this is a real problem a maintainer would fix."}},
  "required":["path","line","severity","category","title","body","evidence","scenario","confidence"],"additionalProperties":false}}},
"required":["summary","checked","findings"],"additionalProperties":false}`

const replySchema = `{"type":"object","properties":{
"reply":{"type":"string","description":"Your short answer in the thread (markdown)."},
"verdict":{"type":"string","enum":["stands","wrong","fixed"],"description":"Whether the finding still stands, was wrong, or is fixed."}},
"required":["reply","verdict"],"additionalProperties":false}`
