package main

import (
	"context"
	"os"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/syncbuf"
)

// BenchmarkEvalStages prints the table of `chakshu eval --stages` on the
// shipped corpus (one pass / passes with grouping / passes with grouping and
// verification, on the rewording scripted model) so that `make bench`
// shows the method's figures beside the others (docs/benchmarks.md).
//
// Run with: go test ./cmd/chakshu -run '^$' -bench EvalStages -benchtime 1x
func BenchmarkEvalStages(b *testing.B) {
	for b.Loop() {
		var stderr syncbuf.Buffer
		if err := run(context.Background(), []string{"eval", "--corpus", evalCorpus, "--stages"}, os.Stdout, &stderr); err != nil {
			b.Fatalf("eval --stages: %v\n%s", err, stderr.String())
		}
	}
}
