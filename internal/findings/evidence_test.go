package findings

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// evidenceFile has numbered lines "line N" with a few distinct ones.
func evidenceFile() string {
	var b strings.Builder
	for i := 1; i <= 60; i++ {
		switch i {
		case 20:
			b.WriteString("\tq := \"SELECT \" + id\r\n")
		case 21:
			b.WriteString("\trows, err := db.Query(q)\n")
		case 45:
			b.WriteString("    key := \"AKIAIOSFODNN7EXAMPLE\"\n")
		default:
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	return b.String()
}

func TestCheckEvidence(t *testing.T) {
	file := evidenceFile()
	cases := []struct {
		name      string
		line      int
		start     int
		evidence  string
		want      EvidenceCheck
		wantLine  int
		wantStart int
	}{
		{"on its line", 20, 0, `q := "SELECT " + id`, EvidenceCheck{Verdict: EvidenceKept, Start: 20, End: 20}, 20, 0},
		{"part of the line", 20, 0, `"SELECT " + id`, EvidenceCheck{Verdict: EvidenceKept, Start: 20, End: 20}, 20, 0},
		{"indentation and CR ignored", 20, 0, "   q := \"SELECT \" + id   \r", EvidenceCheck{Verdict: EvidenceKept, Start: 20, End: 20}, 20, 0},
		{"inside a named range", 22, 19, `rows, err := db.Query(q)`, EvidenceCheck{Verdict: EvidenceKept, Start: 21, End: 21}, 22, 19},
		{"two lines", 21, 20, "+ id\nrows, err :=", EvidenceCheck{Verdict: EvidenceKept, Start: 20, End: 21}, 21, 20},
		{"one below: moved", 21, 0, `q := "SELECT " + id`, EvidenceCheck{Verdict: EvidenceMoved, Start: 20, End: 20}, 20, 0},
		{"window below: moved", 30, 0, `q := "SELECT " + id`, EvidenceCheck{Verdict: EvidenceMoved, Start: 20, End: 20}, 20, 0},
		{"one past the window below: dropped", 31, 0, `q := "SELECT " + id`, EvidenceCheck{Verdict: EvidenceDropped, Start: 20, End: 20, Reason: DropEvidenceFar}, 31, 0},
		{"window above: moved", 10, 0, `q := "SELECT " + id`, EvidenceCheck{Verdict: EvidenceMoved, Start: 20, End: 20}, 20, 0},
		{"one past the window above: dropped", 9, 0, `q := "SELECT " + id`, EvidenceCheck{Verdict: EvidenceDropped, Start: 20, End: 20, Reason: DropEvidenceFar}, 9, 0},
		{"moved onto two lines", 24, 0, "\"SELECT \" + id\nrows, err", EvidenceCheck{Verdict: EvidenceMoved, Start: 20, End: 21}, 21, 20},
		{"not in the file", 20, 0, `q := "SELECT * " + id`, EvidenceCheck{Verdict: EvidenceDropped, Reason: DropEvidenceMissing}, 20, 0},
		{"middle line must be whole", 21, 19, "line 19\nq := \"SELECT\nrows", EvidenceCheck{Verdict: EvidenceDropped, Reason: DropEvidenceMissing}, 21, 19},
		{"nearest of two", 13, 0, "line 1", EvidenceCheck{Verdict: EvidenceKept, Start: 13, End: 13}, 13, 0},
		{"masked credential", 45, 0, `key := "[REDACTED]"`, EvidenceCheck{Verdict: EvidenceKept, Start: 45, End: 45}, 45, 0},
		{"masked quote of another line", 45, 0, `token := "[REDACTED]"`, EvidenceCheck{Verdict: EvidenceDropped, Reason: DropEvidenceMissing}, 45, 0},
		{"no evidence", 45, 0, "", EvidenceCheck{Verdict: EvidenceUnchecked}, 45, 0},
		{"copied from the diff", 21, 0, "+\tq := \"SELECT \" + id\n+\trows, err := db.Query(q)", EvidenceCheck{Verdict: EvidenceKept, Start: 20, End: 21}, 21, 0},
		{"diff context line kept as is", 21, 0, " line 19\n+\tq := \"SELECT \" + id", EvidenceCheck{Verdict: EvidenceMoved, Start: 19, End: 20}, 20, 19},
		{"a marker on some lines only is not a diff", 21, 0, "+\tq := \"SELECT \" + id\nrows, err := db.Query(q)", EvidenceCheck{Verdict: EvidenceDropped, Reason: DropEvidenceMissing}, 21, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &Finding{Path: "a.go", Line: c.line, StartLine: c.start, Evidence: c.evidence}
			got := CheckEvidence(file, f)
			if d := cmp.Diff(c.want, got); d != "" {
				t.Fatalf("check (-want +got):\n%s", d)
			}
			f.MoveTo(got)
			if f.Line != c.wantLine || f.StartLine != c.wantStart {
				t.Fatalf("after MoveTo: lines %d-%d, want %d-%d", f.StartLine, f.Line, c.wantStart, c.wantLine)
			}
			moved := 0
			if got.Verdict == EvidenceMoved {
				moved = c.line
			}
			if f.EvidenceMovedFrom != moved {
				t.Fatalf("evidence_moved_from = %d, want %d", f.EvidenceMovedFrom, moved)
			}
		})
	}
}

func TestMoveToKeepsSuggestionOfSameLength(t *testing.T) {
	s := "fixed"
	f := &Finding{Line: 23, Evidence: "x", Suggestion: &s}
	f.MoveTo(EvidenceCheck{Verdict: EvidenceMoved, Start: 20, End: 20})
	if f.Suggestion == nil || f.Line != 20 || f.EvidenceMovedFrom != 23 {
		t.Fatalf("one line to one line: %+v", f)
	}
	f.MoveTo(EvidenceCheck{Verdict: EvidenceMoved, Start: 10, End: 11})
	if f.Suggestion != nil {
		t.Fatal("a suggestion for one line stayed on a two-line range")
	}
	if f.EvidenceMovedFrom != 23 {
		t.Fatalf("a second move forgot the agent's line: %d", f.EvidenceMovedFrom)
	}
}

func TestCheckEvidenceKnown(t *testing.T) {
	lines := strings.Split(evidenceFile(), "\n")
	known := func(from, to int) map[int]string {
		m := map[int]string{}
		for n := from; n <= to; n++ {
			m[n] = lines[n-1]
		}
		return m
	}
	q := `q := "SELECT " + id`
	cases := []struct {
		name  string
		known map[int]string
		line  int
		want  EvidenceVerdict
		final bool
	}{
		{"kept in the patch", known(17, 23), 20, EvidenceKept, true},
		{"moved with the window known", known(1, 40), 25, EvidenceMoved, true},
		{"moved with part of the window unknown", known(17, 26), 25, EvidenceMoved, false},
		{"not in the patch", known(30, 40), 35, EvidenceDropped, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, final := CheckEvidenceKnown(c.known, &Finding{Line: c.line, Evidence: q})
			if got.Verdict != c.want || final != c.final {
				t.Fatalf("got %s final=%v, want %s final=%v", got.Verdict, final, c.want, c.final)
			}
		})
	}
}

