package diffmap

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// patch of a modified file: two hunks. Old lines 10..16 and 40..43; new lines
// 10..17 and 41..43.
const twoHunks = `@@ -10,7 +10,8 @@ func a() {
 ctx10
 ctx11
-old12
+new12
+new13
 ctx14
 ctx15
-old16
+new16
 ctx17
@@ -40,4 +41,3 @@ func b() {
 ctx40
-old41
-old42
+new43
 ctx43
\ No newline at end of file`

func TestParsePatch(t *testing.T) {
	f, err := ParsePatch("a.go", twoHunks)
	if err != nil {
		t.Fatal(err)
	}
	want := []Hunk{
		{OldStart: 10, OldLines: 7, NewStart: 10, NewLines: 8, Left: Span{10, 16}, Right: Span{10, 17}},
		{OldStart: 40, OldLines: 4, NewStart: 41, NewLines: 3, Left: Span{40, 43}, Right: Span{41, 43}},
	}
	if d := cmp.Diff(want, f.Hunks); d != "" {
		t.Fatalf("hunks (-want +got):\n%s", d)
	}
}

func TestCommentable(t *testing.T) {
	f, err := ParsePatch("a.go", twoHunks)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name        string
		side        string
		start, line int
		want        bool
	}{
		{"added line", Right, 0, 12, true},
		{"context line right", Right, 0, 10, true},
		{"last line of first hunk", Right, 0, 17, true},
		{"between hunks right", Right, 0, 20, false},
		{"before first hunk", Right, 0, 9, false},
		{"second hunk added", Right, 0, 42, true},
		{"deleted line left", Left, 0, 12, true},
		{"left between hunks", Left, 0, 30, false},
		{"left second hunk", Left, 0, 42, true},
		{"range inside hunk", Right, 11, 15, true},
		{"range across hunks", Right, 15, 42, false},
		{"range start outside diff", Right, 5, 12, false},
		{"range on left", Left, 12, 16, true},
		{"start equals line", Right, 12, 12, true},
		{"start after line", Right, 13, 12, false},
		{"bad side", "UP", 0, 12, false},
		{"line zero", Right, 0, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := f.Commentable(c.side, c.start, c.line); got != c.want {
				t.Fatalf("Commentable(%s, %d, %d) = %v, want %v", c.side, c.start, c.line, got, c.want)
			}
		})
	}
}

func TestParsePatchShapes(t *testing.T) {
	cases := []struct {
		name    string
		patch   string
		want    []Hunk
		wantErr bool
	}{
		{
			name:  "new file",
			patch: "@@ -0,0 +1,3 @@\n+a\n+b\n+c",
			want:  []Hunk{{OldStart: 0, OldLines: 0, NewStart: 1, NewLines: 3, Left: Span{1, 0}, Right: Span{1, 3}}},
		},
		{
			name:  "deleted file",
			patch: "@@ -1,2 +0,0 @@\n-a\n-b\n",
			want:  []Hunk{{OldStart: 1, OldLines: 2, NewStart: 0, NewLines: 0, Left: Span{1, 2}, Right: Span{1, 0}}},
		},
		{
			name:  "counts omitted",
			patch: "@@ -3 +3 @@\n-x\n+y",
			want:  []Hunk{{OldStart: 3, OldLines: 1, NewStart: 3, NewLines: 1, Left: Span{3, 3}, Right: Span{3, 3}}},
		},
		{
			name:  "file headers skipped",
			patch: "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n-x\n+y",
			want:  []Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Left: Span{1, 1}, Right: Span{1, 1}}},
		},
		{
			name:  "crlf lines",
			patch: "@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n",
			want:  []Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2, Left: Span{1, 2}, Right: Span{1, 2}}},
		},
		{
			name:  "blank context line without its space",
			patch: "@@ -1,3 +1,3 @@\n a\n\n-b\n+c",
			want:  []Hunk{{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 3, Left: Span{1, 3}, Right: Span{1, 3}}},
		},
		{name: "bad header", patch: "@@ -x +1 @@\n+a", wantErr: true},
		{name: "header without end", patch: "@@ -1,1 +1,1\n+a", wantErr: true},
		{name: "bad prefix", patch: "@@ -1,1 +1,1 @@\n*a", wantErr: true},
		{name: "negative count", patch: "@@ -1,-1 +1,1 @@\n+a", wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := ParsePatch("x", c.patch)
			if c.wantErr {
				if err == nil {
					t.Fatalf("accepted %q", c.patch)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, f.Hunks); d != "" {
				t.Fatalf("hunks (-want +got):\n%s", d)
			}
		})
	}
}

