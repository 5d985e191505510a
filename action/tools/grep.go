package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/chakshu-dev/chakshu/internal/textcut"
)

// Limits of the Grep tool.
const (
	GrepDefaultFiles   = 500
	GrepDefaultLines   = 300
	GrepMaxHeadLimit   = 5000
	GrepMaxBytes       = 64 << 10
	GrepMaxLineBytes   = 500
	GrepMaxFileBytes   = 50 << 20 // larger files are skipped
	GrepMaxContext     = 20
	GrepMaxPatternSize = 2000
)

// GrepInput is the Grep tool's input (names follow the tools reviewers know).
type GrepInput struct {
	Pattern         string `json:"pattern"`
	Path            string `json:"path,omitempty"`
	Glob            string `json:"glob,omitempty"`
	OutputMode      string `json:"output_mode,omitempty"` // files_with_matches (default), content, count
	CaseInsensitive bool   `json:"-i,omitempty"`
	After           int    `json:"-A,omitempty"`
	Before          int    `json:"-B,omitempty"`
	Context         int    `json:"-C,omitempty"`
	HeadLimit       int    `json:"head_limit,omitempty"`
}

const grepSchema = `{"type":"object","properties":{
"pattern":{"type":"string","description":"Regular expression (Go RE2 syntax) searched line by line."},
"path":{"type":"string","description":"File or directory to search, relative to the repository root (default: the whole repository)."},
"glob":{"type":"string","description":"Only files matching this glob, e.g. \"*.go\" or \"src/**/*.{ts,tsx}\". Without a slash it matches file names at any depth."},
"output_mode":{"type":"string","enum":["files_with_matches","content","count"],"description":"files_with_matches (default) lists paths; content shows matching lines with line numbers; count gives matches per file."},
"-i":{"type":"boolean","description":"Case-insensitive search."},
"-A":{"type":"integer","minimum":0,"description":"Lines of context after each match (content mode)."},
"-B":{"type":"integer","minimum":0,"description":"Lines of context before each match (content mode)."},
"-C":{"type":"integer","minimum":0,"description":"Lines of context before and after each match (content mode)."},
"head_limit":{"type":"integer","minimum":1,"description":"Return at most this many lines or entries."}},
"required":["pattern"],"additionalProperties":false}`

// Grep modes.
const (
	ModeFiles   = "files_with_matches"
	ModeContent = "content"
	ModeCount   = "count"
)

type grepJob struct {
	// re is the pattern as the model wrote it; it decides whether a line
	// matches.
	re *regexp.Regexp
	// find is re unable to match a newline: it finds candidate lines in the
	// whole buffer. Grep is line by line, so a line matches re exactly when
	// it matches find; but re itself may match across lines ((?s).*, \s,
	// [^x]), and searching the buffer with it from each line start on made
	// Grep quadratic in the file size (issue 19 item 9).
	find        *regexp.Regexp
	lit         []byte
	mode        string
	before      int
	after       int
	stopAtFirst bool
}

type fileHit struct {
	path  string
	count int
	text  string // content mode output for this file
}

// GrepContext searches the workspace, stopping with ctx's error when ctx is
// done (between files, and every few thousand lines within one).
func (f *FS) GrepContext(ctx context.Context, in GrepInput) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	job, err := compileGrep(in)
	if err != nil {
		return "", err
	}
	start := in.Path
	if start == "" {
		start = "."
	}
	rel, real, err := f.Resolve(start)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("%s: cannot stat", rel)
	}
	var hits []fileHit
	if !st.IsDir() {
		rel = f.relOf(real)
		hits, err = f.searchFiles(ctx, job, in.Glob, func(emit func(string)) error { emit(rel); return nil })
	} else {
		base := f.relOf(real)
		hits, err = f.searchFiles(ctx, job, in.Glob, func(emit func(string)) error { return f.walk(ctx, base, emit) })
	}
	if err != nil {
		return "", err
	}
	slices.SortFunc(hits, func(a, b fileHit) int { return strings.Compare(a.path, b.path) })
	return formatGrep(job.mode, hits, in.HeadLimit), nil
}

