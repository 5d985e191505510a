package runner

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestParseRunIDs(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		lead     int64
		want     string // "" for nil, "error" for an error
	}{
		{"absent: the lead alone", "", 7, ""},
		{"three", "7,8,9", 7, "[7 8 9]"},
		{"spaces", " 7, 8 ", 8, "[7 8]"},
		{"without the lead", "8,9", 7, "error"},
		{"twice", "7,7", 7, "error"},
		{"not a number", "7,x", 7, "error"},
		{"zero", "0,7", 7, "error"},
		{"empty element", "7,,8", 7, "error"},
		{"too many", strings.TrimSuffix(strings.Repeat("7,", 26), ","), 7, "error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRunIDs(tc.in, tc.lead)
			switch {
			case tc.want == "error" && err == nil:
				t.Fatalf("ParseRunIDs(%q) = %v, want an error", tc.in, got)
			case tc.want != "error" && err != nil:
				t.Fatalf("ParseRunIDs(%q): %v", tc.in, err)
			case tc.want == "" && got != nil, tc.want != "" && tc.want != "error" && fmt.Sprint(got) != tc.want:
				t.Fatalf("ParseRunIDs(%q) = %v, want %s", tc.in, got, tc.want)
			}
		})
	}
}

// Reviews writing to the shared log at once: every line whole and marked
// with its run, workflow commands left at the start of their line.
func TestSharedLogKeepsLinesWhole(t *testing.T) {
	var b strings.Builder
	l := &lockedLog{w: &b}
	var wg sync.WaitGroup
	for r := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := l.prefixed(fmt.Sprintf("[run %d] ", r))
			for i := range 50 {
				fmt.Fprintf(p, "line %d ", i)
				fmt.Fprintf(p, "of run %d\n", r)
			}
			fmt.Fprintf(p, "::error::run %d failed\n", r)
			fmt.Fprint(p, "unfinished")
			p.Flush()
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3*52 {
		t.Fatalf("%d lines, want %d", len(lines), 3*52)
	}
	for _, line := range lines {
		var r, i int
		switch {
		case strings.HasPrefix(line, "::error::"):
		case strings.HasSuffix(line, "unfinished"):
		default:
			if n, _ := fmt.Sscanf(line, "[run %d] line %d of run", &r, &i); n != 2 || !strings.HasSuffix(line, fmt.Sprintf("of run %d", r)) {
				t.Fatalf("mixed line %q", line)
			}
		}
	}
}
