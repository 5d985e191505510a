package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/closedport"
)

// The simulated runner's download does what the template's step does: one
// clear ::error:: line for each failure, and a binary only when its digest
// is the one the server published.
func TestDownloadRunner(t *testing.T) {
	body := []byte("#!/bin/sh\necho runner\n")
	good := sha256.Sum256(body)
	published := hex.EncodeToString(good[:])
	var mu sync.Mutex // the handler runs on the server's goroutines
	var fails int
	set := func(f int, sum string) { mu.Lock(); fails, published = f, sum; mu.Unlock() }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/api/runner/v1/runner/linux/amd64/chakshu-action":
			if fails > 0 {
				fails--
				http.Error(w, `{"error":{"code":"runner_unavailable"}}`, http.StatusServiceUnavailable)
				return
			}
			w.Write(body)
		case "/api/runner/v1/runner/linux/amd64/chakshu-action.sha256":
			w.Write([]byte(published + "  chakshu-action\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	run := func(c DownloadConfig) (string, string, error) {
		var log bytes.Buffer
		c.Dir, c.Log, c.Backoff = t.TempDir(), &log, time.Millisecond
		p, err := DownloadRunner(ctx, c)
		return p, log.String(), err
	}

	set(2, published) // retried past two failures
	p, log, err := run(DownloadConfig{ServerURL: srv.URL, GOOS: "linux", GOARCH: "amd64", Attempts: 3})
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, body) || !strings.Contains(log, "sha256 "+published+" verified") {
		t.Fatalf("downloaded %q; log %s", b, log)
	}
	if st, _ := os.Stat(p); st.Mode()&0o100 == 0 {
		t.Fatal("not executable")
	}

	set(3, published) // one failure more than the attempts allow
	if _, log, err := run(DownloadConfig{ServerURL: srv.URL, GOOS: "linux", GOARCH: "amd64", Attempts: 3}); err == nil ||
		!strings.Contains(log, "::error::Could not download chakshu-action from Chakshu at "+srv.URL+" (tried 3 times)") || !strings.Contains(log, "runner_unavailable") {
		t.Fatalf("%v %s", err, log)
	}
	set(0, published)

	dead := "http://" + closedport.Addr(t)
	if _, log, err := run(DownloadConfig{ServerURL: dead, GOOS: "linux", GOARCH: "amd64", Attempts: 2}); err == nil ||
		!strings.Contains(log, "::error::Could not download chakshu-action from Chakshu at "+dead) {
		t.Fatalf("unreachable: %v %s", err, log)
	}

	for _, p := range [][2]string{{"windows", "amd64"}, {"darwin", "arm64"}, {"linux", "386"}} {
		if _, log, err := run(DownloadConfig{ServerURL: srv.URL, GOOS: p[0], GOARCH: p[1]}); err == nil ||
			!strings.Contains(log, "::error::Chakshu's runner is built for Linux on X64 and ARM64, not "+p[0]+"/"+p[1]) {
			t.Fatalf("%v: %v %s", p, err, log)
		}
	}

	set(0, strings.Repeat("0", 64)) // the server publishes another digest
	p, log, err = run(DownloadConfig{ServerURL: srv.URL, GOOS: "linux", GOARCH: "amd64"})
	if err == nil || !strings.Contains(log, "::error::chakshu-action from "+srv.URL+" does not match the SHA-256 the server published") {
		t.Fatalf("mismatch: %v %s", err, log)
	}
	if p != "" {
		t.Fatal("a binary that failed its check was handed out")
	}
}