func compileGrep(in GrepInput) (*grepJob, error) {
	if in.Pattern == "" {
		return nil, errors.New("pattern is required")
	}
	if len(in.Pattern) > GrepMaxPatternSize {
		return nil, fmt.Errorf("pattern is longer than %d bytes", GrepMaxPatternSize)
	}
	mode := in.OutputMode
	switch mode {
	case "":
		mode = ModeFiles
	case ModeFiles, ModeContent, ModeCount:
	default:
		return nil, fmt.Errorf("output_mode: want files_with_matches, content or count, got %q", mode)
	}
	if in.After < 0 || in.Before < 0 || in.Context < 0 || in.HeadLimit < 0 {
		return nil, errors.New("-A, -B, -C and head_limit must not be negative")
	}
	if in.Glob != "" {
		if _, err := CleanRel(in.Glob); err != nil {
			return nil, fmt.Errorf("glob: %w", err)
		}
		if !doublestar.ValidatePattern(in.Glob) {
			return nil, fmt.Errorf("glob: %q is not a valid pattern", in.Glob)
		}
	}
	flags := "(?m)"
	if in.CaseInsensitive {
		flags = "(?mi)"
	}
	re, err := regexp.Compile(flags + in.Pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern: %v", err)
	}
	find, err := withoutNewline(flags + in.Pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern: %v", err)
	}
	before, after := in.Before, in.After
	if in.Context > 0 {
		before, after = max(before, in.Context), max(after, in.Context)
	}
	return &grepJob{
		re:          re,
		find:        find,
		lit:         requiredLiteral(flags + in.Pattern),
		mode:        mode,
		before:      min(before, GrepMaxContext),
		after:       min(after, GrepMaxContext),
		stopAtFirst: mode == ModeFiles,
	}, nil
}

// withoutNewline compiles pattern so that it cannot match a newline: '\n' is
// taken out of every character class and "any character", and a literal
// newline matches nothing. On a single line (which holds no newline) it
// matches exactly what pattern matches; on a whole buffer its matches stay
// within one line, so finding the next candidate line never scans past it.
func withoutNewline(pattern string) (*regexp.Regexp, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	return regexp.Compile(dropNewline(re).String())
}

func dropNewline(re *syntax.Regexp) *syntax.Regexp {
	switch re.Op {
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		var rs []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			switch {
			case lo <= '\n' && '\n' <= hi:
				if lo < '\n' {
					rs = append(rs, lo, '\n'-1)
				}
				if hi > '\n' {
					rs = append(rs, '\n'+1, hi)
				}
			default:
				rs = append(rs, lo, hi)
			}
		}
		if len(rs) == 0 {
			return &syntax.Regexp{Op: syntax.OpNoMatch}
		}
		re.Rune = rs
	case syntax.OpLiteral:
		if slices.Contains(re.Rune, '\n') {
			return &syntax.Regexp{Op: syntax.OpNoMatch}
		}
	}
	for i, sub := range re.Sub {
		re.Sub[i] = dropNewline(sub)
	}
	return re
}

// requiredLiteral returns a byte string every match must contain, or nil.
// It lets Grep skip files (and find candidate lines) with bytes.Index.
func requiredLiteral(pattern string) []byte {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	lit := required(re.Simplify())
	if lit == "" || strings.ContainsRune(lit, utf8.RuneError) {
		return nil
	}
	return []byte(lit)
}

