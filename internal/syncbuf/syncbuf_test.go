package syncbuf

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Run with -race: concurrent writes and reads, and nothing written is lost.
func TestConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 100 {
				fmt.Fprintf(&b, "%d.%d\n", i, j)
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if n := strings.Count(b.String(), "\n"); n != 800 {
		t.Fatalf("%d lines, want 800", n)
	}
}

// Run with -race: a Writer over a plain strings.Builder takes concurrent
// writes one at a time, each whole.
func TestWriterSerialisesWrites(t *testing.T) {
	var plain strings.Builder
	w := &Writer{W: &plain}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 100 {
				fmt.Fprintf(w, "%d.%d\n", i, j)
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(plain.String(), "\n"), "\n")
	if len(lines) != 800 {
		t.Fatalf("%d lines, want 800", len(lines))
	}
	for _, l := range lines {
		if strings.Count(l, ".") != 1 {
			t.Fatalf("a write was cut into another: %q", l)
		}
	}
}
