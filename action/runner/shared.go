package runner

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// lockedLog is the Actions log shared by the reviews of one job: each writes
// through a prefixed writer, whole lines at a time, so lines never mix.
type lockedLog struct {
	mu sync.Mutex
	w  io.Writer
}

// prefixed is a writer whose lines go to the log with prefix, except
// workflow commands (`::add-mask::`, `::error::`…), which GitHub reads only
// at the start of a line.
func (l *lockedLog) prefixed(prefix string) *prefixWriter {
	return &prefixWriter{log: l, prefix: prefix}
}

type prefixWriter struct {
	log    *lockedLog
	prefix string
	buf    bytes.Buffer
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf.Write(b)
	for {
		i := bytes.IndexByte(p.buf.Bytes(), '\n')
		if i < 0 {
			return len(b), nil
		}
		p.emit(string(p.buf.Next(i + 1)))
	}
}

// Flush writes what is left of an unfinished line.
func (p *prefixWriter) Flush() {
	if p.buf.Len() > 0 {
		p.emit(p.buf.String() + "\n")
		p.buf.Reset()
	}
}

func (p *prefixWriter) emit(line string) {
	p.log.mu.Lock()
	defer p.log.mu.Unlock()
	if !strings.HasPrefix(line, "::") {
		line = p.prefix + line
	}
	_, _ = io.WriteString(p.log.w, line)
}

// maxRunIDs bounds CHAKSHU_RUN_IDS: the workflow template accepts up to 25
// ids, and Chakshu sends at most worker.MaxShared (10).
const maxRunIDs = 25

// ParseRunIDs reads CHAKSHU_RUN_IDS ("12,13,14"), the runs of a shared
// Actions run; "" is lead's run alone (nil). The list must name lead
// (CHAKSHU_RUN_ID) and no run twice.
func ParseRunIDs(s string, lead int64) ([]int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > maxRunIDs {
		return nil, fmt.Errorf("CHAKSHU_RUN_IDS names %d runs, at most %d", len(parts), maxRunIDs)
	}
	seen := map[int64]bool{}
	var ids []int64
	for _, p := range parts {
		id, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || id <= 0 || seen[id] {
			return nil, fmt.Errorf("CHAKSHU_RUN_IDS must be distinct run ids separated by commas, got %q", s)
		}
		seen[id] = true
		ids = append(ids, id)
	}
	if !seen[lead] {
		return nil, fmt.Errorf("CHAKSHU_RUN_IDS %q does not name CHAKSHU_RUN_ID %d", s, lead)
	}
	return ids, nil
}
