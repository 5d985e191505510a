// Package runnerbintest builds the served chakshu-action for tests: once per
// test binary, for the host platform only, with scripts/runners.sh (the same
// flags as `make build`), so the sandbox's simulated Actions runner downloads
// and runs the binary users' workflows run.
package runnerbintest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/version"
)

var (
	once sync.Once
	dir  string
	err  error
)

// Dir returns a folder holding chakshu-action of version.Version for the
// host platform (runnerbin's layout), building it on the first call. Call
// Cleanup from TestMain to remove it.
func Dir(tb testing.TB) string {
	tb.Helper()
	once.Do(func() { dir, err = build() })
	if err != nil {
		tb.Fatalf("build chakshu-action: %v", err)
	}
	return dir
}

// Cleanup removes what Dir built.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}

func build() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	d, err := os.MkdirTemp("", "chakshu-runnerbin-")
	if err != nil {
		return "", err
	}
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "runners.sh"), d, version.Version, runtime.GOOS+"/"+runtime.GOARCH)
	// One package link at a time: test binaries build this in parallel with
	// each other on a small machine.
	cmd.Env = append(os.Environ(), "GOPAR=1", "GOFLAGS=-buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(d)
		return "", fmt.Errorf("%v: %s", err, out)
	}
	return d, nil
}

func moduleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(d, "scripts", "runners.sh")); err == nil {
				return d, nil
			}
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("no Chakshu module root above the working directory")
		}
		d = up
	}
}
