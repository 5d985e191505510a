package ghsim

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"
)

// commit is one simulated git commit. Trees are kept whole (path → content):
// the repositories a test builds are small.
type commit struct {
	sha     string
	parents []string
	files   map[string]string
	message string
	author  string // login
	at      time.Time
}

// gitBlobSHA is git's object id of a blob with content c.
func gitBlobSHA(c string) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(c))
	h.Write([]byte(c))
	return hex.EncodeToString(h.Sum(nil))
}

// treeEntry is one entry of a git tree listing.
type treeEntry struct {
	path string // full path from the root
	name string
	typ  string // blob or tree
	sha  string
	size int
}

// trees computes the sha of every directory ("" is the root) of files, and
// the entries of each.
func trees(files map[string]string) (shas map[string]string, entries map[string][]treeEntry) {
	entries = map[string][]treeEntry{"": nil}
	dirs := map[string]bool{"": true}
	for p := range files {
		parts := strings.Split(p, "/")
		for i := 1; i < len(parts); i++ {
			dirs[strings.Join(parts[:i], "/")] = true
		}
	}
	for p, c := range files {
		dir, name := splitPath(p)
		entries[dir] = append(entries[dir], treeEntry{path: p, name: name, typ: "blob", sha: gitBlobSHA(c), size: len(c)})
	}
	// Deepest directories first so subtrees have their sha.
	list := make([]string, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	sort.Slice(list, func(i, j int) bool {
		return strings.Count(list[i], "/") > strings.Count(list[j], "/") || (strings.Count(list[i], "/") == strings.Count(list[j], "/") && list[i] > list[j])
	})
	shas = map[string]string{}
	for _, d := range list {
		es := entries[d]
		sort.Slice(es, func(i, j int) bool { return es[i].name < es[j].name })
		h := sha1.New()
		var body strings.Builder
		for _, e := range es {
			mode := "100644"
			if e.typ == "tree" {
				mode = "40000"
			}
			raw, _ := hex.DecodeString(e.sha)
			body.WriteString(mode + " " + e.name + "\x00" + string(raw))
		}
		fmt.Fprintf(h, "tree %d\x00%s", body.Len(), body.String())
		shas[d] = hex.EncodeToString(h.Sum(nil))
		if d != "" {
			parent, name := splitPath(d)
			entries[parent] = append(entries[parent], treeEntry{path: d, name: name, typ: "tree", sha: shas[d]})
		}
	}
	return shas, entries
}

func splitPath(p string) (dir, name string) {
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}

// diffOp is one line of a line diff.
type diffOp struct {
	kind byte // ' ', '-', '+'
	text string
	old  int // 1-based line in the old file (for ' ' and '-')
	new  int // 1-based line in the new file (for ' ' and '+')
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// lineDiff returns the edit script from a to b (longest common subsequence
// after trimming the common prefix and suffix).
func lineDiff(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	var ops []diffOp
	for i := 0; i < pre; i++ {
		ops = append(ops, diffOp{kind: ' ', text: a[i], old: i + 1, new: i + 1})
	}
	n, m := len(am), len(bm)
	if n*m > 4_000_000 { // too big for the table: replace the middle whole
		for i := range am {
			ops = append(ops, diffOp{kind: '-', text: am[i], old: pre + i + 1})
		}
		for j := range bm {
			ops = append(ops, diffOp{kind: '+', text: bm[j], new: pre + j + 1})
		}
	} else {
		lcs := make([][]int32, n+1)
		for i := range lcs {
			lcs[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if am[i] == bm[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else if lcs[i+1][j] >= lcs[i][j+1] {
					lcs[i][j] = lcs[i+1][j]
				} else {
					lcs[i][j] = lcs[i][j+1]
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && am[i] == bm[j]:
				ops = append(ops, diffOp{kind: ' ', text: am[i], old: pre + i + 1, new: pre + j + 1})
				i++
				j++
			case j < m && (i == n || lcs[i][j+1] > lcs[i+1][j]):
				ops = append(ops, diffOp{kind: '+', text: bm[j], new: pre + j + 1})
				j++
			default:
				ops = append(ops, diffOp{kind: '-', text: am[i], old: pre + i + 1})
				i++
			}
		}
	}
	for k := 0; k < suf; k++ {
		ops = append(ops, diffOp{kind: ' ', text: a[len(a)-suf+k], old: len(a) - suf + k + 1, new: len(b) - suf + k + 1})
	}
	return ops
}

// fileDiff is the diff of one file between two trees.
type fileDiff struct {
	path      string
	status    string // added, removed, modified, renamed
	additions int
	deletions int
	patch     string
	binary    bool   // either side holds a NUL byte: no hunks, no line counts (as git)
	sha       string // blob sha at head ("" when removed)
	// right and left are the lines (new and old numbering) a review comment
	// may be placed on: every line shown in a hunk.
	right map[int]bool
	left  map[int]bool
	// hunks keeps, per shown line, the hunk header offset for diff_hunk.
	hunkOf map[[2]int]string
}

const diffContext = 3

// diffFile computes the unified diff of one file.
func diffFile(path, oldContent, newContent string, oldExists, newExists bool) *fileDiff {
	fd := &fileDiff{path: path, right: map[int]bool{}, left: map[int]bool{}, hunkOf: map[[2]int]string{}}
	switch {
	case !oldExists:
		fd.status = "added"
	case !newExists:
		fd.status = "removed"
	default:
		fd.status = "modified"
	}
	if newExists {
		fd.sha = gitBlobSHA(newContent)
	} else {
		fd.sha = gitBlobSHA(oldContent)
	}
	if isBinary(oldContent) || isBinary(newContent) {
		fd.binary = true
		return fd
	}
	ops := lineDiff(splitLines(oldContent), splitLines(newContent))
	// Group changes into hunks with context.
	var changed []int
	for i, op := range ops {
		if op.kind != ' ' {
			changed = append(changed, i)
		}
	}
	if len(changed) == 0 {
		return fd
	}
	type span struct{ from, to int }
	var spans []span
	for _, c := range changed {
		from, to := max(0, c-diffContext), min(len(ops)-1, c+diffContext)
		if len(spans) > 0 && from <= spans[len(spans)-1].to+1 {
			spans[len(spans)-1].to = max(spans[len(spans)-1].to, to)
			continue
		}
		spans = append(spans, span{from, to})
	}
	var b strings.Builder
	for _, sp := range spans {
		oldStart, newStart, oldN, newN := 0, 0, 0, 0
		for _, op := range ops[sp.from : sp.to+1] {
			if op.kind != '+' {
				if oldStart == 0 {
					oldStart = op.old
				}
				oldN++
			}
			if op.kind != '-' {
				if newStart == 0 {
					newStart = op.new
				}
				newN++
			}
		}
		if oldStart == 0 { // pure addition: git shows the line before
			oldStart = prevOld(ops, sp.from)
		}
		if newStart == 0 {
			newStart = prevNew(ops, sp.from)
		}
		header := fmt.Sprintf("@@ -%s +%s @@", hunkRange(oldStart, oldN), hunkRange(newStart, newN))
		// diff_hunk is the hunk up to the commented line: a prefix of one
		// string per hunk (a copy per line would be quadratic: a 50 MB
		// added file took tens of GB).
		var hb strings.Builder
		hb.WriteString(header)
		type at struct {
			key [2]int
			end int
		}
		var ends []at
		for _, op := range ops[sp.from : sp.to+1] {
			hb.WriteString("\n" + string(op.kind) + op.text)
			end := hb.Len()
			switch op.kind {
			case '+':
				fd.additions++
				fd.right[op.new] = true
				ends = append(ends, at{[2]int{1, op.new}, end})
			case '-':
				fd.deletions++
				fd.left[op.old] = true
				ends = append(ends, at{[2]int{0, op.old}, end})
			default:
				fd.right[op.new] = true
				fd.left[op.old] = true
				ends = append(ends, at{[2]int{1, op.new}, end}, at{[2]int{0, op.old}, end})
			}
		}
		hunk := hb.String()
		for _, e := range ends {
			fd.hunkOf[e.key] = hunk[:e.end]
		}
		b.WriteString(hunk + "\n")
	}
	fd.patch = strings.TrimSuffix(b.String(), "\n")
	return fd
}

// isBinary is git's test: a NUL byte in the first 8000 bytes.
func isBinary(content string) bool {
	return strings.IndexByte(content[:min(len(content), 8000)], 0) >= 0
}

func prevOld(ops []diffOp, i int) int {
	for k := i - 1; k >= 0; k-- {
		if ops[k].kind != '+' {
			return ops[k].old
		}
	}
	return 0
}

func prevNew(ops []diffOp, i int) int {
	for k := i - 1; k >= 0; k-- {
		if ops[k].kind != '-' {
			return ops[k].new
		}
	}
	return 0
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// diffTrees diffs every file between two trees, sorted by path.
func diffTrees(oldFiles, newFiles map[string]string) []*fileDiff {
	paths := map[string]bool{}
	for p := range oldFiles {
		paths[p] = true
	}
	for p := range newFiles {
		paths[p] = true
	}
	list := make([]string, 0, len(paths))
	for p := range paths {
		list = append(list, p)
	}
	sort.Strings(list)
	var out []*fileDiff
	for _, p := range list {
		oc, oe := oldFiles[p]
		nc, ne := newFiles[p]
		if oe && ne && oc == nc {
			continue
		}
		out = append(out, diffFile(p, oc, nc, oe, ne))
	}
	return out
}

// unifiedDiff renders diffs the way `git diff` (and GitHub's .diff) does.
func unifiedDiff(fds []*fileDiff) string {
	var b strings.Builder
	for _, fd := range fds {
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n", fd.path, fd.path)
		oldName, newName := "a/"+fd.path, "b/"+fd.path
		switch fd.status {
		case "added":
			b.WriteString("new file mode 100644\n")
			oldName = "/dev/null"
		case "removed":
			b.WriteString("deleted file mode 100644\n")
			newName = "/dev/null"
		}
		if fd.binary {
			fmt.Fprintf(&b, "Binary files %s and %s differ\n", oldName, newName)
			continue
		}
		fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldName, newName)
		if fd.patch != "" {
			b.WriteString(fd.patch + "\n")
		}
	}
	return b.String()
}

// mapLine follows line (new-side numbering of oldContent) to newContent.
// ok is false when the line itself, or one of its neighbours within the
// thread's hunk, changed: the thread is then outdated.
func mapLine(oldContent, newContent string, line int) (int, bool) {
	ops := lineDiff(splitLines(oldContent), splitLines(newContent))
	for i, op := range ops {
		if op.kind == '+' || op.old != line {
			continue
		}
		if op.kind == '-' {
			return 0, false
		}
		// Changed lines right next to it also outdate it (GitHub compares the hunk).
		if (i > 0 && ops[i-1].kind != ' ') || (i+1 < len(ops) && ops[i+1].kind != ' ') {
			return 0, false
		}
		return op.new, true
	}
	return 0, false
}
