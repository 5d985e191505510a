package diffmap

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestChanges(t *testing.T) {
	for _, c := range []struct {
		name, patch string
		want        []Change
	}{
		{"replace one line", "@@ -8,3 +8,3 @@\n l8\n-l9\n+n9\n l10", []Change{{Old: Span{9, 9}, Added: []string{"n9"}}}},
		{"delete two", "@@ -1,4 +1,2 @@\n a\n-b\n-c\n d", []Change{{Old: Span{2, 3}}}},
		{"insert before old line 3", "@@ -1,3 +1,4 @@\n a\n b\n+x\n c", []Change{{Old: Span{3, 2}, Added: []string{"x"}}}},
		{"insert after line 20 (zero-length old range)", "@@ -20,0 +21,2 @@\n+x\n+y", []Change{{Old: Span{21, 20}, Added: []string{"x", "y"}}}},
		{"two hunks", "@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -10,2 +10,2 @@\n j\n-k\n+K\n\\ No newline at end of file",
			[]Change{{Old: Span{1, 1}, Added: []string{"A"}}, {Old: Span{11, 11}, Added: []string{"K"}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Changes(c.patch)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("Changes (-want +got):\n%s", d)
			}
		})
	}
	if _, err := Changes("@@ nonsense"); err == nil {
		t.Error("a malformed hunk header was accepted")
	}
}

func TestChangeTouches(t *testing.T) {
	repl := Change{Old: Span{10, 12}}
	ins := Change{Old: Span{21, 20}} // before old line 21
	for _, c := range []struct {
		c      Change
		lo, hi int
		want   bool
	}{
		{repl, 12, 12, true}, {repl, 13, 15, false}, {repl, 9, 9, false}, {repl, 5, 10, true},
		{ins, 20, 21, true}, {ins, 21, 21, false}, {ins, 20, 20, false}, {ins, 21, 22, false},
	} {
		if got := c.c.Touches(c.lo, c.hi); got != c.want {
			t.Errorf("%+v.Touches(%d, %d) = %v, want %v", c.c, c.lo, c.hi, got, c.want)
		}
	}
}
