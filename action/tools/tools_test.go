package tools

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/internal/findings"

	"github.com/chakshu-dev/chakshu/action/internal/hostile"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	hostile.WriteTree(t, dir, files)
	return dir
}

func openFS(t testing.TB, files map[string]string) *FS {
	t.Helper()
	fsys, err := OpenFS(tree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys
}

var fixture = map[string]string{
	"main.go":          "package main\n\nfunc main() {\n\t// TODO: wire\n\tprintln(\"hi\")\n}\n",
	"pkg/a/a.go":       "package a\n\nvar X = 1 // todo lower\n",
	"pkg/a/a_test.go":  "package a\n// TODO test\n",
	"web/app.ts":       "console.log('x') // TODO\n",
	"bin/blob.bin":     "\x00\x01\x02TODO",
	"docs/readme.md":   "# Title\nline two\n",
	"empty.txt":        "",
	"passwd":           "->/etc/passwd",
	"up":               "->..",
	"inside":           "->pkg/a/a.go",
	"loop":             "->.",
	"pkg/b/dangling":   "->nowhere",
	"pkg/b/escape.txt": "->../../../../../../etc/hostname",
}

func TestResolve(t *testing.T) {
	fsys := openFS(t, fixture)
	cases := []struct {
		name, in, rel string
		bad           bool
	}{
		{"plain", "main.go", "main.go", false},
		{"dot slash", "./pkg/a/a.go", "pkg/a/a.go", false},
		{"root", ".", ".", false},
		{"empty is root", "", ".", false},
		{"symlink inside", "inside", "inside", false},
		{"dotdot", "../x", "", true},
		{"dotdot inside", "pkg/../main.go", "", true},
		{"backslash dotdot", `pkg\..\..\x`, "", true},
		{"absolute", "/etc/passwd", "", true},
		{"proc", "/proc/self/environ", "", true},
		{"home", "~/.ssh/id_rsa", "", true},
		{"nul", "main.go\x00", "", true},
		{"symlink to etc", "passwd", "", true},
		{"symlink to parent", "up/x", "", true},
		{"symlink escape in subdir", "pkg/b/escape.txt", "", true},
		{"missing", "nope.go", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rel, abs, err := fsys.Resolve(c.in)
			if c.bad {
				if err == nil {
					t.Fatalf("Resolve(%q) = %q, %q; want an error", c.in, rel, abs)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", c.in, err)
			}
			if rel != c.rel || !strings.HasPrefix(abs, fsys.Dir()) {
				t.Fatalf("Resolve(%q) = %q, %q", c.in, rel, abs)
			}
		})
	}
}

func TestRead(t *testing.T) {
	fsys := openFS(t, fixture)
	cases := []struct {
		name string
		in   ReadInput
		want string // substring
		bad  bool
	}{
		{"numbered", ReadInput{FilePath: "main.go"}, "     1\tpackage main\n     2\t\n     3\tfunc main() {\n", false},
		{"offset limit", ReadInput{FilePath: "main.go", Offset: 4, Limit: 1}, "     4\t\t// TODO: wire\n\n(more lines follow; call Read with offset 5 to continue)", false},
		{"through symlink inside", ReadInput{FilePath: "inside"}, "     1\tpackage a\n", false},
		{"empty", ReadInput{FilePath: "empty.txt"}, "is empty", false},
		{"past end", ReadInput{FilePath: "docs/readme.md", Offset: 10}, "past the end", false},
		{"binary", ReadInput{FilePath: "bin/blob.bin"}, "binary file", true},
		{"directory", ReadInput{FilePath: "pkg"}, "is a directory", true},
		{"etc passwd", ReadInput{FilePath: "/etc/passwd"}, "absolute paths are not allowed", true},
		{"symlink passwd", ReadInput{FilePath: "passwd"}, "outside", true},
		{"traversal", ReadInput{FilePath: "../../../etc/passwd"}, "not allowed", true},
		{"negative", ReadInput{FilePath: "main.go", Offset: -1}, "negative", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := fsys.Read(c.in)
			got := out
			if err != nil {
				got = err.Error()
			}
			if (err != nil) != c.bad || !strings.Contains(got, c.want) {
				t.Fatalf("Read(%+v) = %q, %v; want %q (error %v)", c.in, out, err, c.want, c.bad)
			}
			if strings.Contains(got, "root:") {
				t.Fatal("read /etc/passwd")
			}
		})
	}
}

