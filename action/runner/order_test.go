package runner

import (
	"slices"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

func section(path string) string {
	return "diff --git a/" + path + " b/" + path + "\n--- a/" + path + "\n+++ b/" + path + "\n@@ -1 +1 @@\n-old\n+new " + path
}

// TestPassPromptOrdersFiles: each pass sees the PR's files and diff
// sections in its own deterministic order (pass 1 the server's, pass 2 the
// reverse, pass 3 another), every one of them exactly once, and the
// prompt around the fences as it was.
func TestPassPromptOrdersFiles(t *testing.T) {
	files := []string{"a.go", "b.go", "c.go", "d.go", "e.go"}
	var secs []string
	for _, f := range files {
		secs = append(secs, section(f))
	}
	prompt := "Review pull request #1.\n\n<pr_files>\n" + strings.Join(files, "\n") + "\n</pr_files>\n\nDiff of the pull request:\n<diff>\n" +
		strings.Join(secs, "\n") + "\n</diff>"
	job := &runnerproto.Job{Prompt: prompt}
	listed := func(p string) []string {
		return strings.Split(strings.TrimSpace(between(p, "<pr_files>", "</pr_files>")), "\n")
	}
	diffed := func(p string) []string {
		var out []string
		for _, l := range strings.Split(between(p, "<diff>", "</diff>"), "\n") {
			if path, ok := strings.CutPrefix(l, "+new "); ok {
				out = append(out, path)
			}
		}
		return out
	}
	if got := passPrompt(job, 1); got != prompt {
		t.Fatalf("pass 1 changed the prompt:\n%s", got)
	}
	seen := map[string]bool{}
	for pass := 1; pass <= 4; pass++ {
		p := passPrompt(job, pass)
		if p != passPrompt(job, pass) {
			t.Fatalf("pass %d: two calls, two prompts", pass)
		}
		l, d := listed(p), diffed(p)
		if !slices.Equal(l, d) {
			t.Errorf("pass %d: file list %v and diff %v in different orders", pass, l, d)
		}
		if s := slices.Sorted(slices.Values(l)); !slices.Equal(s, files) {
			t.Errorf("pass %d lists %v, want each of %v once", pass, l, files)
		}
		if !strings.HasPrefix(p, "Review pull request #1.\n\n<pr_files>\n") || !strings.Contains(p, "\n</pr_files>\n\nDiff of the pull request:\n<diff>\ndiff --git ") || !strings.HasSuffix(p, "\n</diff>") {
			t.Errorf("pass %d: the prompt around the fences changed:\n%s", pass, p)
		}
		for _, sec := range secs {
			if !strings.Contains(p, sec+"\n") {
				t.Errorf("pass %d: diff section of %s broken", pass, sec[13:17])
			}
		}
		seen[strings.Join(l, ",")] = true
		if pass == 2 && !slices.Equal(l, []string{"e.go", "d.go", "c.go", "b.go", "a.go"}) {
			t.Errorf("pass 2 order %v, want the reverse", l)
		}
	}
	if len(seen) != 4 {
		t.Errorf("four passes saw %d different orders, want 4", len(seen))
	}
	// A prompt without the fences is left as it is.
	if got := passPrompt(&runnerproto.Job{Prompt: "no fences"}, 3); got != "no fences" {
		t.Errorf("got %q", got)
	}
}

func between(s, open, close string) string {
	_, after, _ := strings.Cut(s, open)
	in, _, _ := strings.Cut(after, close)
	return in
}
