package workspace

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/action/internal/hostile"
	"github.com/chakshu-dev/chakshu/action/tools"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

func TestBuildHostileCheckout(t *testing.T) {
	checkout := hostile.Checkout(t)
	dst := filepath.Join(t.TempDir(), "ws")
	rep, err := Build(Config{Checkout: checkout, Dir: dst, Rules: "Reviewer rules: flag SQL injection.",
		Skills: []runnerproto.Skill{{Name: "sql-injection", Description: "d", Content: "# SQL skill", Files: map[string]string{"examples/bad.go": "x"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dst {
			return err
		}
		rel, _ := filepath.Rel(dst, p)
		entry := filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			entry += " -> " + target
		case d.IsDir():
			entry += "/"
		}
		got = append(got, entry)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		".claude/",
		".claude/skills/",
		".claude/skills/sql-injection/",
		".claude/skills/sql-injection/SKILL.md",
		".claude/skills/sql-injection/examples/",
		".claude/skills/sql-injection/examples/bad.go",
		"CLAUDE.md",
		"README.md",
		"docs/",
		"docs/guide.md",
		"docs/main-link.go -> ../src/main.go",
		"hooks-copy.txt",
		"src/",
		"src/abs-inside.go -> main.go",
		"src/db.go",
		"src/main.go",
		"src/pkg/",
		"src/pkg/deep/",
		"src/pkg/deep/util.go",
		"src/self -> .",
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("workspace tree (-want +got):\n%s", diff)
	}
	rules, _ := os.ReadFile(filepath.Join(dst, "CLAUDE.md"))
	if string(rules) != "Reviewer rules: flag SQL injection." {
		t.Fatalf("CLAUDE.md = %q, want the reviewer's rules", rules)
	}
	var removed []string
	for _, r := range rep.Removed {
		removed = append(removed, r.Path)
	}
	for _, p := range []string{".git", "CLAUDE.md", ".claude", ".mcp.json", "src/AGENTS.md", "src/pkg/CLAUDE.local.md", "src/pkg/deep/.claude", "src/pkg/deep/.mcp.json", "docs/claude.md",
		"passwd", "up", "escape-dir", "src/pkg/deep/etc-link", "dangling", "rules-link", "git-hook-link"} {
		if !slices.Contains(removed, p) {
			t.Errorf("report does not list %s as removed: %v", p, removed)
		}
	}
	// Nothing in the workspace resolves outside it.
	realDst, _ := filepath.EvalSymlinks(dst)
	_ = filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.Type()&fs.ModeSymlink != 0 {
			r, err := filepath.EvalSymlinks(p)
			if err != nil || !strings.HasPrefix(r, realDst+"/") && r != realDst {
				t.Errorf("symlink %s resolves to %q (%v)", p, r, err)
			}
		}
		return nil
	})
}

func TestBuildValidatesSkills(t *testing.T) {
	checkout := t.TempDir()
	cases := map[string]runnerproto.Skill{
		"dotdot name":       {Name: ".."},
		"slash name":        {Name: "a/b"},
		"absolute file":     {Name: "ok", Files: map[string]string{"/etc/x": ""}},
		"traversal file":    {Name: "ok", Files: map[string]string{"a/../../x": ""}},
		"overrides SKILL":   {Name: "ok", Files: map[string]string{"SKILL.md": ""}},
		"empty name":        {Name: ""},
		"backslash in file": {Name: "ok", Files: map[string]string{`a\..\x`: ""}},
	}
	for name, sk := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Build(Config{Checkout: checkout, Dir: filepath.Join(t.TempDir(), "ws"), Skills: []runnerproto.Skill{sk}}); err == nil {
				t.Fatalf("skill %+v accepted", sk)
			}
		})
	}
}

func TestBuildRefusesNonEmptyOrNestedDir(t *testing.T) {
	checkout := t.TempDir()
	if err := os.WriteFile(filepath.Join(checkout, "a"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(Config{Checkout: checkout, Dir: checkout}); err == nil {
		t.Fatal("built into a non-empty directory")
	}
	if _, err := Build(Config{Checkout: checkout, Dir: filepath.Join(checkout, "ws")}); err == nil {
		t.Fatal("built inside the checkout")
	}
}

// TestNoToolReadsOutside runs every read tool over the sanitised hostile
// workspace: nothing from /etc, from the removed instruction files or from
// .git comes back.
func TestNoToolReadsOutside(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "ws")
	if _, err := Build(Config{Checkout: hostile.Checkout(t), Dir: dst, Rules: "rules"}); err != nil {
		t.Fatal(err)
	}
	fsys, err := tools.OpenFS(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	set, err := tools.New(tools.Config{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	passwd, _ := os.ReadFile("/etc/passwd")
	firstLine := strings.SplitN(string(passwd), "\n", 2)[0]
	calls := [][2]string{
		{"Grep", `{"pattern":"root|` + hostile.PlantedMarker + `","output_mode":"content","-C":5}`},
		{"Grep", `{"pattern":".","output_mode":"count"}`},
		{"Grep", `{"pattern":"x","path":"src/pkg/deep/etc-link"}`},
		{"Glob", `{"pattern":"**"}`},
		{"Glob", `{"pattern":"**/*","path":"src/self"}`},
		{"Read", `{"file_path":"passwd"}`},
		{"Read", `{"file_path":"up/checkout/CLAUDE.md"}`},
		{"Read", `{"file_path":"src/pkg/deep/etc-link/passwd"}`},
		{"Read", `{"file_path":"rules-link"}`},
		{"Read", `{"file_path":".git/config"}`},
		{"Read", `{"file_path":"src/self/self/main.go"}`},
	}
	for _, c := range calls {
		res := set.Call(context.Background(), c[0], json.RawMessage(c[1]))
		if strings.Contains(res.Output, hostile.PlantedMarker) || (firstLine != "" && strings.Contains(res.Output, firstLine)) {
			t.Errorf("%s %s leaked: %s", c[0], c[1], res.Output)
		}
		for _, removed := range []string{".mcp.json", "AGENTS.md", "CLAUDE.local.md", ".git/", "post-checkout"} {
			if !res.IsError && strings.Contains(res.Output, removed) {
				t.Errorf("%s %s lists a removed path %s:\n%s", c[0], c[1], removed, res.Output)
			}
		}
	}
	// A symlink inside the tree still works.
	if res := set.Call(context.Background(), "Read", json.RawMessage(`{"file_path":"docs/main-link.go"}`)); res.IsError || !strings.Contains(res.Output, "func Main") {
		t.Fatalf("inside symlink: %+v", res)
	}
}
