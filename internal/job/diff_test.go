package job

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v88/github"
)

const twoFiles = "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n" +
	"diff --git a/vendor/v.go b/vendor/v.go\n--- a/vendor/v.go\n+++ b/vendor/v.go\n@@ -1 +1 @@\n-p\n+q\n"

func TestFilterDiff(t *testing.T) {
	for _, c := range []struct {
		name    string
		dropped []string
		want    string
	}{
		{"nothing dropped", nil, twoFiles},
		{"vendor dropped", []string{"vendor/v.go"}, "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n"},
		{"all dropped", []string{"a.go", "vendor/v.go"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, filterDiff(twoFiles, c.dropped)); d != "" {
				t.Fatal(d)
			}
		})
	}
}

func TestFilterPaths(t *testing.T) {
	kept, dropped := filterPaths([]string{"a.go", "vendor/x/y.go", "docs/r.md", "gen/z.pb.go"}, []string{"vendor/**", "**/*.pb.go"})
	if d := cmp.Diff([]string{"a.go", "docs/r.md"}, kept); d != "" {
		t.Error(d)
	}
	if d := cmp.Diff([]string{"vendor/x/y.go", "gen/z.pb.go"}, dropped); d != "" {
		t.Error(d)
	}
}

func TestDiffOfFiles(t *testing.T) {
	got := diffOfFiles([]*github.CommitFile{
		{Filename: github.Ptr("n.go"), Status: github.Ptr("added"), Patch: github.Ptr("@@ -0,0 +1 @@\n+n")},
		{Filename: github.Ptr("new.go"), PreviousFilename: github.Ptr("old.go"), Status: github.Ptr("renamed")},
	})
	want := "diff --git a/n.go b/n.go\n--- /dev/null\n+++ b/n.go\n@@ -0,0 +1 @@\n+n\ndiff --git a/old.go b/new.go\n--- a/old.go\n+++ b/new.go\n"
	if d := cmp.Diff(want, got); d != "" {
		t.Fatal(d)
	}
}

// Filtering never invents lines and never keeps a dropped file's section header.
func FuzzFilterDiff(f *testing.F) {
	f.Add(twoFiles, "vendor/v.go")
	f.Add("diff --git a/x b/y b/z\n+1\n", "z")
	f.Fuzz(func(t *testing.T, diff, drop string) {
		out := filterDiff(diff, []string{drop})
		if !strings.Contains(diff, out) && !isSubsequence(strings.SplitAfter(out, "\n"), strings.SplitAfter(diff, "\n")) {
			t.Fatalf("output is not made of input lines: %q", out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "diff --git ") && strings.HasSuffix(l, " b/"+drop) && drop != "" && !strings.Contains(drop, "\n") {
				t.Fatalf("dropped file kept: %q", l)
			}
		}
	})
}

func isSubsequence(sub, all []string) bool {
	i := 0
	for _, l := range all {
		if i < len(sub) && sub[i] == l {
			i++
		}
	}
	return i == len(sub)
}
