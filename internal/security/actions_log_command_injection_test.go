package security

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/action/runner"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

// The Actions runner's command parser, stated independently of Chakshu's
// escaping (actions/runner src/Runner.Worker/ActionCommandManager.cs
// TryProcessCommand and src/Runner.Common/ActionCommand.cs): stdout is split
// into lines at \n, \r and \r\n (.NET StreamReader.ReadLine); a line is a
// command when, after leading whitespace, it starts with "::name" followed
// by " " or "::" (TryParseV2), or when it contains "##[name" followed by
// " " or "]" anywhere (the legacy TryParse, tried when V2 fails). name is one
// of the registered commands, compared case-insensitively.
var registeredCommands = []string{"set-env", "set-output", "save-state", "add-mask", "add-path",
	"add-matcher", "remove-matcher", "debug", "warning", "error", "notice", "group", "endgroup",
	"echo", "stop-commands"}

type logCommand struct{ name, line string }

func parseWorkflowCommands(log string) []logCommand {
	var out []logCommand
	lines := strings.FieldsFunc(log, func(r rune) bool { return r == '\n' || r == '\r' })
	for _, line := range lines {
		low := strings.ToLower(line)
		trimmed := strings.TrimLeft(low, " \t\v\f\u00a0")
		for _, name := range registeredCommands {
			if strings.HasPrefix(trimmed, "::"+name+" ") || strings.HasPrefix(trimmed, "::"+name+"::") {
				out = append(out, logCommand{name, line})
				continue
			}
			for i := 0; ; {
				j := strings.Index(low[i:], "##["+name)
				if j < 0 {
					break
				}
				rest := low[i+j+3+len(name):]
				if strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "]") {
					out = append(out, logCommand{name, line})
					break
				}
				i += j + 3
			}
		}
	}
	return out
}

func TestParseWorkflowCommandsOracle(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"::warning::x", 1},
		{"   ::error file=a::x", 1},
		{"text ::warning::x", 0},
		{"text ##[warning]x", 1},
		{"text ##[warning x=1]x", 1},
		{"text ##[warn]x", 0},
		{"a\r::add-mask::x", 1},
		{"%0A::warning::x", 0},
		{"##%5Bwarning]x", 0},
	} {
		if got := len(parseWorkflowCommands(tc.in)); got != tc.want {
			t.Errorf("%q: %d commands, want %d", tc.in, got, tc.want)
		}
	}
}

// hostileModel answers the first call with text and a tool call carrying
// workflow commands, and the second with a valid result.
func hostileModel(t *testing.T) http.HandlerFunc {
	var mu sync.Mutex
	calls := 0
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		var content []map[string]any
		if n == 1 {
			content = []map[string]any{
				{"type": "text", "text": "Looking.\n::warning title=model::injected by the model\r::error::cr ##[error]legacy from the model"},
				{"type": "tool_use", "id": "toolu_1", "name": "Glob", "input": map[string]any{"pattern": "##[warning]glob\n::error::from args"}},
				{"type": "tool_use", "id": "toolu_2", "name": "Read", "input": map[string]any{"file_path": "nothere\n::error::read ##[warning]x"}},
			}
		} else {
			content = []map[string]any{{"type": "tool_use", "id": "toolu_3", "name": "submit_result", "input": map[string]any{
				"summary": "fine", "checked": map[string]any{"files": []string{}, "skills": []string{}}, "findings": []any{}}}}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
			"content": content, "stop_reason": "tool_use", "usage": map[string]any{"input_tokens": 10, "output_tokens": 10}})
	}
}

// TestActionsLogCommandInjection runs chakshu-action over a checkout whose
// paths carry workflow commands (a directory named with a newline and
// "::warning …", and the legacy "##[error]" form anywhere in a line) with a
// model whose text and tool arguments carry them too, and parses the
// Actions log the way the runner does: the only commands in it are the
// runner's own (add-mask and nothing else on a successful run).
func TestActionsLogCommandInjection(t *testing.T) {
	checkout := t.TempDir()
	for _, dir := range []string{"a\n::warning title=pwned::injected from a path", "b ##[error]legacy from a path", "c\r::error::cr"} {
		p := filepath.Join(checkout, dir)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		// CLAUDE.md is always left out of the workspace, and printed.
		if err := os.WriteFile(filepath.Join(p, "CLAUDE.md"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(checkout, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	var mu sync.Mutex
	var reports []runnerproto.Report
	mux.HandleFunc("GET /oidc", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"value": "oidc-token"})
	})
	mux.HandleFunc("POST "+runnerproto.PathJob, func(w http.ResponseWriter, r *http.Request) {
		base := srv.URL + "/api/runner/v1/runs/7"
		_ = json.NewEncoder(w).Encode(runnerproto.Job{RunID: 7, Kind: "review", Reviewer: "sec ##[warning]reviewer",
			Repository: "acme/widget", PR: runnerproto.PR{Number: 1, HeadSHA: strings.Repeat("a", 40)},
			System: "s", Prompt: "p", Files: []string{"main.go"}, Model: "claude-sonnet-5-5", MaxCostUSD: 1, MaxTurns: 5, WallSeconds: 60,
			RunToken: "chkr_x", ResultURL: base + "/result", ToolURL: base + "/tools/{tool}", ModelURL: base + "/model"})
	})
	mux.Handle("POST /api/runner/v1/runs/7/model/v1/messages", hostileModel(t))
	mux.HandleFunc("POST /api/runner/v1/runs/7/result", func(w http.ResponseWriter, r *http.Request) {
		var rep runnerproto.Report
		_ = json.NewDecoder(r.Body).Decode(&rep)
		mu.Lock()
		reports = append(reports, rep)
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("{}"))
	})

	env := map[string]string{runner.EnvIDTokenURL: srv.URL + "/oidc", runner.EnvIDTokenToken: "req-token"}
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := runner.Run(ctx, runner.Config{
		ServerURL: srv.URL, RunID: 7, CheckoutDir: checkout, WorkDir: t.TempDir(),
		Lookup:   func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Unsetenv: func(k string) error { delete(env, k); return nil },
		Stdout:   &log, CheckHead: func(string, string) error { return nil },
	})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	if len(reports) != 1 || reports[0].Result == nil {
		t.Fatalf("reports: %+v\n%s", reports, log.String())
	}
	// The hostile text reached the log (escaped), so the test saw it.
	if !strings.Contains(log.String(), "injected from a path") || !strings.Contains(log.String(), "injected by the model") {
		t.Fatalf("the hostile names are not in the log at all:\n%s", log.String())
	}
	for _, c := range parseWorkflowCommands(log.String()) {
		if c.name != "add-mask" || !strings.HasPrefix(c.line, "::add-mask::") {
			t.Errorf("workflow command %q injected into the Actions log: %q", c.name, c.line)
		}
	}
}
