package tools

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// DESIGN §11: runner Grep over a 10k-file tree within 3× of ripgrep. These
// benchmarks search Go's own source tree and print the ratio against
// ripgrep (Debian's ripgrep, installed with apt-get when missing) and grep -r.

func goroot(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	root := strings.TrimSpace(string(out))
	if err != nil || root == "" {
		root = runtime.GOROOT()
	}
	src := filepath.Join(root, "src")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no Go source tree at %s", src)
	}
	return src
}

var rgOnce sync.Once

// ripgrep returns rg's path, installing Debian's package if it is missing.
func ripgrep(b *testing.B) string {
	rgOnce.Do(func() {
		if _, err := exec.LookPath("rg"); err == nil {
			return
		}
		if _, err := exec.LookPath("apt-get"); err != nil {
			return
		}
		cmd := exec.Command("sh", "-c", "apt-get install -y -q ripgrep >/dev/null 2>&1 || (apt-get update -q >/dev/null 2>&1 && apt-get install -y -q ripgrep >/dev/null 2>&1)")
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		_ = cmd.Run()
	})
	p, _ := exec.LookPath("rg")
	return p
}

// best runs f n times and returns the fastest run.
func best(n int, f func()) time.Duration {
	var min time.Duration
	for range n {
		start := time.Now()
		f()
		if d := time.Since(start); min == 0 || d < min {
			min = d
		}
	}
	return min
}

func external(b *testing.B, name string, args ...string) (time.Duration, int) {
	var lines int
	d := best(3, func() {
		out, _ := exec.Command(name, args...).Output()
		lines = bytes.Count(out, []byte{'\n'})
	})
	return d, lines
}

func compare(b *testing.B, what string, ours time.Duration, oursCount int, budget float64, others map[string][]string) {
	b.Helper()
	b.ReportMetric(float64(ours.Microseconds())/1000, "ms/search")
	for _, name := range []string{"rg", "grep", "find"} {
		args, ok := others[name]
		if !ok {
			continue
		}
		bin := name
		if name == "rg" {
			if bin = ripgrep(b); bin == "" {
				b.Logf("%s: ripgrep is not installed and could not be installed; skipping the ripgrep comparison", what)
				continue
			}
		}
		d, n := external(b, bin, args...)
		ratio := float64(ours) / float64(d)
		line := "%s: ours %v (%d results), %s %v (%d results): %.2f× %s"
		if name == "rg" {
			b.ReportMetric(ratio, "x-ripgrep")
			b.Logf(line+" (budget: within %.0f× of ripgrep, DESIGN §11)", what, ours.Round(time.Millisecond), oursCount, name, d.Round(time.Millisecond), n, ratio, name, budget)
		} else {
			b.ReportMetric(ratio, "x-"+name)
			b.Logf(line, what, ours.Round(time.Millisecond), oursCount, name, d.Round(time.Millisecond), n, ratio, name)
		}
	}
}

var filesRE = regexp.MustCompile(`(\d+) files`)

// resultFiles reads the file count from the closing "(… N files …)" line.
func resultFiles(out string) int {
	m := filesRE.FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

func benchGrep(b *testing.B, in GrepInput, rgArgs, grepArgs []string) {
	src := goroot(b)
	fsys, err := OpenFS(src)
	if err != nil {
		b.Fatal(err)
	}
	defer fsys.Close()
	in.HeadLimit = GrepMaxHeadLimit
	var out string
	for b.Loop() {
		if out, err = fsys.Grep(in); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	ours := best(3, func() { out, _ = fsys.Grep(in) })
	compare(b, "Grep "+in.Pattern, ours, resultFiles(out), 3, map[string][]string{
		"rg":   append(rgArgs, src),
		"grep": append(grepArgs, src),
	})
}

func BenchmarkGrepLiteralGOROOT(b *testing.B) {
	benchGrep(b, GrepInput{Pattern: "func main"},
		[]string{"-l", "--hidden", "--no-ignore", "--no-messages", "func main"},
		[]string{"-rlI", "func main"})
}

func BenchmarkGrepRegexpGOROOT(b *testing.B) {
	benchGrep(b, GrepInput{Pattern: `err\s*!=\s*nil\s*\{\s*$`, OutputMode: ModeCount},
		[]string{"-c", "--hidden", "--no-ignore", "--no-messages", `err\s*!=\s*nil\s*\{\s*$`},
		[]string{"-rcIE", `err[[:space:]]*!=[[:space:]]*nil[[:space:]]*\{[[:space:]]*$`})
}

func BenchmarkGrepNoLiteralGOROOT(b *testing.B) {
	benchGrep(b, GrepInput{Pattern: `[A-Z][a-z]+Handler\(`},
		[]string{"-l", "--hidden", "--no-ignore", "--no-messages", `[A-Z][a-z]+Handler\(`},
		[]string{"-rlIE", `[A-Z][a-z]+Handler\(`})
}

func BenchmarkGlobGOROOT(b *testing.B) {
	src := goroot(b)
	fsys, err := OpenFS(src)
	if err != nil {
		b.Fatal(err)
	}
	defer fsys.Close()
	in := GlobInput{Pattern: "**/*_test.go"}
	var out string
	for b.Loop() {
		if out, err = fsys.Glob(in); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	ours := best(3, func() { out, _ = fsys.Glob(in) })
	n := resultFiles(out)
	compare(b, "Glob **/*_test.go", ours, n, 3, map[string][]string{
		"rg":   {"--files", "--hidden", "--no-ignore", "-g", "*_test.go", src},
		"find": {src, "-name", "*_test.go", "-type", "f"},
	})
}