func TestReadCapsLongFiles(t *testing.T) {
	long := strings.Repeat("x", 5000) + "\n" + strings.Repeat("line\n", 3000)
	fsys := openFS(t, map[string]string{"big.txt": long})
	out, err := fsys.Read(ReadInput{FilePath: "big.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "[line cut]") || !strings.Contains(out, "offset 2001") || strings.Count(out, "\n") > ReadDefaultLimit+3 {
		t.Fatalf("caps not applied: %d lines, tail %q", strings.Count(out, "\n"), out[len(out)-100:])
	}
}

func TestGrep(t *testing.T) {
	fsys := openFS(t, fixture)
	cases := []struct {
		name string
		in   GrepInput
		want string
	}{
		{"files", GrepInput{Pattern: "TODO"}, "main.go\npkg/a/a_test.go\nweb/app.ts\n(3 files matched)\n"},
		{"case insensitive", GrepInput{Pattern: "todo", CaseInsensitive: true, Glob: "*.go"}, "main.go\npkg/a/a.go\npkg/a/a_test.go\n(3 files matched)\n"},
		{"content", GrepInput{Pattern: `TODO: \w+`, OutputMode: ModeContent}, "main.go:4:\t// TODO: wire\n(1 lines)\n"},
		{"context", GrepInput{Pattern: "wire", OutputMode: ModeContent, Context: 1}, "main.go-3-func main() {\nmain.go:4:\t// TODO: wire\nmain.go-5-\tprintln(\"hi\")\n(3 lines)\n"},
		{"count", GrepInput{Pattern: "package", OutputMode: ModeCount}, "main.go:1\npkg/a/a.go:1\npkg/a/a_test.go:1\n(3 matches in 3 files)\n"},
		{"glob with slash", GrepInput{Pattern: "TODO", Glob: "pkg/**/*_test.go"}, "pkg/a/a_test.go\n(1 files matched)\n"},
		{"path file", GrepInput{Pattern: "TODO", Path: "web/app.ts", OutputMode: ModeContent}, "web/app.ts:1:console.log('x') // TODO\n(1 lines)\n"},
		{"path dir", GrepInput{Pattern: "package", Path: "pkg"}, "pkg/a/a.go\npkg/a/a_test.go\n(2 files matched)\n"},
		{"no literal regexp", GrepInput{Pattern: `^\s+\w+\(`, OutputMode: ModeContent}, "main.go:5:\tprintln(\"hi\")\n(1 lines)\n"},
		{"head limit", GrepInput{Pattern: "TODO", HeadLimit: 1}, "main.go\n(3 files matched; showing the first 1"},
		{"no match", GrepInput{Pattern: "zzz"}, "No matches found.\n"},
		{"binary skipped", GrepInput{Pattern: `\x01\x02TODO`}, "No matches found.\n"},
		{"bad regexp", GrepInput{Pattern: "("}, "pattern:"},
		{"bad mode", GrepInput{Pattern: "x", OutputMode: "lines"}, "output_mode"},
		{"escape path", GrepInput{Pattern: "root", Path: "../"}, "not allowed"},
		{"escape symlink", GrepInput{Pattern: "root", Path: "passwd"}, "outside"},
		{"no cross-line match", GrepInput{Pattern: `wire\s+println`, OutputMode: ModeContent}, "No matches found.\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := fsys.Grep(c.in)
			got := out
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, c.want) {
				t.Fatalf("Grep(%+v):\n%s\nwant it to contain:\n%s", c.in, got, c.want)
			}
		})
	}
}

