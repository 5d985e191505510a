package appmanifest

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
)

func TestBuildManifest(t *testing.T) {
	m := BuildManifest("", "https://chakshu.example.com/")
	want := Manifest{
		Name: "Chakshu", URL: "https://chakshu.example.com", Description: m.Description,
		HookAttributes: HookAttributes{URL: "https://chakshu.example.com/webhooks/github", Active: true},
		RedirectURL:    "https://chakshu.example.com/setup/callback",
		CallbackURLs:   []string{"https://chakshu.example.com/auth/callback"},
		DefaultPermissions: map[string]string{
			"actions": "write", "checks": "write", "contents": "write", "pull_requests": "write",
			"issues": "write", "members": "read", "metadata": "read",
		},
		DefaultEvents: []string{"issue_comment", "pull_request", "pull_request_review_comment", "workflow_run", "check_run", "push"},
	}
	if d := cmp.Diff(want, m); d != "" {
		t.Fatalf("manifest (-want +got):\n%s", d)
	}
	// What GitHub grants by default is what the simulator installs with: the
	// manifest must ask for exactly that set.
	if d := cmp.Diff(ghsim.DefaultPermissions(), m.DefaultPermissions); d != "" {
		t.Fatalf("manifest permissions differ from an installation's (-sim +manifest):\n%s", d)
	}
}

func TestNewAppURL(t *testing.T) {
	for _, tc := range []struct{ name, web, org, want string }{
		{"org", "https://github.com", "acme", "https://github.com/organizations/acme/settings/apps/new?state=s1"},
		{"user", "https://github.com/", "", "https://github.com/settings/apps/new?state=s1"},
		{"ghes", "https://ghe.example.com", "eng", "https://ghe.example.com/organizations/eng/settings/apps/new?state=s1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NewAppURL(tc.web, tc.org, "s1"); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestConvertAndSave(t *testing.T) {
	s := ghsimtest.New(t)
	c, err := Convert(context.Background(), nil, s.URL(), "abc123")
	if err != nil {
		t.Fatal(err)
	}
	if c.ID == 0 || c.Slug == "" || c.WebhookSecret == "" || c.ClientID == "" || c.ClientSecret == "" {
		t.Fatalf("incomplete credentials: %+v", c)
	}
	dir := t.TempDir()
	saved, err := Save(filepath.Join(dir, "data"), "https://chakshu.example.com", c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{saved.EnvFile, saved.KeyFile} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", p, fi.Mode().Perm())
		}
	}
	first, _ := os.ReadFile(saved.EnvFile)
	again, err := Save(filepath.Join(dir, "data"), "https://chakshu.example.com", c)
	if err != nil {
		t.Fatal(err)
	}
	if again.EnvFile != filepath.Join(filepath.Dir(saved.EnvFile), "app-"+c.Slug+".env") || again.KeyFile == saved.KeyFile {
		t.Fatalf("second App stored at %+v, want beside the first", again)
	}
	if now, _ := os.ReadFile(saved.EnvFile); string(now) != string(first) {
		t.Fatal("a second Save changed app.env")
	}
	if _, err := Save(filepath.Join(dir, "data"), "https://chakshu.example.com", c); err == nil {
		t.Fatal("a third Save of the same App overwrote its file")
	}

	// The stored file is a working configuration: config loads it and the key
	// is accepted by GitHub.
	t.Setenv("CHAKSHU_CONFIG_FILE", saved.EnvFile)
	t.Setenv("CHAKSHU_MODEL_API_KEY", "test-key")
	look, err := config.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(look)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Sandbox || cfg.AppID != c.ID || cfg.AppSlug != c.Slug || cfg.WebhookSecrets[0] != c.WebhookSecret ||
		cfg.OAuthClientID != c.ClientID || len(cfg.SecretKey) != 32 || cfg.PublicURL != "https://chakshu.example.com" {
		t.Fatalf("loaded config does not match the App: %+v", cfg)
	}
	apps, err := gh.New(gh.Config{AppID: cfg.AppID, PrivateKey: cfg.PrivateKey, BaseURL: s.URL(), GraphQLURL: s.GraphQLURL()})
	if err != nil {
		t.Fatal(err)
	}
	app, _, err := apps.App().Apps.Get(context.Background(), "")
	if err != nil {
		t.Fatalf("GET /app with the stored key: %v", err)
	}
	if app.GetSlug() != c.Slug {
		t.Fatalf("GET /app: slug %q, want %q", app.GetSlug(), c.Slug)
	}
}

func TestPrintedSettingsLoad(t *testing.T) {
	s := ghsimtest.New(t)
	c, err := Convert(context.Background(), http.DefaultClient, s.URL(), "printme")
	if err != nil {
		t.Fatal(err)
	}
	out := Format(c.Settings(""))
	if strings.Count(out, "\n") != 6 {
		t.Fatalf("want 6 one-line settings, got:\n%s", out)
	}
	vals := map[string]string{"CHAKSHU_SECRET_KEY": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "CHAKSHU_MODEL_API_KEY": "k"}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, _ := strings.Cut(line, "=")
		vals[k] = v
	}
	cfg, err := config.Load(func(n string) (string, bool) { v, ok := vals[n]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.AppID != c.ID || !strings.HasPrefix(string(cfg.PrivateKey), "-----BEGIN") || !strings.Contains(string(cfg.PrivateKey), "\n") {
		t.Fatalf("printed settings do not load: app %d key %q…", cfg.AppID, string(cfg.PrivateKey)[:20])
	}
}

func TestConvertRefuses(t *testing.T) {
	s := ghsimtest.New(t)
	for _, tc := range []struct{ name, url, code string }{
		{"empty code", s.URL(), ""},
		{"code with a path", s.URL(), "../app"},
		{"not GitHub", s.WebURL() + "/nowhere/", "abc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Convert(context.Background(), nil, tc.url, tc.code); err == nil {
				t.Fatal("want an error")
			}
		})
	}
}
