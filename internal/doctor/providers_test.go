package doctor

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/providersim"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

func TestDoctorProviders(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		br, _ := providersim.New("bedrock", scriptedmodel.New(scriptedmodel.Config{}))
		brSrv := httptest.NewServer(br.Handler)
		defer brSrv.Close()
		oa, _ := providersim.New("openai", scriptedmodel.New(scriptedmodel.Config{}))
		oaSrv := httptest.NewServer(oa.Handler)
		defer oaSrv.Close()
		// Sonnet 5.5 goes through Bedrock; a local model of the OpenAI server's is not served there.
		cat, err := models.Builtin().WithRoutes("bedrock", map[string]models.Route{"claude-sonnet-5-5": {Model: providersim.SandboxModels["bedrock"]["claude-sonnet-5-5"]}})
		if err != nil {
			t.Fatal(err)
		}
		local, err := models.Parse([]byte(`{"models": [{"id": "local-coder", "provider": "openai", "price": {"input": 0, "output": 0},
			"forced_tool_choice": false, "lifecycle": {"status": "active"}, "providers": {"openai": {"model": "qwen3-coder:30b"}}}]}`), "test")
		if err != nil {
			t.Fatal(err)
		}
		src := models.Static(cat.Merge(local))
		run := func(secret string) map[string]Check {
			p := config.Providers{Platform: "bedrock", BedrockURL: brSrv.URL, BedrockRegion: providersim.BedrockRegion,
				BedrockAccessKeyID: providersim.BedrockAccessKey, BedrockSecretAccessKey: secret,
				OpenAIURL: oaSrv.URL + "/v1", OpenAIAPIKey: providersim.OpenAIKey}
			cs := Run(ctx, Config{Settings: Settings{ModelURL: oaSrv.URL, PublicURL: oaSrv.URL, Providers: p}, DB: db, Models: src})
			out := map[string]Check{}
			for _, c := range cs {
				if strings.HasPrefix(c.Name, "provider ") {
					out[c.Name] = c
				}
			}
			return out
		}
		cs := run(providersim.BedrockSecretKey)
		if c := cs["provider bedrock: model claude-sonnet-5-5"]; !c.OK || !strings.Contains(c.Detail, "global.anthropic.claude-sonnet-5-5") {
			t.Errorf("bedrock: %+v (all: %+v)", c, cs)
		}
		if c := cs["provider openai: model local-coder"]; c.OK || !strings.Contains(c.Detail, "model_not_enabled") || !strings.Contains(c.Fix, "serves this model") {
			t.Errorf("openai without the model: %+v (all: %+v)", c, cs)
		}
		// Credentials the provider refuses: the check fails and names the settings.
		c := run(strings.Repeat("w", 40))["provider bedrock: model claude-sonnet-5-5"]
		if c.OK || !strings.Contains(c.Detail, "upstream_credentials") || !strings.Contains(c.Fix, "CHAKSHU_BEDROCK_REGION") ||
			strings.Contains(c.Detail, strings.Repeat("w", 40)) {
			t.Errorf("bad credentials: %+v", c)
		}
		// A provider that cannot be built is one failed check naming its fix.
		bad := Run(ctx, Config{Settings: Settings{ModelURL: oaSrv.URL, PublicURL: oaSrv.URL, Providers: config.Providers{FoundryResource: "r"}},
			DB: db, Models: src})
		found := false
		for _, c := range bad {
			if c.Name == "provider foundry" && !c.OK && strings.Contains(c.Fix, "CHAKSHU_FOUNDRY_API_KEY") {
				found = true
			}
		}
		if !found {
			t.Errorf("foundry without a key: %+v", bad)
		}
	})
}