func required(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return ""
		}
		return string(re.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		best := ""
		for _, s := range re.Sub {
			if l := required(s); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return ""
}

// walk lists regular files under base (relative, slash form), depth first.
// Symlinks are not followed and not searched, like ripgrep's default.
func (f *FS) walk(ctx context.Context, base string, emit func(string)) error {
	return f.walkAll(ctx, base, func(rel string, symlink bool) {
		if !symlink {
			emit(rel)
		}
	})
}

// walkAll lists regular files and symlinks under base without following
// any symlink; directories are opened beneath the root, race-free. It stops
// with ctx's error when ctx is done.
func (f *FS) walkAll(ctx context.Context, base string, emit func(rel string, symlink bool)) error {
	var walkDir func(rel string) error
	walkDir = func(rel string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, err := f.openNoSymlinks(rel)
		if err != nil {
			return nil // unreadable directories are skipped
		}
		ents, err := d.ReadDir(-1)
		d.Close()
		if err != nil && len(ents) == 0 {
			return nil
		}
		var dirs []string
		for _, e := range ents {
			name := e.Name()
			child := name
			if rel != "." {
				child = rel + "/" + name
			}
			switch t := e.Type(); {
			case t.IsDir():
				if name == ".git" {
					continue
				}
				dirs = append(dirs, child)
			case t.IsRegular():
				emit(child, false)
			case t&fs.ModeSymlink != 0:
				emit(child, true)
			}
		}
		for _, c := range dirs {
			if err := walkDir(c); err != nil {
				return err
			}
		}
		return nil
	}
	return walkDir(base)
}

// globMatch reports whether a file path matches the glob filter. A glob with
// no slash matches the file name at any depth.
func globMatch(glob, rel string) bool {
	if glob == "" {
		return true
	}
	if !strings.Contains(glob, "/") {
		ok, _ := doublestar.Match(glob, path.Base(rel))
		return ok
	}
	ok, _ := doublestar.Match(strings.TrimPrefix(glob, "./"), rel)
	return ok
}

// searchFiles runs the search over the files list emits, in parallel.
func (f *FS) searchFiles(ctx context.Context, job *grepJob, glob string, list func(emit func(string)) error) ([]fileHit, error) {
	workers := min(max(runtime.GOMAXPROCS(0), 1), 8)
	paths := make(chan string, 256)
	results := make([][]fileHit, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := searcher{fs: f, job: job, done: ctx.Done()}
			for p := range paths {
				if ctx.Err() != nil {
					continue // drain: the list stops at its next check
				}
				if h, ok := s.search(p); ok {
					results[w] = append(results[w], h)
				}
			}
		}()
	}
	err := list(func(p string) {
		if globMatch(glob, p) {
			paths <- p
		}
	})
	close(paths)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return slices.Concat(results...), nil
}

type searcher struct {
	fs   *FS
	job  *grepJob
	buf  []byte
	done <-chan struct{} // the call's context: a search stops when it closes
}

// stopped reports whether the call's context is done.
func (s *searcher) stopped() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// search reads one file (through the root, so nothing outside is opened) and
// searches it.
func (s *searcher) search(rel string) (fileHit, bool) {
	file, err := s.fs.openNoSymlinks(rel)
	if err != nil {
		return fileHit{}, false
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > GrepMaxFileBytes {
		return fileHit{}, false
	}
	size := int(st.Size())
	if cap(s.buf) < size+1 {
		s.buf = make([]byte, size+1+size/4)
	}
	buf := s.buf[:cap(s.buf)]
	n, err := io.ReadFull(file, buf[:size])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fileHit{}, false
	}
	buf = buf[:n]
	if bytes.IndexByte(buf[:min(len(buf), binarySniffBytes)], 0) >= 0 {
		return fileHit{}, false
	}
	return s.match(rel, buf)
}

