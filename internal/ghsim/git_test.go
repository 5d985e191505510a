package ghsim

import (
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// apply rebuilds the new side of a diff from its ops.
func apply(ops []diffOp) (old, new []string) {
	for _, op := range ops {
		if op.kind != '+' {
			old = append(old, op.text)
		}
		if op.kind != '-' {
			new = append(new, op.text)
		}
	}
	return old, new
}

func TestDiffFile(t *testing.T) {
	tests := []struct {
		name         string
		old, new     string
		oldOK, newOK bool
		status       string
		adds, dels   int
		patch        string
		right, left  []int
	}{
		{name: "added", new: "a\nb\n", newOK: true, status: "added", adds: 2, patch: "@@ -0,0 +1,2 @@\n+a\n+b", right: []int{1, 2}},
		{name: "removed", old: "a\n", oldOK: true, status: "removed", dels: 1, patch: "@@ -1 +0,0 @@\n-a", left: []int{1}},
		{name: "one line changed in the middle", old: "1\n2\n3\n4\n5\n6\n7\n8\n9\n", new: "1\n2\n3\n4\nV\n6\n7\n8\n9\n", oldOK: true, newOK: true,
			status: "modified", adds: 1, dels: 1, patch: "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+V\n 6\n 7\n 8", right: []int{2, 3, 4, 5, 6, 7, 8}, left: []int{2, 3, 4, 5, 6, 7, 8}},
		{name: "two far changes make two hunks", old: "a\n1\n2\n3\n4\n5\n6\n7\n8\nz\n", new: "A\n1\n2\n3\n4\n5\n6\n7\n8\nZ\n", oldOK: true, newOK: true,
			status: "modified", adds: 2, dels: 2, patch: "@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -7,4 +7,4 @@\n 6\n 7\n 8\n-z\n+Z",
			right: []int{1, 2, 3, 4, 7, 8, 9, 10}, left: []int{1, 2, 3, 4, 7, 8, 9, 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fd := diffFile("f", tc.old, tc.new, tc.oldOK, tc.newOK)
			if fd.status != tc.status || fd.additions != tc.adds || fd.deletions != tc.dels {
				t.Errorf("status %s +%d -%d", fd.status, fd.additions, fd.deletions)
			}
			if diff := cmp.Diff(tc.patch, fd.patch); diff != "" {
				t.Errorf("patch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.right, keys(fd.right)); diff != "" {
				t.Errorf("right lines (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.left, keys(fd.left)); diff != "" {
				t.Errorf("left lines (-want +got):\n%s", diff)
			}
		})
	}
}

func keys(m map[int]bool) []int {
	var out []int
	for i := 1; i <= 1000; i++ {
		if m[i] {
			out = append(out, i)
		}
	}
	return out
}

func TestMapLine(t *testing.T) {
	old := "1\n2\n3\n4\n5\n6\n7\n8\n"
	tests := []struct {
		name   string
		new    string
		line   int
		want   int
		wantOK bool
	}{
		{"unchanged file", old, 5, 5, true},
		{"line changed", "1\n2\n3\n4\nV\n6\n7\n8\n", 5, 0, false},
		{"neighbour changed", "1\n2\n3\nX\n5\n6\n7\n8\n", 5, 0, false},
		{"insertion far above shifts it", "0\n1\n2\n3\n4\n5\n6\n7\n8\n", 7, 8, true},
		{"line deleted", "1\n2\n3\n4\n6\n7\n8\n", 5, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := mapLine(old, tc.new, tc.line)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("mapLine = %d %v, want %d %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestNodeIDRoundTrip(t *testing.T) {
	for _, id := range []int64{1, 1001, 1 << 40} {
		p, got, ok := parseNodeID(nodeID("PRRT", id))
		if !ok || p != "PRRT" || got != id {
			t.Errorf("parseNodeID(nodeID(%d)) = %s %d %v", id, p, got, ok)
		}
	}
	if _, _, ok := parseNodeID("garbage"); ok {
		t.Error("garbage parsed")
	}
}

// FuzzLineDiff checks the edit script always rebuilds both sides and that
// every line GitHub would let a comment sit on is in a hunk.
func FuzzLineDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("", "x\n")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "0\n1\n2\n3\n5\n6\n7\n8\n9\n10\n11\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 4000 || len(b) > 4000 {
			return
		}
		al, bl := splitLines(a), splitLines(b)
		old, new := apply(lineDiff(al, bl))
		if strings.Join(old, "\n") != strings.Join(al, "\n") || strings.Join(new, "\n") != strings.Join(bl, "\n") {
			t.Fatalf("edit script does not rebuild the inputs")
		}
		fd := diffFile("f", a, b, true, true)
		for l := range fd.right {
			if l < 1 || l > len(bl) {
				t.Fatalf("right line %d outside 1..%d", l, len(bl))
			}
			if fd.hunkOf[[2]int{1, l}] == "" {
				t.Fatalf("right line %d has no hunk", l)
			}
		}
		for l := range fd.left {
			if l < 1 || l > len(al) {
				t.Fatalf("left line %d outside 1..%d", l, len(al))
			}
		}
	})
}

// diff_hunk is the hunk up to the commented line, as GitHub gives it, and a
// large added file costs memory in proportion to its size (it was quadratic:
// a 50 MB file took tens of GB).
func TestDiffHunkIsPrefixOfHunk(t *testing.T) {
	fd := diffFile("a.go", "a\nb\nc\n", "a\nB\nc\nd\n", true, true)
	want := "@@ -1,3 +1,4 @@\n a\n-b\n+B"
	if got := fd.hunkOf[[2]int{1, 2}]; got != want {
		t.Fatalf("diff_hunk of line 2 = %q, want %q", got, want)
	}
	if got := fd.hunkOf[[2]int{0, 2}]; got != "@@ -1,3 +1,4 @@\n a\n-b" {
		t.Fatalf("diff_hunk of left line 2 = %q", got)
	}
	if fd.patch != "@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d" {
		t.Fatalf("patch = %q", fd.patch)
	}
	line := strings.Repeat("x", 1000) + "\n"
	big := strings.Repeat(line, 2000) // 2 MB added (quadratic: ~2 GB)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fd = diffFile("big.sql", "", big, false, true)
	runtime.ReadMemStats(&after)
	if fd.additions != 2000 || len(fd.hunkOf[[2]int{1, 2000}]) < len(big) {
		t.Fatalf("additions %d, last diff_hunk %d bytes", fd.additions, len(fd.hunkOf[[2]int{1, 2000}]))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 20*uint64(len(big)) {
		t.Fatalf("diffing a %d MB added file allocated %d MB", len(big)>>20, alloc>>20)
	}
}

func TestRunName(t *testing.T) {
	wf := "name: Chakshu\nrun-name: \"Chakshu run ${{ inputs.run_id }} (PR #${{inputs.pr_number}})\"\non:\n  workflow_dispatch:\n    inputs:\n      run_id: {required: true}\n      pr_number: {required: true}\n      head_sha: {required: true}\n"
	if got := runName(wf, map[string]any{"run_id": "42", "pr_number": 7}); got != "Chakshu run 42 (PR #7)" {
		t.Fatalf("runName = %q", got)
	}
	if got := runName("name: x\n", nil); got != "" {
		t.Fatalf("no run-name: %q", got)
	}
}
