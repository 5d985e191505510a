package main

import (
	"bytes"
	"context"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/closedport"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/syncbuf"
)

func TestSetupCmdCode(t *testing.T) {
	sim := ghsimtest.New(t)
	dir := t.TempDir()
	t.Setenv("CHAKSHU_GITHUB_URL", sim.URL())
	t.Setenv("CHAKSHU_DATA_DIR", dir)
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"setup", "--code", "printed", "--print"}, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	for _, want := range []string{"CHAKSHU_APP_ID=", "CHAKSHU_APP_SLUG=chakshu-printed", `CHAKSHU_PRIVATE_KEY=-----BEGIN RSA PRIVATE KEY-----\n`, "CHAKSHU_WEBHOOK_SECRET=", "CHAKSHU_OAUTH_CLIENT_SECRET="} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed settings lack %s:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "app.env")); err == nil {
		t.Fatal("--print stored the settings")
	}
	out.Reset()
	if err := run(context.Background(), []string{"setup", "--code", "stored"}, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "app.env")); err != nil || !strings.Contains(string(b), "CHAKSHU_APP_SLUG=chakshu-stored") {
		t.Fatalf("app.env: %v\n%s", err, b)
	}
}

func TestSetupCmdPage(t *testing.T) {
	sim := ghsimtest.New(t)
	dir := t.TempDir()
	t.Setenv("CHAKSHU_GITHUB_URL", sim.URL())
	t.Setenv("CHAKSHU_DATA_DIR", dir)
	t.Setenv("CHAKSHU_ADDR", "127.0.0.1:0") // a port picked here and handed over may be taken meanwhile
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errb syncbuf.Buffer
	done := make(chan error, 1)
	go func() { done <- setupCmd(ctx, []string{"--org", "acme"}, &out, &errb) }()

	// The command prints where its page is once it listens.
	open := regexp.MustCompile(`Open (http://127\.0\.0\.1:[0-9]+)/setup\?org=acme in your browser`)
	var base string
	for i := 0; base == ""; i++ {
		if m := open.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		} else if i > 200 {
			t.Fatalf("no address printed:\n%s\n%s", out.String(), errb.String())
		} else {
			time.Sleep(50 * time.Millisecond)
		}
	}
	addr := strings.TrimPrefix(base, "http://")
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	resp, err := hc.Get(base + "/setup?org=acme")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	body := string(b)
	m := regexp.MustCompile(`action="[^"]*state=([0-9a-f]+)"`).FindStringSubmatch(html.UnescapeString(body))
	if m == nil {
		t.Fatalf("no form posting to GitHub:\n%s", body)
	}
	resp, err = hc.Get("http://" + addr + "/setup/callback?code=viapage&state=" + m[1])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("callback: %d", resp.StatusCode)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("setup did not exit after storing the App")
	}
	if !strings.Contains(out.String(), "chakshu-viapage") {
		t.Fatalf("output:\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "app.env")); err != nil {
		t.Fatal(err)
	}
}

func TestDoctorCmdFails(t *testing.T) {
	addr := closedport.Addr(t) // refuses connections
	t.Setenv("CHAKSHU_DATA_DIR", t.TempDir())
	t.Setenv("CHAKSHU_PUBLIC_URL", "http://"+addr)
	t.Setenv("CHAKSHU_MODEL_URL", "http://"+addr)
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"doctor"}, &out, &errb)
	if err == nil {
		t.Fatalf("doctor passed a sandbox with nothing running:\n%s", out.String())
	}
	for _, want := range []string{"FAIL database migrated", "fix: run `chakshu migrate`", "FAIL public URL reachable", "FAIL GitHub App configured", "checks failed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
