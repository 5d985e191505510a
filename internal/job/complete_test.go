package job

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"
)

// patchOf is a patch of n lines.
func patchOf(n int) *string {
	return github.Ptr("@@ -0,0 +1," + fmt.Sprint(n-1) + " @@" + strings.Repeat("\n+x", n-1))
}

func filesOf(n, linesEach int) []*github.CommitFile {
	out := make([]*github.CommitFile, n)
	for i := range out {
		out[i] = &github.CommitFile{Filename: github.Ptr(fmt.Sprintf("f%d.go", i)), Status: github.Ptr("added"),
			Changes: github.Ptr(linesEach - 1), Patch: patchOf(linesEach)}
	}
	return out
}

// A files list stands for the diff only when it is the whole diff, within
// GitHub's own limits on a PR's diff: each limit at its value and one past.
func TestCompleteFiles(t *testing.T) {
	pr := func(changed int) *github.PullRequest { return &github.PullRequest{ChangedFiles: github.Ptr(changed)} }
	with := func(fs []*github.CommitFile, f *github.CommitFile) []*github.CommitFile { return append(fs, f) }
	for _, c := range []struct {
		name  string
		pr    *github.PullRequest
		files []*github.CommitFile
		want  bool
	}{
		{"300 files", pr(300), filesOf(300, 2), true},
		{"301 files", pr(301), filesOf(301, 2), false},
		{"20,000 lines", pr(4), filesOf(4, 5000), true},
		{"20,001 lines", pr(4), with(filesOf(3, 5000), filesOf(1, 5001)[0]), false},
		{"GitHub counts a file the list lacks", pr(3), filesOf(2, 2), false},
		{"a binary file (no patch)", pr(2), with(filesOf(1, 2), &github.CommitFile{Filename: github.Ptr("logo.png"), Status: github.Ptr("added")}), false},
		{"a file whose own diff is too large (no patch)", pr(2), with(filesOf(1, 2), &github.CommitFile{Filename: github.Ptr("big.sql"), Status: github.Ptr("modified"), Changes: github.Ptr(90_000)}), false},
		{"a pure rename (nothing to patch)", pr(2), with(filesOf(1, 2), &github.CommitFile{Filename: github.Ptr("new.go"), PreviousFilename: github.Ptr("old.go"), Status: github.Ptr("renamed"), Changes: github.Ptr(0)}), true},
		{"a patch cut past the job's cap", pr(2), with(filesOf(1, 2), &github.CommitFile{Filename: github.Ptr("wide.txt"), Status: github.Ptr("added"), Changes: github.Ptr(9), Patch: github.Ptr("")}), false},
		{"no files", pr(0), nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := completeFiles(c.pr, c.files); got != c.want {
				t.Fatalf("completeFiles = %v, want %v", got, c.want)
			}
		})
	}
}
