package security

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/action/tools"
)

func toolSet(t *testing.T, files map[string]string, budget time.Duration) *tools.Set {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fsys, err := tools.OpenFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	set, err := tools.New(tools.Config{FS: fsys, Kind: "review", CallBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func callTool(t *testing.T, ctx context.Context, set *tools.Set, name string, in any) (tools.Result, time.Duration) {
	t.Helper()
	raw, _ := json.Marshal(in)
	done := make(chan tools.Result, 1)
	start := time.Now()
	go func() { done <- set.Call(ctx, name, raw) }()
	select {
	case r := <-done:
		return r, time.Since(start)
	case <-time.After(20 * time.Second):
		t.Fatalf("%s %s did not return within 20s", name, raw)
		return tools.Result{}, 0
	}
}

// TestGrepQuadratic: a pattern that can cross lines and has no required
// literal ((?s)[ab].*[yz], from the security review: 16 s on 97 KB, 71 s on
// 195 KB) over a ~200 KB file must take time linear in the file: here,
// generously, under 2 s for every output mode (it takes milliseconds).
func TestGrepQuadratic(t *testing.T) {
	var b strings.Builder
	for b.Len() < 200<<10 {
		b.WriteString("a line of text that has an a and a b but not the end letters\n")
	}
	b.WriteString("the last line has a y and a z\n")
	set := toolSet(t, map[string]string{"big.txt": b.String()}, 0)
	for _, pattern := range []string{`(?s)[ab].*[yz]`, `[ab][^q]*[yz]`, `a\s*.*z`, `(?s).*z`} {
		for _, mode := range []string{"files_with_matches", "content", "count"} {
			r, took := callTool(t, context.Background(), set, "Grep", map[string]any{"pattern": pattern, "output_mode": mode})
			if took > 2*time.Second {
				t.Errorf("Grep %q (%s) on 200 KB took %s", pattern, mode, took)
			}
			if r.IsError || !strings.Contains(r.Output, "big.txt") {
				t.Errorf("Grep %q (%s): %+v", pattern, mode, r)
			}
			if mode == "count" && !strings.Contains(r.Output, "big.txt:1") {
				// Only the last line holds a y or z: line by line, one match.
				t.Errorf("Grep %q count: %q", pattern, r.Output)
			}
		}
	}
}

// TestToolsHonourCancelledContext: a tool called after the run's deadline
// (or with a cancelled context) does no work and says why; a tool that
// outlives its per-call budget is stopped.
func TestToolsHonourCancelledContext(t *testing.T) {
	files := map[string]string{"a.go": "package a\n", "b/c.go": "package c\n"}
	set := toolSet(t, files, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, in := range map[string]any{
		"Grep": map[string]any{"pattern": "package"},
		"Glob": map[string]any{"pattern": "**/*.go"},
		"Read": map[string]any{"file_path": "a.go"},
	} {
		r, _ := callTool(t, ctx, set, name, in)
		if !r.IsError || strings.Contains(r.Output, "package") || !strings.Contains(r.Output, "stopped") {
			t.Errorf("%s with a cancelled context: %+v", name, r)
		}
	}
	// The same calls with a live context work.
	r, _ := callTool(t, context.Background(), set, "Grep", map[string]any{"pattern": "package"})
	if r.IsError || !strings.Contains(r.Output, "a.go") {
		t.Fatalf("Grep with a live context: %+v", r)
	}

	// A per-call budget stops a search that outlives it, even when the
	// run's own deadline is far away.
	var b strings.Builder
	for b.Len() < 8<<20 {
		b.WriteString("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n")
	}
	big := map[string]string{}
	for i := range 8 {
		big[filepath.Join("d", string(rune('a'+i))+".txt")] = b.String()
	}
	slow := toolSet(t, big, time.Millisecond)
	r, took := callTool(t, context.Background(), slow, "Grep", map[string]any{"pattern": `(a|aa)+b`, "output_mode": "count"})
	if !r.IsError || !strings.Contains(r.Output, "stopped") {
		t.Errorf("Grep past a 1ms budget: %+v (took %s)", r, took)
	}
	if took > 2*time.Second {
		t.Errorf("Grep past a 1ms budget took %s to stop", took)
	}
}
