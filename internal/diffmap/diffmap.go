// Package diffmap knows which lines of a pull request can carry an inline
// review comment. GitHub accepts a review comment only on a line that appears
// in the file's diff: on the RIGHT side an added or context line, on the LEFT
// side a deleted or context line; a multi-line comment's start_line and line
// must lie in the same hunk, on the same side. Files GitHub sends without a
// patch (binary, too large, renamed without changes) carry no inline comment.
package diffmap

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sides of a diff, as GitHub names them.
const (
	Left  = "LEFT"
	Right = "RIGHT"
)

// Hunk is one "@@ -a,b +c,d @@" section of a patch and the lines it shows.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	// Left and Right are the old-file and new-file lines the hunk shows
	// (deleted and context lines; added and context lines). One side's lines
	// in a hunk are always one contiguous range.
	Left, Right Span
}

// Span is a contiguous range of lines, First..Last; empty when Last < First.
type Span struct{ First, Last int }

func (s *Span) add(line int) {
	if s.Last < s.First {
		s.First, s.Last = line, line
		return
	}
	s.Last = line
}

// Contains reports whether line is in s.
func (s Span) Contains(line int) bool { return line >= s.First && line <= s.Last }

// Has reports whether line of side is shown in the hunk.
func (h *Hunk) Has(side string, line int) bool {
	if side == Left {
		return h.Left.Contains(line)
	}
	return h.Right.Contains(line)
}

// File is one file's diff.
type File struct {
	Path string
	// Hunks are in patch order.
	Hunks []Hunk
	// left and right hold the text of each line the patch shows, by line
	// number in the old and the new version (Lines).
	left, right map[int]string
}

// Lines returns the text of the lines the patch shows on side (Left: the old
// version, Right: the new), by line number; the other lines of the file are
// not in a patch.
func (f *File) Lines(side string) map[int]string {
	if f == nil {
		return nil
	}
	if side == Left {
		return f.left
	}
	return f.right
}

func (f *File) see(m *map[int]string, line int, text string) {
	if *m == nil {
		*m = map[int]string{}
	}
	(*m)[line] = text
}

// ParsePatch parses the unified diff of one file as GitHub's pull request
// files API returns it ("patch": hunks without file headers). Header lines
// before the first hunk (diff --git, index, ---, +++) are skipped.
func ParsePatch(path, patch string) (*File, error) {
	f := &File{Path: path}
	var h *Hunk
	oldLine, newLine := 0, 0
	for i, ln := range strings.Split(patch, "\n") {
		if strings.HasPrefix(ln, "@@") {
			nh, err := parseHeader(ln)
			if err != nil {
				return nil, fmt.Errorf("patch line %d: %w", i+1, err)
			}
			nh.Left, nh.Right = Span{First: 1}, Span{First: 1} // empty
			f.Hunks = append(f.Hunks, nh)
			h = &f.Hunks[len(f.Hunks)-1]
			oldLine, newLine = nh.OldStart, nh.NewStart
			continue
		}
		if h == nil {
			continue // file headers before the first hunk
		}
		ln = strings.TrimSuffix(ln, "\r")
		if ln == "" {
			// A trailing newline of the whole patch, or a context line whose
			// leading space was stripped by an editor: count it as context
			// only while the hunk still expects lines.
			if oldLine < h.OldStart+h.OldLines && newLine < h.NewStart+h.NewLines {
				h.Left.add(oldLine)
				h.Right.add(newLine)
				f.see(&f.left, oldLine, "")
				f.see(&f.right, newLine, "")
				oldLine++
				newLine++
			}
			continue
		}
		switch ln[0] {
		case ' ':
			h.Left.add(oldLine)
			h.Right.add(newLine)
			f.see(&f.left, oldLine, ln[1:])
			f.see(&f.right, newLine, ln[1:])
			oldLine++
			newLine++
		case '-':
			h.Left.add(oldLine)
			f.see(&f.left, oldLine, ln[1:])
			oldLine++
		case '+':
			h.Right.add(newLine)
			f.see(&f.right, newLine, ln[1:])
			newLine++
		case '\\':
			// "\ No newline at end of file"
		default:
			return nil, fmt.Errorf("patch line %d: unexpected prefix %q", i+1, ln[0])
		}
	}
	return f, nil
}

