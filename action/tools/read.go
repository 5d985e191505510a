package tools

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/chakshu-dev/chakshu/internal/textcut"
)

// Limits of the Read tool.
const (
	ReadDefaultLimit = 2000      // lines per call unless limit says otherwise
	ReadMaxLineBytes = 2000      // longer lines are cut with a marker
	ReadMaxBytes     = 256 << 10 // output per call
	ReadMaxFileBytes = 20 << 20  // larger files are refused
	binarySniffBytes = 8000
)

// ReadInput is the Read tool's input.
type ReadInput struct {
	FilePath string `json:"file_path"`
	Offset   int    `json:"offset,omitempty"` // first line, 1-based
	Limit    int    `json:"limit,omitempty"`  // number of lines
}

const readSchema = `{"type":"object","properties":{
"file_path":{"type":"string","description":"Path of the file, relative to the repository root."},
"offset":{"type":"integer","minimum":1,"description":"Line number to start from (1-based). Only for large files."},
"limit":{"type":"integer","minimum":1,"description":"Number of lines to read (default 2000)."}},
"required":["file_path"],"additionalProperties":false}`

// Read returns the file's lines numbered like `cat -n`.
func (f *FS) Read(in ReadInput) (string, error) {
	if in.FilePath == "" {
		return "", fmt.Errorf("file_path is required")
	}
	if in.Offset < 0 || in.Limit < 0 {
		return "", fmt.Errorf("offset and limit must not be negative")
	}
	file, rel, err := f.Open(in.FilePath)
	if err != nil {
		return "", err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return "", fmt.Errorf("%s: cannot stat", rel)
	}
	if st.IsDir() {
		return "", fmt.Errorf("%s is a directory; use Glob to list files", rel)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", rel)
	}
	if st.Size() > ReadMaxFileBytes {
		return "", fmt.Errorf("%s is %d bytes; files over %d bytes are not read (use Grep to search it)", rel, st.Size(), ReadMaxFileBytes)
	}
	return numbered(rel, file, st.Size(), in)
}

// numbered is the text of r (size bytes, the file rel) numbered like
// `cat -n` from in.Offset for in.Limit lines, as Read and ReadBase answer.
func numbered(rel string, r io.Reader, size int64, in ReadInput) (string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(binarySniffBytes)
	if isBinary(head) {
		return "", fmt.Errorf("%s is a binary file; only text files can be read", rel)
	}
	if size == 0 {
		return fmt.Sprintf("(%s is empty)\n", rel), nil
	}
	start := max(in.Offset, 1)
	limit := in.Limit
	if limit == 0 {
		limit = ReadDefaultLimit
	}
	var out strings.Builder
	n, written := 0, 0
	truncated := ""
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A very long line: keep the first part, skip the rest.
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			line = long
		}
		if len(line) == 0 && err != nil {
			break
		}
		n++
		if n >= start {
			if written >= limit {
				truncated = fmt.Sprintf("\n(more lines follow; call Read with offset %d to continue)\n", n)
				break
			}
			text := strings.TrimRight(string(line), "\r\n")
			if len(text) > ReadMaxLineBytes {
				text = textcut.Bytes(text, ReadMaxLineBytes) + " … [line cut]"
			}
			entry := fmt.Sprintf("%6d\t%s\n", n, text)
			if out.Len()+len(entry) > ReadMaxBytes {
				truncated = fmt.Sprintf("\n(output capped at %d bytes; call Read with offset %d to continue)\n", ReadMaxBytes, n)
				break
			}
			out.WriteString(entry)
			written++
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%s: read failed", rel)
		}
	}
	if written == 0 && truncated == "" {
		return fmt.Sprintf("(%s has %d lines; offset %d is past the end)\n", rel, n, start), nil
	}
	return out.String() + truncated, nil
}

// isBinary reports whether a file's first bytes look binary: a NUL byte, or
// text that is not UTF-8 (allowing a rune cut at the end of the sample).
func isBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if utf8.Valid(head) {
		return false
	}
	for i := 1; i <= utf8.UTFMax && i <= len(head); i++ {
		if utf8.Valid(head[:len(head)-i]) {
			return false
		}
	}
	return true
}
