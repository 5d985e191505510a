package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProviders(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "openai.key")
	os.WriteFile(keyFile, []byte("sk-local-key-from-a-file-0123456789\n"), 0o600)
	saFile := filepath.Join(dir, "sa.json")
	os.WriteFile(saFile, []byte(`{"type":"service_account"}`), 0o600)

	c, err := Load(lookup(map[string]string{"CHAKSHU_MODEL_PROVIDER": "Vertex", "CHAKSHU_VERTEX_PROJECT": "p", "CHAKSHU_VERTEX_REGION": "us-east5",
		"CHAKSHU_VERTEX_CREDENTIALS_FILE": saFile, "CHAKSHU_OPENAI_URL": "http://127.0.0.1:11434/v1", "CHAKSHU_OPENAI_API_KEY_FILE": keyFile}))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Providers
	if p.Platform != "vertex" || p.OpenAIAPIKey != "sk-local-key-from-a-file-0123456789" || string(p.VertexCredentialsJSON) != `{"type":"service_account"}` {
		t.Fatalf("providers: %+v", p)
	}
	if got := strings.Join(p.Configured(), ","); got != "vertex,openai" {
		t.Errorf("configured %q", got)
	}
	if v := p.LogValue().String(); strings.Contains(v, "sk-local") || strings.Contains(v, "service_account") {
		t.Errorf("a secret reaches the log: %s", v)
	}
	// Anthropic's key is not needed when its models go through a platform.
	if _, err := Load(lookup(map[string]string{"CHAKSHU_APP_ID": "1", "CHAKSHU_APP_SLUG": "chakshu", "CHAKSHU_PRIVATE_KEY": pem,
		"CHAKSHU_SECRET_KEY": key32, "CHAKSHU_WEBHOOK_SECRET": "s",
		"CHAKSHU_MODEL_PROVIDER": "bedrock", "CHAKSHU_BEDROCK_REGION": "us-east-1"})); err != nil {
		t.Errorf("bedrock without an Anthropic key: %v", err)
	}

	bad := map[string]map[string]string{
		"CHAKSHU_MODEL_PROVIDER":          {"CHAKSHU_MODEL_PROVIDER": "azure"},
		"CHAKSHU_OPENAI_URL needed":       {"CHAKSHU_MODEL_PROVIDER": "openai"},
		"CHAKSHU_VERTEX_PROJECT":          {"CHAKSHU_MODEL_PROVIDER": "vertex", "CHAKSHU_VERTEX_PROJECT": "p"},
		"CHAKSHU_FOUNDRY_RESOURCE":        {"CHAKSHU_MODEL_PROVIDER": "foundry"},
		"CHAKSHU_FOUNDRY_API_KEY":         {"CHAKSHU_FOUNDRY_RESOURCE": "r"},
		"CHAKSHU_FOUNDRY_URL":             {"CHAKSHU_FOUNDRY_RESOURCE": "r", "CHAKSHU_FOUNDRY_URL": "https://x", "CHAKSHU_FOUNDRY_API_KEY": "k"},
		"CHAKSHU_OPENAI_URL":              {"CHAKSHU_OPENAI_URL": "ftp://x"},
		"CHAKSHU_OPENAI_API_KEY_FILE":     {"CHAKSHU_OPENAI_API_KEY": "a", "CHAKSHU_OPENAI_API_KEY_FILE": keyFile},
		"CHAKSHU_VERTEX_CREDENTIALS_FILE": {"CHAKSHU_VERTEX_CREDENTIALS_FILE": filepath.Join(dir, "missing.json")},
	}
	for name, env := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := Load(lookup(env))
			if err == nil || !strings.HasPrefix(err.Error(), strings.TrimSuffix(name, " needed")) {
				t.Fatalf("Load = %v, want an error naming %s", err, name)
			}
		})
	}
}