// parseHeader reads "@@ -a[,b] +c[,d] @@ optional section".
func parseHeader(ln string) (Hunk, error) {
	rest, ok := strings.CutPrefix(ln, "@@ -")
	if !ok {
		return Hunk{}, errors.New("malformed hunk header")
	}
	end := strings.Index(rest, " @@")
	if end < 0 {
		return Hunk{}, errors.New("malformed hunk header")
	}
	oldPart, newPart, ok := strings.Cut(rest[:end], " +")
	if !ok {
		return Hunk{}, errors.New("malformed hunk header")
	}
	var h Hunk
	var err error
	if h.OldStart, h.OldLines, err = parseRange(oldPart); err != nil {
		return Hunk{}, fmt.Errorf("hunk header old range: %w", err)
	}
	if h.NewStart, h.NewLines, err = parseRange(newPart); err != nil {
		return Hunk{}, fmt.Errorf("hunk header new range: %w", err)
	}
	return h, nil
}

// maxLine bounds line numbers so arithmetic on them cannot overflow.
const maxLine = 1 << 30

func parseRange(s string) (start, n int, err error) {
	a, b, hasCount := strings.Cut(s, ",")
	start, err = strconv.Atoi(a)
	if err != nil || start < 0 || start > maxLine {
		return 0, 0, fmt.Errorf("bad start %q", a)
	}
	n = 1
	if hasCount {
		n, err = strconv.Atoi(b)
		if err != nil || n < 0 || n > maxLine {
			return 0, 0, fmt.Errorf("bad count %q", b)
		}
	}
	return start, n, nil
}

// Commentable reports whether an inline comment on side may span
// startLine..line (startLine 0 or equal to line means a single line): both
// ends shown in the same hunk, on that side.
func (f *File) Commentable(side string, startLine, line int) bool {
	if f == nil || (side != Left && side != Right) || line < 1 {
		return false
	}
	if startLine == 0 {
		startLine = line
	}
	if startLine > line || startLine < 1 {
		return false
	}
	for i := range f.Hunks {
		h := &f.Hunks[i]
		if h.Has(side, line) {
			return h.Has(side, startLine)
		}
	}
	return false
}

// FileInfo is what GitHub's pull request files API says of one file.
type FileInfo struct {
	Path string
	// PreviousPath is set for renames.
	PreviousPath string
	// Status: added, removed, modified, renamed, copied, changed, unchanged.
	Status string
	// Patch is empty for binary files, files whose diff is too large, and
	// renames without changes.
	Patch              string
	Additions, Deletes int
}

// Map is the diff of a whole pull request.
type Map struct {
	files map[string]*File
	// order keeps the PR's file order.
	order []string
	// skipped are files with changes but no patch (binary or too large).
	skipped []string
	// broken are files whose patch could not be parsed; they carry no inline comments.
	broken []string
}

// New builds the map of a pull request from its files. A patch that does not
// parse makes that file non-commentable rather than failing the whole map.
func New(files []FileInfo) *Map {
	m := &Map{files: make(map[string]*File, len(files))}
	for _, fi := range files {
		if _, dup := m.files[fi.Path]; dup {
			continue
		}
		m.order = append(m.order, fi.Path)
		if fi.Patch == "" {
			m.files[fi.Path] = &File{Path: fi.Path}
			renameOnly := (fi.Status == "renamed" || fi.Status == "copied" || fi.Status == "unchanged") && fi.Additions == 0 && fi.Deletes == 0
			if !renameOnly {
				m.skipped = append(m.skipped, fi.Path)
			}
			continue
		}
		f, err := ParsePatch(fi.Path, fi.Patch)
		if err != nil {
			m.files[fi.Path] = &File{Path: fi.Path}
			m.broken = append(m.broken, fi.Path)
			continue
		}
		m.files[fi.Path] = f
	}
	return m
}

// Files lists the PR's files in GitHub's order.
func (m *Map) Files() []string { return append([]string(nil), m.order...) }

// Len is the number of files in the PR.
func (m *Map) Len() int { return len(m.order) }

// Has reports whether the PR touches path.
func (m *Map) Has(path string) bool { _, ok := m.files[path]; return ok }

// Skipped lists files with changes GitHub sent no patch for: binary or too large.
func (m *Map) Skipped() []string { return append([]string(nil), m.skipped...) }

// File returns path's diff, or nil when the PR does not touch it.
func (m *Map) File(path string) *File { return m.files[path] }

// Commentable reports whether an inline comment fits path at side and
// startLine..line (startLine 0 for one line).
func (m *Map) Commentable(path, side string, startLine, line int) bool {
	return m.files[path].Commentable(side, startLine, line)
}