func TestRequiredLiteral(t *testing.T) {
	cases := map[string]string{
		"TODO":             "TODO",
		"(?m)foo.*barbaz":  "barbaz",
		"(?mi)todo":        "",
		`a+|b`:             "",
		`(hello)+ world`:   " world",
		`\bfunc\s+\w+\(`:   "func",
		`x{2,}yy`:          "yy",
		`[ab]`:             "",
		`(?m)^import "os"`: "import \"os\"",
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			if got := string(requiredLiteral(in)); got != want {
				t.Fatalf("requiredLiteral(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestGlob(t *testing.T) {
	fsys := openFS(t, fixture)
	cases := []struct {
		name string
		in   GlobInput
		want string
	}{
		{"go files", GlobInput{Pattern: "**/*.go"}, "main.go\npkg/a/a.go\npkg/a/a_test.go\n(3 files)\n"},
		{"alternatives", GlobInput{Pattern: "**/*.{ts,md}"}, "docs/readme.md\nweb/app.ts\n(2 files)\n"},
		{"in path", GlobInput{Pattern: "*.go", Path: "pkg/a"}, "pkg/a/a.go\npkg/a/a_test.go\n(2 files)\n"},
		{"symlinks inside listed, outside not", GlobInput{Pattern: "*"}, "empty.txt\ninside\nmain.go\n(3 files)\n"},
		{"none", GlobInput{Pattern: "**/*.rs"}, "No files matched.\n"},
		{"escape", GlobInput{Pattern: "../*"}, "not allowed"},
		{"absolute", GlobInput{Pattern: "/etc/*"}, "not allowed"},
		{"escape path", GlobInput{Pattern: "*", Path: "up"}, "outside"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := fsys.Glob(c.in)
			got := out
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, c.want) {
				t.Fatalf("Glob(%+v):\n%s\nwant:\n%s", c.in, got, c.want)
			}
		})
	}
}

func TestSetCall(t *testing.T) {
	var got runnerproto.ToolRequest
	var auth, path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, path = r.Header.Get("Authorization"), r.URL.EscapedPath()
		_ = json.NewDecoder(r.Body).Decode(&got)
		if strings.Contains(path, "broken") {
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte(`{"error":{"code":"connector_failed","message":"the upstream answered 500"}}`))
			return
		}
		_ = json.NewEncoder(w).Encode(runnerproto.ToolResponse{Output: json.RawMessage(`{"content":"hello"}`)})
	}))
	defer srv.Close()
	fsys := openFS(t, fixture)
	set, err := New(Config{FS: fsys, Skills: []runnerproto.Skill{{Name: "sql", Description: "SQL checks", Content: "# SQL\nLook for injection.", Files: map[string]string{"ref.md": "x"}}},
		Connectors: []runnerproto.ToolDef{{Name: "github.get_file", Description: "get a file", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Name: "github.broken"}, {Name: "Read"}},
		ToolURL:    srv.URL + "/api/runner/v1/runs/7/tools/{tool}", RunToken: "chkr_test", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range set.Defs() {
		names = append(names, d.Name)
		if !json.Valid(d.InputSchema) {
			t.Errorf("%s: invalid schema", d.Name)
		}
	}
	if diff := cmp.Diff([]string{"Read", "Grep", "Glob", "Skill", "github_get_file", "github_broken", "Read_2", "submit_result"}, names); diff != "" {
		t.Fatalf("tool names (-want +got):\n%s", diff)
	}
	ctx := context.Background()
	cases := []struct {
		name, tool, input, want string
		isErr, malformed        bool
	}{
		{"read", "Read", `{"file_path":"main.go"}`, "package main", false, false},
		{"unknown field", "Read", `{"file_path":"main.go","x":1}`, "unknown field", true, true},
		{"string input", "Read", `"{not json"`, "must be a JSON object", true, true},
		{"wrong type", "Read", `{"file_path":42}`, "invalid input", true, true},
		{"stray brace", "Read", `{"file_path":"main.go"}}`, "data after the JSON object", true, true},
		{"submit stray brace", "submit_result", `{"summary":"s","checked":{"files":[],"skills":[]},"findings":[]}}`, "data after the JSON object", true, false},
		{"unknown tool", "Bash", `{"command":"id"}`, `no tool named "Bash"`, true, true},
		{"skill", "Skill", `{"name":"sql"}`, "Look for injection.", false, false},
		{"skill files", "Skill", `{"name":"sql"}`, ".claude/skills/sql/ref.md", false, false},
		{"missing skill", "Skill", `{"name":"nope"}`, "No skill named", true, false},
		{"connector", "github_get_file", `{"path":"x"}`, `{"content":"hello"}`, false, false},
		{"connector error", "github_broken", `{}`, "the upstream answered 500", true, false},
		{"connector bad input", "github_get_file", `[1]`, "JSON object", true, true},
		{"submit without evidence", "submit_result", `{"summary":"s","checked":{"files":[],"skills":[]},"findings":[{"path":"main.go","line":1,"severity":"nit","category":"x","title":"t","body":"b"}]}`, "evidence: required", true, false},
		{"submit with the check's field", "submit_result", `{"summary":"s","checked":{"files":[],"skills":[]},"findings":[{"path":"main.go","line":1,"severity":"nit","category":"x","title":"t","body":"b","evidence":"package main","evidence_moved_from":3}]}`, "not a field of the result", true, false},
		{"submit invalid", "submit_result", `{"summary":"s","checked":{"files":[],"skills":[]},"findings":[{"path":"/etc/passwd","line":1,"severity":"nit","category":"x","title":"t","body":"b"}]}`, "refused", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := set.Call(ctx, c.tool, json.RawMessage(c.input))
			if res.IsError != c.isErr || res.Malformed != c.malformed || !strings.Contains(res.Output, c.want) {
				t.Fatalf("Call(%s, %s) = %+v; want %q, error %v, malformed %v", c.tool, c.input, res, c.want, c.isErr, c.malformed)
			}
		})
	}
	if auth != "Bearer chkr_test" || got.Input == nil {
		t.Fatalf("connector call: auth %q input %s", auth, got.Input)
	}
	if path != "/api/runner/v1/runs/7/tools/github.broken" {
		t.Fatalf("connector path %q", path)
	}
	res := set.Call(ctx, "submit_result", json.RawMessage(`{"summary":"ok","checked":{"files":["main.go"],"skills":[]},"findings":[]}`))
	if res.Submitted == nil || res.IsError || res.Submitted.Review == nil || res.Submitted.Review.Summary != "ok" {
		t.Fatalf("valid submit refused or not passed on typed: %+v", res)
	}
	if diff := cmp.Diff([]string{"main.go"}, set.FilesRead()); diff != "" {
		t.Fatalf("files read: %s", diff)
	}
	if diff := cmp.Diff([]string{"sql"}, set.SkillsUsed()); diff != "" {
		t.Fatalf("skills used: %s", diff)
	}
}

func TestReplySet(t *testing.T) {
	set, err := New(Config{FS: openFS(t, fixture), Kind: "reply"})
	if err != nil {
		t.Fatal(err)
	}
	if set.SubmitName() != NameSubmitReply {
		t.Fatalf("submit tool %s", set.SubmitName())
	}
	for _, d := range set.Defs() {
		if d.Name == NameSkill || d.Name == NameSubmit {
			t.Fatalf("reply set without skills has %s", d.Name)
		}
	}
	if r := set.Call(context.Background(), NameSubmitReply, json.RawMessage(`{"reply":"ok","verdict":"maybe"}`)); !r.Refused {
		t.Fatalf("bad verdict accepted: %+v", r)
	}
	if r := set.Call(context.Background(), NameSubmitReply, json.RawMessage(`{"reply":"ok","verdict":"fixed"}`)); r.Submitted == nil || r.Submitted.Reply == nil || r.Submitted.Reply.Verdict != findings.VerdictFixed {
		t.Fatalf("valid reply refused: %+v", r)
	}
}