func TestMap(t *testing.T) {
	m := New([]FileInfo{
		{Path: "a.go", Status: "modified", Patch: twoHunks, Additions: 4, Deletes: 4},
		{Path: "logo.png", Status: "added", Additions: 0, Deletes: 0},         // binary
		{Path: "big.sql", Status: "modified", Additions: 90000, Deletes: 3},   // too large
		{Path: "new/name.go", PreviousPath: "old/name.go", Status: "renamed"}, // rename only
		{Path: "moved.go", PreviousPath: "m.go", Status: "renamed", Patch: "@@ -1 +1 @@\n-a\n+b", Additions: 1, Deletes: 1},
		{Path: "broken.go", Status: "modified", Patch: "@@ nonsense", Additions: 1},
	})
	if got, want := m.Len(), 6; got != want {
		t.Fatalf("Len = %d, want %d", got, want)
	}
	if d := cmp.Diff([]string{"logo.png", "big.sql"}, m.Skipped()); d != "" {
		t.Fatalf("skipped (-want +got):\n%s", d)
	}
	cases := []struct {
		name, path string
		line       int
		want       bool
	}{
		{"patched file", "a.go", 12, true},
		{"binary file", "logo.png", 1, false},
		{"too large", "big.sql", 1, false},
		{"rename without changes", "new/name.go", 1, false},
		{"rename with changes", "moved.go", 1, true},
		{"unparsable patch", "broken.go", 1, false},
		{"file not in the PR", "other.go", 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := m.Commentable(c.path, Right, 0, c.line); got != c.want {
				t.Fatalf("Commentable(%s:%d) = %v, want %v", c.path, c.line, got, c.want)
			}
		})
	}
	if !m.Has("logo.png") || m.Has("other.go") {
		t.Fatal("Has is wrong")
	}
}

// FuzzParsePatch checks that any patch either fails cleanly or yields hunks
// whose commentable lines agree with a line-by-line walk of the patch.
func FuzzParsePatch(f *testing.F) {
	f.Add(twoHunks)
	f.Add("@@ -0,0 +1,3 @@\n+a\n+b\n+c")
	f.Add("@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n")
	f.Add("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -5,2 +5,2 @@ x\n a\n-b\n+c")
	f.Fuzz(func(t *testing.T, patch string) {
		file, err := ParsePatch("p", patch)
		if err != nil {
			return
		}
		if strings.Contains(strings.ReplaceAll(patch, "\r", ""), "\n\n") {
			return // blank lines are counted by the hunk's counts; the walk below does not model that
		}
		// Independent walk: the set of shown lines per side.
		right, left := map[int]bool{}, map[int]bool{}
		var o, n int
		in := false
		for _, ln := range strings.Split(patch, "\n") {
			if strings.HasPrefix(ln, "@@") {
				h, _ := parseHeader(ln)
				o, n, in = h.OldStart, h.NewStart, true
				continue
			}
			ln = strings.TrimSuffix(ln, "\r")
			if !in || ln == "" {
				continue
			}
			switch ln[0] {
			case ' ':
				left[o], right[n] = true, true
				o, n = o+1, n+1
			case '-':
				left[o] = true
				o++
			case '+':
				right[n] = true
				n++
			}
		}
		for line := range right {
			if line >= 1 && !file.Commentable(Right, 0, line) {
				t.Fatalf("right line %d shown but not commentable", line)
			}
		}
		for line := range left {
			if line >= 1 && !file.Commentable(Left, 0, line) {
				t.Fatalf("left line %d shown but not commentable", line)
			}
		}
		for _, h := range file.Hunks {
			if h.Right.Last >= h.Right.First && (h.Right.First < 0 || h.Right.Last-h.Right.First > len(patch)) {
				t.Fatalf("right span %v larger than the patch", h.Right)
			}
		}
	})
}

func TestPatchLines(t *testing.T) {
	f, err := ParsePatch("a.go", "@@ -3,3 +3,4 @@ func x\n ctx\n-old\n+new1\n+new2\n ctx2\n\\ No newline at end of file")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[int]string{3: "ctx", 4: "new1", 5: "new2", 6: "ctx2"}, f.Lines(Right)); d != "" {
		t.Errorf("right (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[int]string{3: "ctx", 4: "old", 5: "ctx2"}, f.Lines(Left)); d != "" {
		t.Errorf("left (-want +got):\n%s", d)
	}
	var none *File
	if none.Lines(Right) != nil {
		t.Error("a file the PR does not touch has lines")
	}
}