func (s *searcher) match(rel string, buf []byte) (fileHit, bool) {
	job := s.job
	if job.lit != nil && !bytes.Contains(buf, job.lit) {
		return fileHit{}, false
	}
	type hitLine struct{ start, end, no int }
	var lines []hitLine
	count := 0
	pos, lineNo, counted := 0, 1, 0
	for iter := 0; pos <= len(buf); iter++ {
		if iter&1023 == 1023 && s.stopped() {
			return fileHit{}, false
		}
		var at int
		if job.lit != nil {
			i := bytes.Index(buf[pos:], job.lit)
			if i < 0 {
				break
			}
			at = pos + i
		} else {
			loc := job.find.FindIndex(buf[pos:])
			if loc == nil {
				break
			}
			at = pos + loc[0]
		}
		ls := bytes.LastIndexByte(buf[pos:at], '\n') + 1 + pos
		le := len(buf)
		if i := bytes.IndexByte(buf[at:], '\n'); i >= 0 {
			le = at + i
		}
		// The candidate line must match on its own: the literal may sit
		// in a line the pattern does not match, and a match found in the
		// whole buffer may span lines.
		if job.re.Match(buf[ls:le]) {
			count++
			if job.stopAtFirst {
				return fileHit{path: rel, count: 1}, true
			}
			if job.mode == ModeContent {
				lineNo += bytes.Count(buf[counted:ls], []byte{'\n'})
				counted = ls
				lines = append(lines, hitLine{ls, le, lineNo})
			}
		}
		if le >= len(buf) {
			break
		}
		pos = le + 1
	}
	if count == 0 {
		return fileHit{}, false
	}
	h := fileHit{path: rel, count: count}
	if job.mode != ModeContent {
		return h, true
	}
	var out strings.Builder
	if job.before == 0 && job.after == 0 {
		for _, l := range lines {
			writeLine(&out, rel, l.no, ':', buf[l.start:l.end])
		}
		h.text = out.String()
		return h, true
	}
	all := bytes.Split(buf, []byte{'\n'})
	if len(all) > 0 && len(all[len(all)-1]) == 0 {
		all = all[:len(all)-1]
	}
	match := make(map[int]bool, len(lines))
	for _, l := range lines {
		match[l.no] = true
	}
	last := 0 // last line number written
	for _, l := range lines {
		from, to := max(l.no-job.before, 1), min(l.no+job.after, len(all))
		if from <= last {
			from = last + 1
		} else if last > 0 {
			out.WriteString("--\n")
		}
		for n := from; n <= to; n++ {
			sep := byte('-')
			if match[n] {
				sep = ':'
			}
			writeLine(&out, rel, n, sep, all[n-1])
		}
		last = max(last, to)
	}
	h.text = out.String()
	return h, true
}

func writeLine(b *strings.Builder, rel string, no int, sep byte, text []byte) {
	t := strings.TrimRight(string(text), "\r")
	if len(t) > GrepMaxLineBytes {
		t = textcut.Bytes(t, GrepMaxLineBytes) + " … [line cut]"
	}
	fmt.Fprintf(b, "%s%c%d%c%s\n", rel, sep, no, sep, t)
}

func formatGrep(mode string, hits []fileHit, headLimit int) string {
	if len(hits) == 0 {
		return "No matches found.\n"
	}
	limit := headLimit
	if limit == 0 {
		limit = GrepDefaultFiles
		if mode == ModeContent {
			limit = GrepDefaultLines
		}
	}
	limit = min(limit, GrepMaxHeadLimit)
	var entries []string
	total := 0
	switch mode {
	case ModeFiles:
		for _, h := range hits {
			entries = append(entries, h.path)
		}
		total = len(hits)
	case ModeCount:
		for _, h := range hits {
			entries = append(entries, fmt.Sprintf("%s:%d", h.path, h.count))
			total += h.count
		}
	case ModeContent:
		for _, h := range hits {
			entries = append(entries, strings.Split(strings.TrimSuffix(h.text, "\n"), "\n")...)
		}
	}
	var out strings.Builder
	shown := 0
	for _, e := range entries {
		if shown >= limit || out.Len()+len(e)+1 > GrepMaxBytes {
			break
		}
		out.WriteString(e)
		out.WriteByte('\n')
		shown++
	}
	switch mode {
	case ModeFiles:
		fmt.Fprintf(&out, "(%d files matched", len(hits))
	case ModeCount:
		fmt.Fprintf(&out, "(%d matches in %d files", total, len(hits))
	case ModeContent:
		fmt.Fprintf(&out, "(%d lines", len(entries))
	}
	if shown < len(entries) {
		fmt.Fprintf(&out, "; showing the first %d — narrow the search with path or glob, or raise head_limit", shown)
	}
	out.WriteString(")\n")
	return out.String()
}
