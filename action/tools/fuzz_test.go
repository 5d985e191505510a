package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/action/internal/hostile"
)

const outsideMarker = "OUTSIDE-SECRET-7f3a"

// fuzzFS is a workspace with a secret file beside it and symlinks aiming at
// it, so any escape shows up as the marker in an answer.
func fuzzFS(f *testing.F) *FS {
	parent := f.TempDir()
	if err := os.WriteFile(filepath.Join(parent, "secret.txt"), []byte(outsideMarker+"\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	ws := filepath.Join(parent, "ws")
	files := map[string]string{
		"a/b.go":      "package b // TODO\n",
		"c.txt":       "hello\n",
		"link-out":    "->../secret.txt",
		"a/link-up":   "->../..",
		"a/link-in":   "->b.go",
		"abs-link":    "->" + filepath.Join(parent, "secret.txt"),
		"d/e/f/g.txt": "deep\n",
	}
	hostile.WriteTree(f, ws, files)
	fsys, err := OpenFS(ws)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { fsys.Close() })
	return fsys
}

func FuzzResolve(f *testing.F) {
	fsys := fuzzFS(f)
	for _, s := range []string{"a/b.go", "../secret.txt", "link-out", "a/link-up/secret.txt", "/etc/passwd", "./a/./b.go", "a//b.go", "a/link-in", "abs-link", "", "..", "a/../../secret.txt", `a\..\..\secret.txt`, "/proc/self/environ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		rel, abs, err := fsys.Resolve(p)
		if err != nil {
			return
		}
		if abs != fsys.Dir() && !strings.HasPrefix(abs, fsys.Dir()+string(filepath.Separator)) {
			t.Fatalf("Resolve(%q) = %q outside %q", p, abs, fsys.Dir())
		}
		if strings.HasPrefix(rel, "/") || strings.Contains("/"+rel+"/", "/../") {
			t.Fatalf("Resolve(%q) rel %q", p, rel)
		}
	})
}

func FuzzToolCall(f *testing.F) {
	fsys := fuzzFS(f)
	set, err := New(Config{FS: fsys})
	if err != nil {
		f.Fatal(err)
	}
	seeds := [][2]string{
		{"Read", `{"file_path":"link-out"}`},
		{"Read", `{"file_path":"a/link-up/secret.txt"}`},
		{"Read", `{"file_path":"a/b.go","offset":1,"limit":1}`},
		{"Grep", `{"pattern":"OUTSIDE","path":"a/link-up"}`},
		{"Grep", `{"pattern":"(?s).","output_mode":"content","-C":3}`},
		{"Grep", `{"pattern":"","glob":"../*"}`},
		{"Glob", `{"pattern":"**/*"}`},
		{"Glob", `{"pattern":"a/link-up/*"}`},
		{"Glob", `{"pattern":"{../,}*"}`},
		{"Skill", `{"name":"x"}`},
		{"submit_result", `{"summary":"s","checked":{"files":[],"skills":[]},"findings":[]}`},
		{"Read", `"{not json"`},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, input string) {
		res := set.Call(context.Background(), name, json.RawMessage(input))
		if strings.Contains(res.Output, outsideMarker) {
			t.Fatalf("Call(%s, %s) read outside the workspace: %q", name, input, res.Output)
		}
		if res.Submitted != nil {
			if b, err := res.Submitted.JSON(); err != nil || !json.Valid(b) {
				t.Fatalf("accepted a result that does not encode: %q %v", b, err)
			}
		}
	})
}
