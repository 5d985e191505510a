package main

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/syncbuf"
)

// The real binary starts in sandbox mode with no settings, answers /readyz,
// serves /metrics on its internal listener, and drains and exits 0 on SIGTERM.
func TestBinaryServesAndStopsOnSIGTERM(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "chakshu")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	iln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	iaddr := iln.Addr().String()
	iln.Close()
	var stdout, stderr syncbuf.Buffer
	cmd := exec.Command(bin, "all")
	cmd.Env = append(os.Environ(), "CHAKSHU_ADDR="+addr, "CHAKSHU_INTERNAL_ADDR="+iaddr, "CHAKSHU_DATA_DIR="+t.TempDir(), "CHAKSHU_LOG_FORMAT=json")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() //nolint:errcheck
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no /readyz 200 within 60s\n%s", stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	for !strings.Contains(stdout.String(), "sandbox mode") { // printed once the sandbox is seeded
		select {
		case <-ctx.Done():
			t.Fatalf("no sandbox banner on stdout: %q", stdout.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	resp, err := http.Get("http://" + iaddr + "/metrics") // on the internal listener
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/metrics: %v", err)
	}
	resp.Body.Close()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("still running 30s after SIGTERM")
	}
	if !strings.Contains(stderr.String(), `"msg":"stopped"`) {
		t.Errorf("no clean stop in the log:\n%s", stderr.String())
	}
}

// A malformed setting stops the process with one line naming it, exit code 1.
func TestBadSettingExits(t *testing.T) {
	var stdout, stderr syncbuf.Buffer
	t.Setenv("CHAKSHU_LOG_LEVEL", "loud")
	err := run(context.Background(), []string{"migrate"}, &stdout, &stderr)
	if err == nil || !strings.HasPrefix(err.Error(), "CHAKSHU_LOG_LEVEL:") {
		t.Fatalf("got %v", err)
	}
}
