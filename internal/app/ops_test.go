package app

import (
	"context"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/syncbuf"
	"github.com/chakshu-dev/chakshu/server/webhook/webhooktest"
)

func loadConfig(t *testing.T, vars map[string]string) *config.Config {
	t.Helper()
	vars["CHAKSHU_DATA_DIR"] = t.TempDir()
	vars["CHAKSHU_LOG_FORMAT"] = "json"
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func status(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// `chakshu web` with no GitHub App serves only the setup page (and health),
// open with the one-time token it prints, and creates the App on the
// configured Enterprise Server host.
func TestWebWithoutAppServesOnlySetup(t *testing.T) {
	cfg := loadConfig(t, map[string]string{"CHAKSHU_GITHUB_URL": "https://ghe.example.com/api/v3/",
		"CHAKSHU_PUBLIC_URL": "https://chakshu.example.com"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	started := make(chan string, 1)
	go func() {
		done <- Run(ctx, Options{Mode: ModeWeb, Config: cfg, Listener: ln, Stdout: &stdout, Stderr: &stderr,
			Started: func(a string) { started <- a }})
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("web without an App stopped: %v\n%s", err, stderr.String())
	}
	m := regexp.MustCompile(`/setup\?token=([0-9a-f]+)`).FindStringSubmatch(stdout.String())
	if m == nil || !strings.Contains(stdout.String(), "https://chakshu.example.com/setup?token=") {
		t.Fatalf("no setup link on stdout: %q", stdout.String())
	}
	base := "http://" + ln.Addr().String()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	for _, p := range []string{"/setup", "/setup?token=wrong", "/setup/callback?code=x&state=y"} {
		if code, _ := status(t, c, base+p); code != http.StatusForbidden {
			t.Errorf("GET %s without the token: %d, want 403", p, code)
		}
	}
	for _, p := range []string{"/graphql", "/api/runner/v1/job", "/"} {
		if code, _ := status(t, c, base+p); code != http.StatusNotFound {
			t.Errorf("GET %s in setup mode: %d, want 404 (nothing but setup is served)", p, code)
		}
	}
	if code, _ := status(t, c, base+"/readyz"); code != 200 {
		t.Errorf("readyz in setup mode: %d", code)
	}
	if code, body := status(t, c, base+"/setup?token="+m[1]); code != 200 || !strings.Contains(body, `name="org"`) {
		t.Fatalf("setup with the token: %d\n%s", code, body)
	}
	code, body := status(t, c, base+"/setup?org=acme") // the cookie carries the token on
	if code != 200 {
		t.Fatalf("setup?org=acme: %d\n%s", code, body)
	}
	action := html.UnescapeString(regexp.MustCompile(`action="([^"]+)"`).FindStringSubmatch(body)[1])
	if !strings.HasPrefix(action, "https://ghe.example.com/organizations/acme/settings/apps/new?state=") {
		t.Fatalf("manifest posted to %s, want the Enterprise Server host", action)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A production web process without an OAuth client refuses to start with
// one line naming the setting.
func TestWebRefusesAppWithoutOAuthClient(t *testing.T) {
	cfg := &config.Config{
		SharedPart: config.SharedPart{AppID: 1, AppSlug: "x", PrivateKey: []byte("k")},
		WebPart:    config.WebPart{WebhookSecrets: []string{"s"}},
	}
	err := Run(context.Background(), Options{Mode: ModeWeb, Config: cfg, Stderr: io.Discard})
	if err == nil || !strings.HasPrefix(err.Error(), "CHAKSHU_OAUTH_CLIENT_ID:") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %v", err)
	}
}

// On SIGTERM (ctx ends) readiness on the internal listener turns 503 at
// once while a request in flight on the public listener still finishes;
// /metrics is on the internal listener only; the sandbox's setup page is for
// admins only.
func TestDrainAndInternalListener(t *testing.T) {
	cfg := loadConfig(t, map[string]string{"CHAKSHU_DRAIN_TIMEOUT": "20s"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	internal := make(chan string, 1)
	ready := make(chan struct{})
	go func() {
		done <- Run(ctx, Options{Mode: ModeAll, Config: cfg, Listener: ln, Stderr: &stderr,
			InternalStarted: func(a string) { internal <- a },
			Sandbox:         SandboxOptions{HistoryRuns: -1}, SandboxReady: func(*sandbox.Sandbox) { close(ready) }})
	}()
	iurl := "http://" + <-internal
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("stopped at start: %v\n%s", err, stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatal("no start within 60s")
	}
	pub := "http://" + ln.Addr().String()
	c := http.DefaultClient
	deadline := time.Now().Add(10 * time.Second)
	for {
		if code, _ := status(t, c, iurl+"/readyz"); code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("internal /readyz never 200")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, body := status(t, c, iurl+"/metrics"); code != 200 || !strings.Contains(body, "chakshu_github_requests_total") && !strings.Contains(body, "go_goroutines") {
		t.Fatalf("internal /metrics: %d", code)
	}
	if code, _ := status(t, c, pub+"/metrics"); code != http.StatusNotFound {
		t.Fatalf("public /metrics: %d, want 404", code)
	}
	if code, _ := status(t, c, pub+"/setup"); code != http.StatusForbidden {
		t.Fatalf("sandbox /setup without signing in: %d, want 403", code)
	}

	// A webhook delivery whose body is still arriving when the signal comes.
	body := []byte(`{"action":"created","zen":"drain"}`)
	pr, pw := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, pub+"/webhooks/github", pr)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "ping")
	req.Header.Set("X-GitHub-Delivery", "drain-1")
	req.Header.Set("X-Hub-Signature-256", webhooktest.Sign(config.SandboxSecret, body))
	answered := make(chan int, 1)
	go func() {
		resp, err := c.Do(req)
		if err != nil {
			answered <- -1
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	pw.Write(body[:10]) //nolint:errcheck
	time.Sleep(200 * time.Millisecond)
	cancel()
	deadline = time.Now().Add(5 * time.Second)
	for {
		code, b := status(t, c, iurl+"/readyz")
		if code == http.StatusServiceUnavailable && strings.Contains(b, "draining") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("internal /readyz during the drain: %d %s", code, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("stopped before the request in flight finished: %v", err)
	default:
	}
	pw.Write(body[10:]) //nolint:errcheck
	pw.Close()
	if code := <-answered; code != http.StatusAccepted && code != http.StatusOK {
		t.Fatalf("the delivery in flight got %d", code)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no stop after the drain")
	}
	if !strings.Contains(stderr.String(), `"msg":"http request"`) {
		t.Error("no access log line")
	}
}
