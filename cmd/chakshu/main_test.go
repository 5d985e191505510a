package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/syncbuf"
)

// The real binary starts in sandbox mode with no settings, answers /readyz,
// serves /metrics on its internal listener, and drains and exits 0 on SIGTERM.
func TestBinaryServesAndStopsOnSIGTERM(t *testing.T) {
	bin := chakshuBinary(t)
	var stdout, stderr syncbuf.Buffer
	cmd := exec.Command(bin, "all")
	// Port 0: a port picked here and handed over may be taken meanwhile by
	// another package's test; the log says where each listener is.
	cmd.Env = append(os.Environ(), "CHAKSHU_ADDR=127.0.0.1:0", "CHAKSHU_INTERNAL_ADDR=127.0.0.1:0", "CHAKSHU_DATA_DIR="+t.TempDir(), "CHAKSHU_LOG_FORMAT=json")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() //nolint:errcheck
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	addr := loggedAddr(ctx, t, &stderr, "web listening")
	iaddr := loggedAddr(ctx, t, &stderr, "internal listening")
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

// loggedAddr waits for the JSON log line msg and returns its addr.
func loggedAddr(ctx context.Context, t testing.TB, log *syncbuf.Buffer, msg string) string {
	t.Helper()
	for {
		for _, l := range strings.Split(log.String(), "\n") {
			var line struct{ Msg, Addr string }
			if json.Unmarshal([]byte(l), &line) == nil && line.Msg == msg && line.Addr != "" {
				return line.Addr
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no %q line in the log:\n%s", msg, log.String())
		case <-time.After(50 * time.Millisecond):
		}
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
