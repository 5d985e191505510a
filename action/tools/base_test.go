package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestBaseVersion(t *testing.T) {
	const head = "package a\n\nfunc f() int {\n\treturn 2\n}\n\nfunc g() {}\n"
	cases := map[string]struct {
		diff, path, head string
		exists           bool
		want, err        string
	}{
		"changed line and added lines": {
			diff: "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,5 +1,7 @@\n package a\n \n func f() int {\n-\treturn 1\n+\treturn 2\n }\n+\n+func g() {}\n",
			path: "a.go", head: head, exists: true,
			want: "package a\n\nfunc f() int {\n\treturn 1\n}\n",
		},
		"two hunks, unchanged lines between them kept": {
			diff: "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,1 @@\n-package b\n+package a\n@@ -7,1 +7,1 @@\n-func h() {}\n+func g() {}\n",
			path: "a.go", head: head, exists: true,
			want: "package b\n\nfunc f() int {\n\treturn 2\n}\n\nfunc h() {}\n",
		},
		"pure deletion inside the file": {
			diff: "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -5,0 +6,0 @@\n",
			path: "a.go", head: head, exists: true, want: head,
		},
		"deleted file": {
			diff: "diff --git a/old.go b/old.go\n--- a/old.go\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-package old\n-var x = 1\n",
			path: "old.go", exists: false, want: "package old\nvar x = 1\n",
		},
		"new file has no base": {
			diff: "diff --git a/n.go b/n.go\n--- /dev/null\n+++ b/n.go\n@@ -0,0 +1 @@\n+package n\n",
			path: "n.go", head: "package n\n", exists: true, err: "new in this change",
		},
		"file not in the diff": {
			diff: "diff --git a/n.go b/n.go\n--- /dev/null\n+++ b/n.go\n@@ -0,0 +1 @@\n+package n\n",
			path: "a.go", head: head, exists: true, err: "not changed by the diff",
		},
		"diff that does not match the head": {
			diff: "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,1 @@\n-package b\n+package zzz\n",
			path: "a.go", head: head, exists: true, err: "does not apply",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := baseVersion(c.diff, c.path, c.head, c.exists)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// ReadBase is offered to a review with a diff, answers numbered lines and
// records what it read; a reply has no such tool.
func TestReadBaseTool(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\nvar x = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys, err := OpenFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	diff := "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,2 +1,2 @@\n package a\n-var x = 1\n+var x = 2\n"
	set, err := New(Config{FS: fsys, Kind: "review", Diff: diff})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(ReadInput{FilePath: "a.go"})
	r := set.Call(context.Background(), NameReadBase, in)
	if r.IsError || r.Output != "     1\tpackage a\n     2\tvar x = 1\n" || strings.Join(set.BasesRead(), ",") != "a.go" {
		t.Fatalf("ReadBase: %+v, bases read %v", r, set.BasesRead())
	}
	reply, err := New(Config{FS: fsys, Kind: "reply", Diff: diff})
	if err != nil {
		t.Fatal(err)
	}
	if r := reply.Call(context.Background(), NameReadBase, in); !r.IsError || !r.Malformed {
		t.Fatalf("a reply run has ReadBase: %+v", r)
	}
}

// The passes of a review call one set at once: what it records of their
// Read and ReadBase calls is each file once, with no race (go test -race).
func TestSetRecordsConcurrentReads(t *testing.T) {
	dir := t.TempDir()
	diff := ""
	for _, f := range []string{"a.go", "b.go"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("package a\nvar x = 2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		diff += "diff --git a/" + f + " b/" + f + "\n--- a/" + f + "\n+++ b/" + f + "\n@@ -1,2 +1,2 @@\n package a\n-var x = 1\n+var x = 2\n"
	}
	fsys, err := OpenFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	set, err := New(Config{FS: fsys, Kind: "review", Diff: diff})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for _, f := range []string{"a.go", "b.go"} {
				in, _ := json.Marshal(ReadInput{FilePath: f})
				for _, tool := range []string{NameRead, NameReadBase} {
					if r := set.Call(context.Background(), tool, in); r.IsError {
						t.Errorf("pass %d: %s %s: %s", i, tool, f, r.Output)
					}
				}
			}
		})
	}
	wg.Wait()
	if got := strings.Join(set.FilesRead(), ","); got != "a.go,b.go" && got != "b.go,a.go" {
		t.Errorf("files read %q, want each once", got)
	}
	if got := set.BasesRead(); len(got) != 2 {
		t.Errorf("bases read %q, want each once", got)
	}
}
