package findings

import (
	"strings"

	"github.com/hbollon/go-edlib"
)

// The rule that decides "these are the same finding" (issue 41 item 2),
// used wherever Chakshu compares findings: the vote of a review in several
// passes, publishing (a finding already open on the PR is not posted
// again), outcomes and backtests. A real model rewords a finding between
// passes and between runs and moves it by a line or two; the hidden ID
// (path, category, normalised title) changes with every rewording, so it
// stays only the marker that ties a posted thread to its finding.
//
// Two findings are the same when all of these hold:
//
//  1. Location: the same path and side, and their line ranges
//     (start_line..line) overlap; or they are within NearLines of each
//     other and quote the same code (their evidence, white space folded,
//     is equal or one holds the other, or one has none). A model names
//     the first line of a statement in one pass and its last in the next
//     but quotes the same code; two findings of one kind a few lines
//     apart that quote different code (two ignored errors) stay two.
//  2. Meaning: their text is similar. Similarity is the Sørensen–Dice
//     coefficient of the sets of character trigrams (go-edlib's
//     SorensenDiceCoefficient with k = 3) of the normalised text
//     (NormaliseTitle: lower case, letters and digits, single spaces;
//     then without words of one or two letters and common function
//     words), taken on the titles and on title and body together, the higher of
//     the two. Character trigrams match a reworded finding that keeps its
//     key words in other forms ("unchecked error" / "error is not
//     checked"), which word sets miss.
//  3. The bar: SameCategoryBar when the categories are equal (after
//     trimming and lower-casing) or either is empty, OtherCategoryBar
//     otherwise. Two findings a few lines apart in one category that
//     speak of the same thing in other words are the same; a finding of
//     another category on the same line needs most of its wording in
//     common, so "same line, different issue" stays two findings.
//
// Two findings with one hidden ID that quote the same code are the same
// finding wherever in the file they are (a later commit moved the code).
const (
	// NearLines is how far apart two findings' lines may be and still be
	// one finding: a model quoting a statement names its first line in one
	// pass and its last in the next.
	NearLines = 3
	// SameCategoryBar and OtherCategoryBar are the similarities (0..1) at
	// or above which two nearby findings are the same.
	SameCategoryBar  = 0.25
	OtherCategoryBar = 0.5
	// trigram is the shingle length of the similarity.
	trigram = 3
)

// Same reports whether a and b are the same finding by the rule above.
func Same(a, b *Finding) bool {
	if a.Path != b.Path || side(a) != side(b) {
		return false
	}
	if a.ID() == b.ID() && sameQuote(a.Evidence, b.Evidence) {
		return true
	}
	if !overlap(a, b, 0) && !(overlap(a, b, NearLines) && sameQuote(a.Evidence, b.Evidence)) {
		return false
	}
	bar := OtherCategoryBar
	if ca, cb := normCategory(a.Category), normCategory(b.Category); ca == cb || ca == "" || cb == "" {
		bar = SameCategoryBar
	}
	return Similarity(a, b) >= bar
}

// Similarity is the text similarity of a and b (0..1) the rule uses: the
// higher of the Sørensen–Dice coefficients of the character trigrams of
// their normalised titles and of their normalised titles and bodies.
func Similarity(a, b *Finding) float64 {
	ta, tb := content(a.Title), content(b.Title)
	title := dice(ta, tb)
	ba, bb := content(a.Body), content(b.Body)
	if len(strings.Fields(ba)) < minBodyWords || len(strings.Fields(bb)) < minBodyWords {
		return title // a body of a word or two ("Because.") says nothing to compare
	}
	return max(title, dice(ta+" "+ba, tb+" "+bb))
}

// minBodyWords is how many content words each body needs for the bodies to
// count in Similarity.
const minBodyWords = 3

// content is s normalised (NormaliseTitle) without the words that say
// nothing of a finding's meaning: words of one or two letters and the
// common function words of stopWords. Left in, they give any two English
// sentences trigrams in common.
func content(s string) string {
	words := strings.Fields(NormaliseTitle(s))
	kept := words[:0]
	for _, w := range words {
		if len(w) > 2 && !stopWords[w] {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and for that this with from are was were has have had not but its
		which when where what who will would can could may might should must been being into onto than then
		there here they them their these those does did done any all also just only some such very more most
		use used using here your you our out per via`) {
		m[w] = true
	}
	return m
}()

func dice(a, b string) float64 {
	if a == "" || b == "" {
		return 0
	}
	if a == b {
		return 1
	}
	return float64(edlib.SorensenDiceCoefficient(a, b, trigram))
}

func side(f *Finding) string {
	if f.Side == "" {
		return "RIGHT"
	}
	return f.Side
}

func normCategory(c string) string { return strings.ToLower(strings.TrimSpace(c)) }

// lines is f's line range, start_line..line (line alone without a start).
func lines(f *Finding) (int, int) {
	if f.StartLine > 0 && f.StartLine <= f.Line {
		return f.StartLine, f.Line
	}
	return f.Line, f.Line
}

// overlap reports whether a's and b's line ranges overlap once widened by
// by lines.
func overlap(a, b *Finding, by int) bool {
	as, ae := lines(a)
	bs, be := lines(b)
	return as-by <= be && bs-by <= ae
}

// sameQuote reports whether two evidence quotes are of the same code: white
// space folded, equal or one inside the other; a missing quote says nothing
// against it.
func sameQuote(a, b string) bool {
	a, b = strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " ")
	if a == "" || b == "" {
		return true
	}
	return strings.Contains(a, b) || strings.Contains(b, a)
}

// Group partitions fs into groups of the same finding: each group lists
// indexes into fs, in order, and the groups are in the order of their first
// finding. A finding joins the first group that has a member it is the Same
// as; so a group is connected by the rule even where two of its members,
// far apart in wording, would not be the same on their own.
func Group(fs []Finding) [][]int {
	var groups [][]int
	for i := range fs {
		joined := -1
		for g := range groups {
			for _, j := range groups[g] {
				if Same(&fs[i], &fs[j]) {
					joined = g
					break
				}
			}
			if joined >= 0 {
				break
			}
		}
		if joined >= 0 {
			groups[joined] = append(groups[joined], i)
		} else {
			groups = append(groups, []int{i})
		}
	}
	return groups
}