func TestEvidenceValidation(t *testing.T) {
	base := func(e string) *Finding {
		return &Finding{Path: "a.go", Line: 1, Severity: Minor, Title: "t", Evidence: e}
	}
	lines := func(n int) string { return strings.TrimSuffix(strings.Repeat("abc\n", n), "\n") }
	cases := []struct {
		name     string
		evidence string
		ok       bool
	}{
		{"absent (older runners)", "", true},
		{"three characters", "a b c", true},
		{"two characters", " }; ", false},
		{"max lines", lines(MaxEvidenceLines), true},
		{"one line too many", lines(MaxEvidenceLines + 1), false},
		{"blank lines around do not count", "\n\n" + lines(MaxEvidenceLines) + "\n\n", true},
		{"max bytes", strings.Repeat("x", MaxEvidenceBytes), true},
		{"one byte too many", strings.Repeat("x", MaxEvidenceBytes+1), false},
		{"NUL", "abc\x00", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := base(c.evidence).Validate()
			if (err == nil) != c.ok {
				t.Fatalf("Validate = %v, want ok=%v", err, c.ok)
			}
		})
	}
	r := &Result{Findings: []Finding{*base("x := 1"), *base("")}}
	if err := r.RequireEvidence(); err == nil || !strings.Contains(err.Error(), "findings[1]: evidence: required") {
		t.Fatalf("RequireEvidence = %v", err)
	}
	if err := (&Result{Findings: []Finding{{Evidence: "abc", EvidenceMovedFrom: 3}}}).RequireFromAgent(); err == nil {
		t.Fatal("an agent's evidence_moved_from was accepted")
	}
}

// FuzzLocate compares locate with an independent statement: the quote,
// trimmed line by line, is a substring of the file trimmed line by line
// (joined with newlines).
func FuzzLocate(f *testing.F) {
	f.Add("a\n  b c\nd", "b c\nd")
	f.Add("x := 1\ny := 2", ":= 1\ny")
	f.Add("abc\nabc", "c\na")
	f.Fuzz(func(t *testing.T, file, quote string) {
		if strings.ContainsRune(file, 0) || strings.ContainsRune(quote, 0) {
			return
		}
		q := quoteLines(quote)
		if len(q) == 0 {
			return
		}
		fl := strings.Split(file, "\n")
		norm := make([]string, len(fl))
		for i, l := range fl {
			norm[i] = strings.TrimSpace(l)
		}
		want := strings.Contains(strings.Join(norm, "\n"), strings.Join(q, "\n"))
		if got := len(locate(fl, q)) > 0; got != want {
			t.Fatalf("locate(%q, %q) found=%v, substring says %v", file, quote, got, want)
		}
	})
}
