package config

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func lookup(m map[string]string) Lookup {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----"

var key32 = base64.StdEncoding.EncodeToString(make([]byte, 32))

func TestSandboxDefaults(t *testing.T) {
	c, err := Load(lookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Sandbox || c.Addr != DefaultAddr || c.PublicURL != "http://"+DefaultAddr || c.OIDCAudience != c.PublicURL ||
		c.WebhookSecrets[0] != SandboxSecret || !c.IsAdmin(SandboxUser) || c.AppSlug != "chakshu" ||
		c.HeartbeatInterval != 20*time.Second || c.DeadWorkerAfter != 90*time.Second || c.RunReportTimeout != 45*time.Minute ||
		c.DatabaseMaxConns != 20 {
		t.Fatalf("sandbox defaults: %+v", c)
	}
	if c.GitHubGraphQLURL != DefaultGraphQLURL {
		t.Fatalf("graphql url %q", c.GitHubGraphQLURL)
	}
}

func TestProductionConfig(t *testing.T) {
	c, err := Load(lookup(map[string]string{
		"CHAKSHU_APP_ID": "42", "CHAKSHU_APP_SLUG": "acme-chakshu", "CHAKSHU_PRIVATE_KEY": strings.ReplaceAll(pem, "\n", `\n`),
		"CHAKSHU_WEBHOOK_SECRET": "new, old", "CHAKSHU_SECRET_KEY": key32, "CHAKSHU_MODEL_API_KEY": "k",
		"CHAKSHU_GITHUB_URL": "https://ghe.example.com/api/v3", "CHAKSHU_ADMINS": "ana, bo",
		"CHAKSHU_DATABASE_MAX_CONNS": "50",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Sandbox || c.AppID != 42 || !strings.Contains(string(c.PrivateKey), "\nMIIB\n") ||
		len(c.WebhookSecrets) != 2 || c.WebhookSecrets[1] != "old" || !c.IsAdmin("BO") || c.IsAdmin("eve") ||
		c.DatabaseMaxConns != 50 {
		t.Fatalf("production config: %+v", c)
	}
	if c.GitHubURL != "https://ghe.example.com/api/v3/" || c.GitHubGraphQLURL != "https://ghe.example.com/api/graphql" {
		t.Fatalf("GHES URLs: %q %q", c.GitHubURL, c.GitHubGraphQLURL)
	}
}

// Each bad setting stops the process with one line that names it.
func TestBadSettingsNameThemselves(t *testing.T) {
	app := map[string]string{"CHAKSHU_APP_ID": "42", "CHAKSHU_APP_SLUG": "s", "CHAKSHU_PRIVATE_KEY": pem,
		"CHAKSHU_WEBHOOK_SECRET": "x", "CHAKSHU_SECRET_KEY": key32, "CHAKSHU_MODEL_API_KEY": "k"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range app {
			m[a] = b
		}
		if v == "<unset>" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	cases := map[string]map[string]string{
		"CHAKSHU_ADDR":                {"CHAKSHU_ADDR": "8080"},
		"CHAKSHU_PUBLIC_URL":          {"CHAKSHU_PUBLIC_URL": "ftp://x"},
		"CHAKSHU_DATABASE_URL":        {"CHAKSHU_DATABASE_URL": "mysql://x"},
		"CHAKSHU_APP_ID":              {"CHAKSHU_APP_ID": "abc"},
		"CHAKSHU_PRIVATE_KEY":         with("CHAKSHU_PRIVATE_KEY", "not a key"),
		"CHAKSHU_APP_SLUG":            with("CHAKSHU_APP_SLUG", "<unset>"),
		"CHAKSHU_WEBHOOK_SECRET":      with("CHAKSHU_WEBHOOK_SECRET", "<unset>"),
		"CHAKSHU_SECRET_KEY":          with("CHAKSHU_SECRET_KEY", "c2hvcnQ="),
		"CHAKSHU_MODEL_API_KEY":       with("CHAKSHU_MODEL_API_KEY", "<unset>"),
		"CHAKSHU_OAUTH_CLIENT_SECRET": {"CHAKSHU_OAUTH_CLIENT_ID": "id"},
		"CHAKSHU_LOG_LEVEL":           {"CHAKSHU_LOG_LEVEL": "loud"},
		"CHAKSHU_LOG_FORMAT":          {"CHAKSHU_LOG_FORMAT": "xml"},
		"CHAKSHU_DEAD_WORKER_AFTER":   {"CHAKSHU_DEAD_WORKER_AFTER": "500ms"},
		"CHAKSHU_DATABASE_MAX_CONNS":  {"CHAKSHU_DATABASE_MAX_CONNS": "0"},
	}
	for name, env := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Load(lookup(env))
			if err == nil || !strings.HasPrefix(err.Error(), name+":") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line starting with %s:", err, name)
			}
			if strings.Contains(err.Error(), "MIIB") || strings.Contains(err.Error(), key32) {
				t.Fatalf("the error leaks a secret: %v", err)
			}
		})
	}
}

func TestConfigFileAndEnvironment(t *testing.T) {
	p := filepath.Join(t.TempDir(), "chakshu.env")
	if err := os.WriteFile(p, []byte("# comment\nCHAKSHU_ADDR=127.0.0.1:9999\nCHAKSHU_LOG_LEVEL='debug'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CHAKSHU_CONFIG_FILE", p)
	t.Setenv("CHAKSHU_LOG_LEVEL", "warn")
	look, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(look)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:9999" || c.LogLevel != "warn" {
		t.Fatalf("file then environment: addr %s level %s", c.Addr, c.LogLevel)
	}
	if err := os.WriteFile(p, []byte("NOT_OURS=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := FromEnv(); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("a bad line: %v", err)
	}
}

func TestSandboxSecretKeyIsKept(t *testing.T) {
	c, _ := Load(lookup(map[string]string{"CHAKSHU_DATA_DIR": t.TempDir()}))
	if err := c.EnsureSecretKey(); err != nil || len(c.SecretKey) != 32 {
		t.Fatalf("generate: %v", err)
	}
	first := c.SecretKey
	c2, _ := Load(lookup(map[string]string{"CHAKSHU_DATA_DIR": c.DataDir}))
	if err := c2.EnsureSecretKey(); err != nil || string(c2.SecretKey) != string(first) {
		t.Fatal("the generated key was not reused on the next start")
	}
}
