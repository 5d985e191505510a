// Package webhooktest helps tests deliver webhooks: it signs payloads like
// GitHub does, loads GitHub's published example payloads
// (@octokit/webhooks-examples, installed with `npm ci` on first use), and
// serves Chakshu's webhook intake over real HTTP (StartIntake), the set-up
// every test that lets the simulator deliver to Chakshu shares.
package webhooktest

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/chakshu-dev/chakshu/server/webhook"
)

// Sign returns the X-Hub-Signature-256 value of body under secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Request builds a signed delivery to url.
func Request(t testing.TB, url, secret, event, delivery string, body []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", Sign(secret, body))
	return req
}

// Example is one of GitHub's example payloads.
type Example struct {
	Event  string
	Action string
	// Index numbers the examples of one event.
	Index   int
	Payload []byte
}

// Name is a subtest name for the example.
func (e Example) Name() string {
	a := e.Action
	if a == "" {
		a = "-"
	}
	return fmt.Sprintf("%s.%s.%d", e.Event, a, e.Index)
}

var (
	loadOnce sync.Once
	loaded   []Example
	loadErr  error
)

// Examples returns the examples of the given events (all events when none is given).
func Examples(t testing.TB, events ...string) []Example {
	t.Helper()
	loadOnce.Do(func() { loaded, loadErr = load() })
	if loadErr != nil {
		t.Fatalf("webhook examples: %v", loadErr)
	}
	want := map[string]bool{}
	for _, e := range events {
		want[e] = true
	}
	var out []Example
	for _, e := range loaded {
		if len(want) == 0 || want[e.Event] {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		t.Fatalf("webhook examples: none for %v", events)
	}
	return out
}

// dir is server/webhook/testdata, where package.json pins the examples.
func dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata")
}

func load() ([]Example, error) {
	d := dir()
	index := filepath.Join(d, "node_modules", "@octokit", "webhooks-examples", "api.github.com", "index.json")
	if _, err := os.Stat(index); err != nil {
		if err := npmCI(d); err != nil {
			return nil, err
		}
	}
	b, err := os.ReadFile(index)
	if err != nil {
		return nil, err
	}
	var events []struct {
		Name     string            `json:"name"`
		Examples []json.RawMessage `json:"examples"`
	}
	if err := json.Unmarshal(b, &events); err != nil {
		return nil, fmt.Errorf("%s: %w", index, err)
	}
	var out []Example
	for _, ev := range events {
		for i, raw := range ev.Examples {
			var a struct {
				Action string `json:"action"`
			}
			json.Unmarshal(raw, &a) //nolint:errcheck // push has no action
			out = append(out, Example{Event: ev.Name, Action: a.Action, Index: i, Payload: raw})
		}
	}
	return out, nil
}

// npmCI installs the pinned examples, under a file lock so that test binaries
// running side by side do not install over each other.
func npmCI(d string) error {
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "chakshu-webhook-examples.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck
	if _, err := os.Stat(filepath.Join(d, "node_modules", "@octokit", "webhooks-examples", "package.json")); err == nil {
		return nil // another test binary installed it while we waited
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts")
	cmd.Dir = d
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci in %s: %v\n%s", d, err, out)
	}
	return nil
}

// Handled are the events Chakshu acts on (the rest are stored and ignored).
var Handled = []string{
	"issue_comment", "pull_request", "pull_request_review_comment", "workflow_run",
	"check_run", "installation", "installation_repositories", "push",
}

// Intake is Chakshu's webhook intake (server/webhook) served over real HTTP
// for a test.
type Intake struct {
	Handler *webhook.Handler
	Server  *httptest.Server
	// URL is where deliveries go: the server's webhook.Route.
	URL string
}

// StartIntake builds the intake with cfg (a quiet logger when cfg.Log is nil)
// and serves it at webhook.Route on a test server on 127.0.0.1. The server and
// the intake's writers close when the test ends. Point the simulator's App at
// it with sim.SetWebhook(in.URL, secret).
func StartIntake(tb testing.TB, cfg webhook.Config) *Intake {
	tb.Helper()
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	h, err := webhook.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(webhook.Route, h)
	srv := httptest.NewServer(mux)
	tb.Cleanup(func() { srv.Close(); h.Close() })
	return &Intake{Handler: h, Server: srv, URL: srv.URL + strings.TrimPrefix(webhook.Route, http.MethodPost+" ")}
}
