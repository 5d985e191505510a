// Package appmanifest creates Chakshu's GitHub App from a manifest (GitHub's
// documented manifest flow): it builds the manifest with exactly the
// permissions and events Chakshu needs, converts the code GitHub hands back,
// and stores or prints the App's credentials as settings.
package appmanifest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Permission is one App permission with the reason Chakshu asks for it.
type Permission struct {
	Name, Access, Why string
}

// Permissions are exactly what Chakshu asks for (README "Installing the GitHub App").
var Permissions = []Permission{
	{"actions", "write", "start .github/workflows/chakshu.yml with workflow_dispatch and read the run it started"},
	{"checks", "write", "one check run per review, Chakshu · <reviewer>"},
	{"contents", "write", "resolve Chakshu's own outdated review threads: GitHub gates resolveReviewThread on Contents: write " +
		"(Pull requests: write alone is FORBIDDEN); only the resolve step's token carries it, every other token reads; " +
		"Chakshu never pushes. Also: the reviewers repo, .github/chakshu.yml, compare and file look-ups"},
	{"pull_requests", "write", "post the review and its inline comments, answer in threads, resolve outdated threads"},
	{"issues", "write", "answer commands in the PR conversation, labels"},
	{"members", "read", "match review requests to a reviewer's request_as team"},
	{"metadata", "read", "required by GitHub"},
}

// Events are the webhook events Chakshu subscribes to (installation events
// are always sent).
var Events = []string{"issue_comment", "pull_request", "pull_request_review_comment", "workflow_run", "check_run", "push"}

// Paths on Chakshu's public URL the manifest points at.
const (
	WebhookPath       = "/webhooks/github"
	OAuthCallbackPath = "/auth/callback"
	RedirectPath      = "/setup/callback"
)

// Manifest is GitHub's App manifest.
type Manifest struct {
	Name                  string            `json:"name"`
	URL                   string            `json:"url"`
	Description           string            `json:"description"`
	HookAttributes        HookAttributes    `json:"hook_attributes"`
	RedirectURL           string            `json:"redirect_url"`
	CallbackURLs          []string          `json:"callback_urls"`
	Public                bool              `json:"public"`
	RequestOAuthOnInstall bool              `json:"request_oauth_on_install"`
	DefaultPermissions    map[string]string `json:"default_permissions"`
	DefaultEvents         []string          `json:"default_events"`
}

// HookAttributes is the manifest's webhook.
type HookAttributes struct {
	URL    string `json:"url"`
	Active bool   `json:"active"`
}

// BuildManifest returns the manifest for a Chakshu reached at publicURL.
// name is the App's name on GitHub (empty: "Chakshu").
func BuildManifest(name, publicURL string) Manifest {
	if name == "" {
		name = "Chakshu"
	}
	pub := strings.TrimRight(publicURL, "/")
	perms := map[string]string{}
	for _, p := range Permissions {
		perms[p.Name] = p.Access
	}
	return Manifest{
		Name:               name,
		URL:                pub,
		Description:        "Self-hosted AI pull request reviewers.",
		HookAttributes:     HookAttributes{URL: pub + WebhookPath, Active: true},
		RedirectURL:        pub + RedirectPath,
		CallbackURLs:       []string{pub + OAuthCallbackPath},
		DefaultPermissions: perms,
		DefaultEvents:      append([]string(nil), Events...),
	}
}

// NewAppURL is where the manifest is posted as the form field "manifest":
// the organisation's "new App" page, or the user's when org is empty.
func NewAppURL(webURL, org, state string) string {
	base := strings.TrimRight(webURL, "/")
	p := base + "/settings/apps/new"
	if org != "" {
		p = base + "/organizations/" + url.PathEscape(org) + "/settings/apps/new"
	}
	return p + "?state=" + url.QueryEscape(state)
}

// NewState returns a random state value for the round trip through GitHub.
func NewState() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Credentials are what the conversion returns.
type Credentials struct {
	ID            int64  `json:"id"`
	Slug          string `json:"slug"`
	Name          string `json:"name"`
	HTMLURL       string `json:"html_url"`
	ClientID      string `json:"client_id"`
	ClientSecret  string `json:"client_secret"`
	WebhookSecret string `json:"webhook_secret"`
	PEM           string `json:"pem"`
	Owner         struct {
		Login string `json:"login"`
	} `json:"owner"`
}

// maxConversion bounds the conversion response read.
const maxConversion = 1 << 20

