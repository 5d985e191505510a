package diffmap

import (
	"fmt"
	"strings"
)

// Change is one run of consecutive deleted and added lines of a patch: the
// old file's lines Old.First..Old.Last were replaced by Added. A pure
// insertion has an empty Old (Last < First) whose First is the old line the
// added lines were put before.
type Change struct {
	Old   Span
	Added []string
}

// Touches reports whether the change alters old lines lo..hi: it deletes
// one of them, or inserts lines between two of them.
func (c Change) Touches(lo, hi int) bool {
	if c.Old.Last >= c.Old.First {
		return c.Old.First <= hi && c.Old.Last >= lo
	}
	return c.Old.First > lo && c.Old.First <= hi
}

// Changes lists the changes of one file's patch (as GitHub's compare and
// pull request files APIs return it), in order.
func Changes(patch string) ([]Change, error) {
	var out []Change
	var cur *Change
	inHunk := false
	oldLine := 0
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for i, ln := range strings.Split(patch, "\n") {
		if strings.HasPrefix(ln, "@@") {
			flush()
			h, err := parseHeader(ln)
			if err != nil {
				return nil, fmt.Errorf("patch line %d: %w", i+1, err)
			}
			oldLine, inHunk = h.OldStart, true
			if h.OldLines == 0 {
				oldLine++ // "-k,0": the lines go after old line k
			}
			continue
		}
		ln = strings.TrimSuffix(ln, "\r")
		if !inHunk || ln == "" {
			flush()
			if inHunk && ln == "" {
				oldLine++ // a context line whose space was stripped
			}
			continue
		}
		switch ln[0] {
		case '-':
			if cur == nil {
				cur = &Change{Old: Span{First: oldLine, Last: oldLine - 1}}
			}
			cur.Old.Last = oldLine
			oldLine++
		case '+':
			if cur == nil {
				cur = &Change{Old: Span{First: oldLine, Last: oldLine - 1}}
			}
			cur.Added = append(cur.Added, ln[1:])
		case '\\':
		default:
			flush()
			oldLine++
		}
	}
	flush()
	return out, nil
}
