package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Before the redesign of issue 44 ("the same product, lighter"): the
// figures it is measured against (docs/benchmarks.md).
const (
	linesBefore       = 56_600
	binaryBytesBefore = 110_046_006
)

// generatedRE is Go's marker of generated code (go help generate).
var generatedRE = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// BenchmarkCodeSize prints the hand-written non-test Go lines of the
// repository (generated files, tests and the frontend's packages left out)
// and the size of the `chakshu` binary, each beside its figure before the
// redesign.
//
// Run with: go test ./cmd/chakshu -run '^$' -bench CodeSize -benchtime 1x
func BenchmarkCodeSize(b *testing.B) {
	lines, files := handWrittenLines(b, filepath.Join("..", ".."))
	bin := filepath.Join(b.TempDir(), "chakshu")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	st, err := os.Stat(bin)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(lines), "hand-written-lines")
	b.ReportMetric(float64(st.Size()), "binary-bytes")
	fmt.Printf("hand-written non-test Go: %d lines in %d files; before the redesign: %d (%+.1f%%)\n",
		lines, files, linesBefore, 100*float64(lines-linesBefore)/linesBefore)
	fmt.Printf("chakshu binary: %d bytes; before the redesign: %d (%+.1f%%)\n",
		st.Size(), binaryBytesBefore, 100*float64(st.Size()-binaryBytesBefore)/binaryBytesBefore)
}

// handWrittenLines counts the lines of the Go files under root that are
// neither tests nor generated, outside node_modules.
func handWrittenLines(b *testing.B, root string) (lines, files int) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "node_modules" || name == ".git" || name == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if generatedRE.Match(src) {
			return nil
		}
		s := bufio.NewScanner(bytes.NewReader(src))
		s.Buffer(make([]byte, 0, 64<<10), 4<<20)
		for s.Scan() {
			lines++
		}
		files++
		return s.Err()
	})
	if err != nil {
		b.Fatal(err)
	}
	return lines, files
}
