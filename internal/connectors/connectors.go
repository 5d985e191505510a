// Package connectors runs the tools a reviewer declares (DESIGN §7): they run
// inside Chakshu with credentials stored there, encrypted at rest, and answer
// the runner with size-capped, redacted JSON. Built in: github (read-only
// look-ups in the same installation) and http (GET endpoints declared in
// reviewer.yaml, only to their declared hosts).
package connectors

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/strictjson"
	"github.com/chakshu-dev/chakshu/internal/textcut"
)

// GitHub hands out installation clients; *gh.Apps satisfies it.
type GitHub interface {
	// InstallationFor is a token narrowed to scope (read-only here).
	InstallationFor(id int64, scope gh.Scope) (*gh.Installation, error)
}

var _ GitHub = (*gh.Apps)(nil)

// DefaultMaxOutput caps a tool's answer.
const DefaultMaxOutput = 64 << 10

// Config builds a Registry.
type Config struct {
	DB          *ent.Client
	Log         *slog.Logger
	Credentials *Credentials
	// GitHub serves the github connector; nil disables it.
	GitHub GitHub
	// HTTPTransport carries the http connector's requests; nil means a
	// transport without proxy whose dialer refuses internal addresses after
	// DNS resolution (CheckDialAddr). A transport given here bypasses that check.
	HTTPTransport http.RoundTripper
	// AllowLoopback lets the http connector connect to 127.0.0.0/8 and ::1
	// (tests with a local server); private, link-local and metadata addresses
	// stay refused.
	AllowLoopback bool
	// AllowPlainHTTP lets http endpoints use http:// (tests, sandbox); off, only https:// is called.
	AllowPlainHTTP bool
	// MaxOutputBytes caps an answer; 0 means 64 KiB.
	MaxOutputBytes int
}

// Registry lists and runs connector tools.
type Registry struct{ cfg Config }

// New validates cfg.
func New(cfg Config) (*Registry, error) {
	if cfg.DB == nil {
		return nil, errors.New("connectors: DB is required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.HTTPTransport == nil {
		cfg.HTTPTransport = guardedTransport(cfg.AllowLoopback)
	}
	if cfg.MaxOutputBytes <= 0 {
		cfg.MaxOutputBytes = DefaultMaxOutput
	}
	return &Registry{cfg: cfg}, nil
}

// Scope is who calls a tool: the run's installation, repository and reviewer config.
type Scope struct {
	// InstallationID is the ent id (credentials); GitHubInstallationID is GitHub's.
	InstallationID       int
	GitHubInstallationID int64
	// Repo is the run's repository, owner/name.
	Repo   string
	Config reviewerconfig.Config
}

// ErrNotDeclared means the reviewer does not declare that tool.
var ErrNotDeclared = errors.New("connectors: tool not declared by the reviewer")

// ToolError is a failure the agent may see (a safe sentence).
type ToolError struct{ Msg string }

func (e *ToolError) Error() string { return e.Msg }

func toolErr(format string, a ...any) error { return &ToolError{Msg: fmt.Sprintf(format, a...)} }

// tool is one callable tool.
type tool struct {
	def runnerproto.ToolDef
	run func(ctx context.Context, s Scope, input json.RawMessage) (any, error)
}

func declares(c reviewerconfig.Config, connector string) bool {
	for _, n := range c.Connectors {
		if n == connector {
			return true
		}
	}
	return false
}

// tools returns the tools s's reviewer declares, by name.
func (r *Registry) tools(s Scope) map[string]tool {
	out := map[string]tool{}
	if declares(s.Config, "github") && r.cfg.GitHub != nil {
		for _, t := range r.githubTools() {
			out[t.def.Name] = t
		}
	}
	if declares(s.Config, "http") || len(s.Config.HTTP) > 0 {
		for _, ep := range s.Config.HTTP {
			if t, ok := r.httpTool(ep); ok {
				out[t.def.Name] = t
			}
		}
	}
	return out
}

// Tools are the definitions of the tools s's reviewer declares, sorted by name.
func (r *Registry) Tools(s Scope) []runnerproto.ToolDef {
	ts := r.tools(s)
	out := make([]runnerproto.ToolDef, 0, len(ts))
	for _, t := range ts {
		out = append(out, t.def)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Call runs tool name ("<connector>.<tool>") for s. A tool the reviewer does
// not declare is ErrNotDeclared. Failures the agent should see come back in
// the response's Error; other errors are for the operator.
func (r *Registry) Call(ctx context.Context, s Scope, name string, input json.RawMessage) (runnerproto.ToolResponse, error) {
	t, ok := r.tools(s)[name]
	if !ok {
		return runnerproto.ToolResponse{}, ErrNotDeclared
	}
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage(`{}`)
	}
	v, err := t.run(ctx, s, input)
	if err != nil {
		var te *ToolError
		if errors.As(err, &te) {
			return runnerproto.ToolResponse{Error: redact.String(te.Msg)}, nil
		}
		r.cfg.Log.Warn("connector tool failed", "tool", name, "err", redact.Error(err))
		return runnerproto.ToolResponse{Error: "the tool failed; try another approach"}, nil
	}
	return r.finish(v)
}

// finish redacts every string of v and caps the JSON at MaxOutputBytes.
func (r *Registry) finish(v any) (runnerproto.ToolResponse, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return runnerproto.ToolResponse{}, fmt.Errorf("connectors: encode output: %w", err)
	}
	var generic any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return runnerproto.ToolResponse{}, fmt.Errorf("connectors: decode output: %w", err)
	}
	b, err = json.Marshal(redactValue(generic))
	if err != nil {
		return runnerproto.ToolResponse{}, fmt.Errorf("connectors: encode output: %w", err)
	}
	if len(b) <= r.cfg.MaxOutputBytes {
		return runnerproto.ToolResponse{Output: b}, nil
	}
	// Too large: hand back the start of the JSON text as a string.
	cut := textcut.Bytes(string(b), r.cfg.MaxOutputBytes/2)
	s, _ := json.Marshal(cut)
	for len(s) > r.cfg.MaxOutputBytes {
		cut = textcut.Bytes(cut, len(cut)*3/4)
		s, _ = json.Marshal(cut)
	}
	return runnerproto.ToolResponse{Output: s, Truncated: true}, nil
}

func redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return redact.String(x)
	case []any:
		for i := range x {
			x[i] = redactValue(x[i])
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = redactValue(e)
		}
		return x
	}
	return v
}

// capText truncates s to n bytes and says whether it did.
func capText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	return textcut.Bytes(s, n), true
}

// decodeInput strictly decodes a tool's input into v.
func decodeInput(input json.RawMessage, v any) error {
	if err := strictjson.Decode(input, v); err != nil {
		return toolErr("invalid input: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}
