package tools

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// NameReadBase reads a changed file as it was before the change under
// review (issue 41 item 5: impact-first context). The runner has only the
// head checkout; the base version is rebuilt from the head file and the
// job's unified diff, hunk by hunk in reverse, so nothing is fetched.
const NameReadBase = "ReadBase"

const readBaseSchema = `{"type":"object","properties":{
"file_path":{"type":"string","description":"Path of a file the pull request changes, relative to the repository root."},
"offset":{"type":"integer","minimum":1,"description":"Line number to start from (1-based)."},
"limit":{"type":"integer","minimum":1,"description":"Number of lines to read (default 2000)."}},
"required":["file_path"],"additionalProperties":false}`

const readBaseDescription = "Read a file the pull request changes as it was before the change (the version the diff starts from), with line numbers like Read. Use it to compare behaviour before and after; unchanged files are the same as with Read."

var baseHunkRE = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// baseVersion rebuilds path's content before diff from its head content
// (head; "" with exists false for a file the change deletes). It answers an
// error a model can act on when the diff does not cover the file, adds it,
// or does not apply to the head file.
func baseVersion(diff, path, head string, exists bool) (string, error) {
	sec, ok := diffSection(diff, path)
	if !ok {
		return "", fmt.Errorf("%s is not changed by the diff under review; Read gives its content", path)
	}
	if strings.Contains(sec, "\n--- /dev/null\n") {
		return "", fmt.Errorf("%s is new in this change: it has no earlier version", path)
	}
	var headLines []string
	if exists {
		headLines = strings.SplitAfter(head, "\n")
		if n := len(headLines); n > 0 && headLines[n-1] == "" {
			headLines = headLines[:n-1]
		}
	}
	var base []string
	next := 0 // the next head line (0-based) not yet copied
	lines := strings.Split(sec, "\n")
	for i := 0; i < len(lines); i++ {
		m := baseHunkRE.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		newStart, _ := strconv.Atoi(m[3])
		newCount := 1
		if m[4] != "" {
			newCount, _ = strconv.Atoi(m[4])
		}
		from := newStart - 1
		if newCount == 0 {
			from = newStart // an empty new side names the line before it
		}
		if from < next || from > len(headLines) {
			return "", fmt.Errorf("the diff of %s does not apply to its head version", path)
		}
		base = append(base, headLines[next:from]...)
		next = from
		for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "@@") && !strings.HasPrefix(lines[i+1], "diff --git ") {
			i++
			l := lines[i]
			switch {
			case strings.HasPrefix(l, "\\"): // "\ No newline at end of file"
			case strings.HasPrefix(l, "-"):
				base = append(base, l[1:]+"\n")
			case strings.HasPrefix(l, "+"), strings.HasPrefix(l, " "):
				if next >= len(headLines) || strings.TrimRight(headLines[next], "\r\n") != strings.TrimRight(l[1:], "\r") {
					return "", fmt.Errorf("the diff of %s does not apply to its head version", path)
				}
				if l[0] == ' ' {
					base = append(base, headLines[next])
				}
				next++
			}
		}
	}
	base = append(base, headLines[next:]...)
	return strings.Join(base, ""), nil
}

// diffSection is the part of a unified diff that changes path.
func diffSection(diff, path string) (string, bool) {
	var sec []string
	found, in := false, false
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "diff --git ") {
			if found {
				break
			}
			in = strings.HasSuffix(l, " b/"+path) || strings.Contains(l, " a/"+path+" ")
			sec = sec[:0]
		}
		if l == "+++ b/"+path || l == "--- a/"+path {
			in = true
		}
		if in {
			found = true
			sec = append(sec, l)
		}
	}
	return strings.Join(sec, "\n"), found
}

// readBase answers ReadBase.
func (s *Set) readBase(in ReadInput) (string, error) {
	rel, err := CleanRel(in.FilePath)
	if err != nil {
		return "", err
	}
	head, exists := "", true
	if file, _, err := s.cfg.FS.Open(rel); err != nil {
		exists = false
	} else {
		b, rerr := io.ReadAll(io.LimitReader(file, ReadMaxFileBytes+1))
		file.Close()
		if rerr != nil || len(b) > ReadMaxFileBytes {
			return "", fmt.Errorf("%s cannot be read (over %d bytes?)", rel, ReadMaxFileBytes)
		}
		head = string(b)
	}
	base, err := baseVersion(s.cfg.Diff, rel, head, exists)
	if err != nil {
		return "", err
	}
	return numbered(rel+" (before the change)", strings.NewReader(base), int64(len(base)), in)
}
