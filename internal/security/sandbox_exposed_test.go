package security

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/app"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// claimedListener is a real loopback listener that reports another address:
// the test never listens beyond loopback, yet Chakshu sees the address an
// operator configured.
type claimedListener struct {
	net.Listener
	addr net.Addr
}

func (l claimedListener) Addr() net.Addr { return l.addr }

// startSandbox runs `chakshu all` with no GitHub App and reports whether
// the sandbox came up (true) or Run refused (false, with its error).
func startSandbox(t *testing.T, env map[string]string, claimed string) (bool, error) {
	t.Helper()
	vars := map[string]string{"CHAKSHU_DATA_DIR": t.TempDir(), "CHAKSHU_LOG_FORMAT": "text"}
	for k, v := range env {
		vars[k] = v
	}
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		return false, err
	}
	if !cfg.Sandbox {
		t.Fatal("no App configured, yet not sandbox mode")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var l net.Listener = ln
	if claimed != "" {
		a, err := net.ResolveTCPAddr("tcp", claimed)
		if err != nil {
			t.Fatal(err)
		}
		l = claimedListener{ln, a}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- app.Run(ctx, app.Options{Mode: app.ModeAll, Config: cfg, Stderr: io.Discard, Listener: l,
			Sandbox:      app.SandboxOptions{HistoryRuns: -1},
			SandboxReady: func(*sandbox.Sandbox) { ready <- struct{}{} }})
	}()
	defer ln.Close()
	select {
	case <-ready:
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("sandbox did not stop")
		}
		return true, nil
	case err := <-done:
		return false, err
	case <-time.After(60 * time.Second):
		t.Fatal("sandbox neither started nor refused")
		return false, nil
	}
}

// TestSandboxExposed: sandbox mode (admin for whoever opens the portal)
// refuses to start on a non-loopback address or against a
// CHAKSHU_DATABASE_URL unless asked for with CHAKSHU_SANDBOX=1; `make run`'s
// way (loopback, SQLite in the data dir) still starts.
func TestSandboxExposed(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:8080", "[::]:8080", "192.0.2.10:8080"} {
		if up, err := startSandbox(t, nil, addr); up || err == nil || !strings.Contains(err.Error(), "CHAKSHU_SANDBOX=1") {
			t.Errorf("sandbox on %s: started=%v err=%v, want a refusal naming CHAKSHU_SANDBOX=1", addr, up, err)
		}
	}
	pg := storetest.NewPostgresDatabase(t)
	if up, err := startSandbox(t, map[string]string{"CHAKSHU_DATABASE_URL": pg}, ""); up || err == nil || !strings.Contains(err.Error(), "CHAKSHU_DATABASE_URL") {
		t.Errorf("sandbox against CHAKSHU_DATABASE_URL: started=%v err=%v, want a refusal", up, err)
	}
	// Asked for explicitly: both are allowed.
	if up, err := startSandbox(t, map[string]string{"CHAKSHU_SANDBOX": "1", "CHAKSHU_DATABASE_URL": pg}, "0.0.0.0:8080"); !up {
		t.Errorf("CHAKSHU_SANDBOX=1 exposed on PostgreSQL: did not start: %v", err)
	}
	// make run: `chakshu all` on the default 127.0.0.1 address, SQLite.
	if up, err := startSandbox(t, nil, ""); !up {
		t.Errorf("sandbox on loopback with SQLite did not start: %v", err)
	}
}

func TestSandboxAllowedAddresses(t *testing.T) {
	c := &config.Config{SharedPart: config.SharedPart{Sandbox: true}}
	for addr, ok := range map[string]bool{
		"127.0.0.1:8080": true, "localhost:8080": true, "[::1]:8080": true, "127.9.9.9:1": true,
		":8080": false, "0.0.0.0:8080": false, "[::]:8080": false, "10.0.0.1:80": false,
		"example.com:80": false, "[::ffff:10.0.0.1]:80": false, "not an address": false,
	} {
		if err := c.SandboxAllowed(addr); (err == nil) != ok {
			t.Errorf("SandboxAllowed(%q) = %v, want allowed=%v", addr, err, ok)
		}
	}
	explicit := &config.Config{SharedPart: config.SharedPart{Sandbox: true, SandboxExplicit: true, DatabaseURL: "postgres://x"}}
	if err := explicit.SandboxAllowed("0.0.0.0:80"); err != nil {
		t.Errorf("explicit sandbox refused: %v", err)
	}
	if _, err := config.Load(func(k string) (string, bool) {
		v, ok := map[string]string{"CHAKSHU_SANDBOX": "yes please"}[k]
		return v, ok
	}); err == nil {
		t.Error("CHAKSHU_SANDBOX=\"yes please\" accepted")
	}
}
