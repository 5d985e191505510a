// Package syncbuf is a bytes.Buffer that several goroutines may write and
// read at once: the sink for a child process's or a server's log in tests.
package syncbuf

import (
	"bytes"
	"io"
	"sync"
)

// Buffer is a goroutine-safe buffer. The zero value is ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Writer passes writes on to W one at a time, for several goroutines that
// share one log. The zero value with W set is ready to use.
type Writer struct {
	mu sync.Mutex
	W  io.Writer
}

// Write passes p on to W whole.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.W.Write(p)
}