// Convert exchanges the code GitHub passed to the redirect URL for the new
// App's credentials (POST /app-manifests/{code}/conversions; no auth).
// apiURL is the REST base (CHAKSHU_GITHUB_URL).
func Convert(ctx context.Context, hc *http.Client, apiURL, code string) (*Credentials, error) {
	if code == "" || strings.ContainsAny(code, "/?#") {
		return nil, errors.New("manifest conversion: missing or malformed code")
	}
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	u := strings.TrimRight(apiURL, "/") + "/app-manifests/" + url.PathEscape(code) + "/conversions"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
	if err != nil {
		return nil, fmt.Errorf("manifest conversion: %w", err)
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("manifest conversion: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxConversion))
	if err != nil {
		return nil, fmt.Errorf("manifest conversion: read: %w", err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		var e struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(body, &e)
		return nil, fmt.Errorf("manifest conversion: GitHub answered %d %s (codes are single use and expire after an hour: start again)", resp.StatusCode, e.Message)
	}
	var c Credentials
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, fmt.Errorf("manifest conversion: decode: %w", err)
	}
	if c.ID == 0 || c.Slug == "" || !strings.Contains(c.PEM, "PRIVATE KEY-----") || c.WebhookSecret == "" {
		return nil, errors.New("manifest conversion: the answer lacks the App id, slug, key or webhook secret")
	}
	return &c, nil
}

// Setting is one NAME=value pair.
type Setting struct{ Name, Value string }

// Settings are the App's settings to copy. The key is inline with escaped
// newlines (CHAKSHU_PRIVATE_KEY reads "\n" as a newline) unless keyFile is
// set, then CHAKSHU_PRIVATE_KEY_FILE names it.
func (c *Credentials) Settings(keyFile string) []Setting {
	s := []Setting{
		{"CHAKSHU_APP_ID", strconv.FormatInt(c.ID, 10)},
		{"CHAKSHU_APP_SLUG", c.Slug},
	}
	if keyFile != "" {
		s = append(s, Setting{"CHAKSHU_PRIVATE_KEY_FILE", keyFile})
	} else {
		s = append(s, Setting{"CHAKSHU_PRIVATE_KEY", strings.ReplaceAll(strings.TrimSpace(c.PEM), "\n", `\n`)})
	}
	s = append(s, Setting{"CHAKSHU_WEBHOOK_SECRET", c.WebhookSecret})
	if c.ClientID != "" {
		s = append(s, Setting{"CHAKSHU_OAUTH_CLIENT_ID", c.ClientID}, Setting{"CHAKSHU_OAUTH_CLIENT_SECRET", c.ClientSecret})
	}
	return s
}

// Format renders settings as NAME=value lines (what CHAKSHU_CONFIG_FILE reads).
func Format(settings []Setting) string {
	var b strings.Builder
	for _, s := range settings {
		fmt.Fprintf(&b, "%s=%s\n", s.Name, s.Value)
	}
	return b.String()
}

// Saved says where Save wrote.
type Saved struct {
	// EnvFile is the settings file (point CHAKSHU_CONFIG_FILE at it).
	EnvFile string
	// KeyFile is the App's private key.
	KeyFile string
}

// Save writes the App's key to <dir>/app-key.pem and its settings to
// <dir>/app.env, both 0600, adding CHAKSHU_PUBLIC_URL and a fresh
// CHAKSHU_SECRET_KEY. It never overwrites: when app.env exists (another App)
// it writes app-<slug>.env and app-<slug>-key.pem instead.
func Save(dir, publicURL string, c *Credentials) (*Saved, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("setup: data dir: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("setup: data dir: %w", err)
	}
	s := &Saved{EnvFile: filepath.Join(abs, "app.env"), KeyFile: filepath.Join(abs, "app-key.pem")}
	if _, err := os.Stat(s.EnvFile); err == nil {
		// Another App is stored already: keep it, and this one beside it
		// (the new App exists on GitHub now; its key must not be lost).
		s = &Saved{EnvFile: filepath.Join(abs, "app-"+safeName(c.Slug)+".env"), KeyFile: filepath.Join(abs, "app-"+safeName(c.Slug)+"-key.pem")}
		if _, err := os.Stat(s.EnvFile); err == nil {
			return nil, fmt.Errorf("setup: %s exists already", s.EnvFile)
		}
	}
	if err := writePrivate(s.KeyFile, []byte(strings.TrimSpace(c.PEM)+"\n")); err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("setup: secret key: %w", err)
	}
	settings := append(c.Settings(s.KeyFile),
		Setting{"CHAKSHU_PUBLIC_URL", strings.TrimRight(publicURL, "/")},
		Setting{"CHAKSHU_SECRET_KEY", base64.StdEncoding.EncodeToString(key)})
	head := fmt.Sprintf("# GitHub App %q (%s), created %s by chakshu setup.\n# Also set CHAKSHU_MODEL_API_KEY (and CHAKSHU_DATABASE_URL for PostgreSQL).\n",
		c.Slug, c.HTMLURL, time.Now().UTC().Format(time.RFC3339))
	if err := writePrivate(s.EnvFile, []byte(head+Format(settings))); err != nil {
		return nil, err
	}
	return s, nil
}

// writePrivate writes a 0600 file atomically (temp file then rename).
func writePrivate(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".setup-*")
	if err != nil {
		return fmt.Errorf("setup: write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("setup: write %s: %w", path, err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("setup: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("setup: write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("setup: write %s: %w", path, err)
	}
	return nil
}

// safeName keeps letters, digits and '-' of a slug for a file name.
func safeName(slug string) string {
	b := []byte(slug)
	out := b[:0]
	for _, c := range b {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return "new"
	}
	return string(out)
}
