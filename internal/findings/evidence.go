package findings

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/chakshu-dev/chakshu/internal/redact"
)

// Limits on a finding's evidence quote. A quote is one or a few lines of
// code: long enough to be found in one place, short enough to be a quote
// rather than a copy of the file.
const (
	MaxEvidenceBytes = 2_000
	MaxEvidenceLines = 10
	// MinEvidenceChars is the least number of characters other than white
	// space: "}" or ");" is found on almost any line and proves nothing.
	MinEvidenceChars = 3
	// EvidenceWindow is how far (in lines) from the lines the agent named a
	// quote may be found for the finding to be moved there; farther, or
	// not in the file at all, the finding is dropped.
	EvidenceWindow = 10
)

// Reasons an evidence check drops a finding (Finding.dropped_reason).
const (
	DropEvidenceMissing = "evidence not in file"
	DropEvidenceFar     = "evidence not near its line"
)

// validEvidence checks a quote's shape (not whether it is in the file).
func validEvidence(e string) error {
	switch {
	case len(e) > MaxEvidenceBytes:
		return fmt.Errorf("at most %d bytes", MaxEvidenceBytes)
	case strings.ContainsRune(e, 0):
		return errors.New("must be text")
	case len(quoteLines(e)) > MaxEvidenceLines:
		return fmt.Errorf("at most %d lines", MaxEvidenceLines)
	}
	n := 0
	for _, r := range e {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	if n < MinEvidenceChars {
		return fmt.Errorf("at least %d characters besides white space: quote the code the finding rests on", MinEvidenceChars)
	}
	return nil
}

// RequireEvidence refuses a result with a finding that carries no evidence:
// chakshu-action asks for it, and the server requires it from runners of
// protocol 2 and later.
func (r *Result) RequireEvidence() error {
	for i := range r.Findings {
		f := &r.Findings[i]
		if strings.TrimSpace(f.Evidence) == "" {
			return fmt.Errorf("findings[%d]: evidence: required: quote the line(s) of %s the finding rests on, exactly as they are in the file", i, f.Path)
		}
	}
	return nil
}

// RequireFromAgent refuses what only an evidence check may set.
func (r *Result) RequireFromAgent() error {
	for i := range r.Findings {
		if r.Findings[i].EvidenceMovedFrom != 0 {
			return fmt.Errorf("findings[%d]: evidence_moved_from: not a field of the result", i)
		}
	}
	return nil
}

// EvidenceVerdict is what an evidence check decided for one finding.
type EvidenceVerdict string

// Verdicts.
const (
	EvidenceKept    EvidenceVerdict = "kept"
	EvidenceMoved   EvidenceVerdict = "moved"
	EvidenceDropped EvidenceVerdict = "dropped"
	// EvidenceUnchecked: the finding carries no evidence (an older runner).
	EvidenceUnchecked EvidenceVerdict = "unchecked"
)

// EvidenceCheck is the outcome of checking one finding's quote.
type EvidenceCheck struct {
	Verdict EvidenceVerdict
	// Start and End are the quote's lines in the file (1-based) when found.
	Start, End int
	// Reason is set when dropped (one of the Drop* reasons).
	Reason string
}

// CheckEvidence looks for f's quote in content (the file f is about, at the
// side's commit) and decides:
//   - kept: the quote is on the lines f names (it overlaps start_line..line);
//   - moved: the nearest place it is found lies within EvidenceWindow lines
//     of them, so the agent miscounted;
//   - dropped: it is not in the file, or only farther away.
//
// Matching ignores white space at the start and end of each line (a quote
// may lose its indentation or carry a CR) and a quote may begin or end
// within a line: it must be a substring of the file so normalised.
func CheckEvidence(content string, f *Finding) EvidenceCheck {
	if strings.TrimSpace(f.Evidence) == "" {
		return EvidenceCheck{Verdict: EvidenceUnchecked}
	}
	return check(strings.Split(content, "\n"), f)
}

// check is checkIn; for a quote the server masked (a credential in the
// quoted line, Result.Redact) checkIn over the file masked line by line; and
// for a quote copied from the diff with its markers ("+" or "-" opening
// every line) the same without them.
func check(lines []string, f *Finding) EvidenceCheck {
	c := checkMasked(lines, f)
	if c.Verdict != EvidenceDropped {
		return c
	}
	if q, ok := unmarked(f.Evidence); ok {
		g := *f
		g.Evidence = q
		if u := checkMasked(lines, &g); u.Verdict != EvidenceDropped || c.Reason == DropEvidenceMissing {
			return u
		}
	}
	return c
}

// unmarked strips the diff markers of a quote copied from a unified diff:
// every non-blank line opens with "+" or "-" (a context line's " " is white
// space, ignored anyway). ok is false for any other quote.
func unmarked(e string) (string, bool) {
	ls := strings.Split(e, "\n")
	n := 0
	for i, l := range ls {
		t := strings.TrimLeft(l, " \t")
		switch {
		case strings.TrimSpace(l) == "":
			continue
		case len(l) > 0 && (l[0] == '+' || l[0] == '-'):
			ls[i] = l[1:]
			n++
		case len(t) < len(l):
			// a context line of the diff
		default:
			return "", false
		}
	}
	return strings.Join(ls, "\n"), n > 0
}

// checkMasked is checkIn, then over the masked file for a masked quote.
func checkMasked(lines []string, f *Finding) EvidenceCheck {
	c := checkIn(lines, f)
	if c.Verdict != EvidenceDropped || !strings.Contains(f.Evidence, redact.Mask) {
		return c
	}
	masked := make([]string, len(lines))
	for i, l := range lines {
		masked[i] = redact.String(l)
	}
	if m := checkIn(masked, f); m.Verdict != EvidenceDropped || c.Reason == DropEvidenceMissing {
		return m
	}
	return c
}

// unknownLine stands for a line of the file not known (a quote holds no NUL).
const unknownLine = "\x00"

// CheckEvidenceKnown is CheckEvidence over the lines known of a file (line
// number → text; a patch shows only the lines around its changes). Unknown
// lines never match. It reports whether the verdict is final: kept, or
// moved with every line within EvidenceWindow of the finding known. Any
// other verdict needs the whole file.
func CheckEvidenceKnown(known map[int]string, f *Finding) (EvidenceCheck, bool) {
	if strings.TrimSpace(f.Evidence) == "" {
		return EvidenceCheck{Verdict: EvidenceUnchecked}, true
	}
	last := 0
	for n := range known {
		last = max(last, n)
	}
	lines := make([]string, last)
	for i := range lines {
		t, ok := known[i+1]
		if !ok {
			t = unknownLine
		}
		lines[i] = t
	}
	c := check(lines, f)
	switch c.Verdict {
	case EvidenceKept:
		return c, true
	case EvidenceMoved:
		first := f.Line
		if f.StartLine > 0 {
			first = f.StartLine
		}
		for n := max(1, first-EvidenceWindow); n <= f.Line+EvidenceWindow; n++ {
			if _, ok := known[n]; !ok {
				return c, false
			}
		}
		return c, true
	}
	return c, false
}

// checkIn checks f's quote against the file's lines.
func checkIn(lines []string, f *Finding) EvidenceCheck {
	q := quoteLines(f.Evidence)
	first := f.Line
	if f.StartLine > 0 {
		first = f.StartLine
	}
	best, bestDist := -1, -1
	for _, at := range locate(lines, q) {
		s, e := at+1, at+len(q)
		d := 0
		switch {
		case e < first:
			d = first - e
		case s > f.Line:
			d = s - f.Line
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = at, d
		}
		if d == 0 {
			break
		}
	}
	switch {
	case best < 0:
		return EvidenceCheck{Verdict: EvidenceDropped, Reason: DropEvidenceMissing}
	case bestDist == 0:
		return EvidenceCheck{Verdict: EvidenceKept, Start: best + 1, End: best + len(q)}
	case bestDist <= EvidenceWindow:
		return EvidenceCheck{Verdict: EvidenceMoved, Start: best + 1, End: best + len(q)}
	}
	return EvidenceCheck{Verdict: EvidenceDropped, Start: best + 1, End: best + len(q), Reason: DropEvidenceFar}
}

// MoveTo puts f on the lines of a moved check and records where it was.
// A suggestion replaces the lines it was written for: it stays only when
// the new range has as many lines as the old.
func (f *Finding) MoveTo(c EvidenceCheck) {
	if c.Verdict != EvidenceMoved {
		return
	}
	oldLen := 1
	if f.StartLine > 0 {
		oldLen = f.Line - f.StartLine + 1
	}
	if f.EvidenceMovedFrom == 0 {
		f.EvidenceMovedFrom = f.Line
	}
	f.Line, f.StartLine = c.End, 0
	if c.Start < c.End {
		f.StartLine = c.Start
	}
	if f.Suggestion != nil && c.End-c.Start+1 != oldLen {
		f.Suggestion = nil
	}
}

// quoteLines splits a quote into its lines, trimmed, without blank lines at
// either end.
func quoteLines(e string) []string {
	ls := strings.Split(e, "\n")
	for i := range ls {
		ls[i] = strings.TrimSpace(ls[i])
	}
	for len(ls) > 0 && ls[0] == "" {
		ls = ls[1:]
	}
	for len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// locate returns every 0-based line where the quote q (trimmed lines)
// starts in lines: one line is found inside a line; several must end the
// first line, equal the middle ones and begin the last.
func locate(lines []string, q []string) []int {
	if len(q) == 0 {
		return nil
	}
	var out []int
	for i := 0; i+len(q) <= len(lines); i++ {
		if matchAt(lines, i, q) {
			out = append(out, i)
		}
	}
	return out
}

func matchAt(lines []string, i int, q []string) bool {
	if len(q) == 1 {
		return strings.Contains(strings.TrimSpace(lines[i]), q[0])
	}
	for k, ql := range q {
		l := strings.TrimSpace(lines[i+k])
		switch {
		case k == 0:
			if !strings.HasSuffix(l, ql) {
				return false
			}
		case k == len(q)-1:
			if !strings.HasPrefix(l, ql) {
				return false
			}
		default:
			if l != ql {
				return false
			}
		}
	}
	return true
}
