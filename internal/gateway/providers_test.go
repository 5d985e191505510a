package gateway

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"golang.org/x/oauth2/google"

	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/providersim"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

const (
	bedrockID = "global.anthropic.claude-sonnet-5-5-v1:0"
	vertexID  = "claude-sonnet-5-5@20261001"
)

// platform is one simulated provider behind a gateway.
type platform struct {
	name  string
	up    func(t *testing.T, url string, wrongKey bool) Upstream
	sim   http.Handler
	calls func() int
	// refuseNext makes the provider throttle its next answer.
	refuseNext func()
}

func platforms(t *testing.T) []platform {
	model := scriptedmodel.New(scriptedmodel.Config{ExtraInputTokens: 100_000})
	br := &providersim.Bedrock{Model: model, Models: map[string]string{bedrockID: "claude-sonnet-5-5"}}
	vx := &providersim.Vertex{Model: model, Project: "sim-project", Region: "us-east5", Models: map[string]string{vertexID: "claude-sonnet-5-5"}}
	oa := &providersim.OpenAI{Model: model, Models: map[string]string{"sonnet-via-litellm": "claude-sonnet-5-5", "claude-not-enabled-here": "claude-sonnet-5-5"}}
	delete(oa.Models, "claude-not-enabled-here")
	return []platform{
		{name: "openai", sim: oa, calls: oa.Calls, refuseNext: func() { oa.RateLimit(1) },
			up: func(t *testing.T, url string, wrongKey bool) Upstream {
				key := providersim.OpenAIKey
				if wrongKey {
					key = "sk-not-the-key-of-this-server-0000"
				}
				u, err := NewOpenAI(OpenAIConfig{BaseURL: url + "/v1", APIKey: key}, http.DefaultClient)
				if err != nil {
					t.Fatal(err)
				}
				return u
			}},
		{name: "bedrock", sim: br, calls: br.Calls, refuseNext: func() { br.Throttle(1) },
			up: func(t *testing.T, url string, wrongKey bool) Upstream {
				secret := providersim.BedrockSecretKey
				if wrongKey {
					secret = strings.Repeat("x", 40)
				}
				u, err := NewBedrock(BedrockConfig{BaseURL: url, AWS: aws.Config{Region: providersim.BedrockRegion,
					Credentials: credentials.NewStaticCredentialsProvider(providersim.BedrockAccessKey, secret, "")}}, http.DefaultClient)
				if err != nil {
					t.Fatal(err)
				}
				return u
			}},
		{name: "vertex", sim: vx, calls: vx.Calls, refuseNext: func() { vx.Exhaust(1) },
			up: func(t *testing.T, url string, wrongKey bool) Upstream {
				vx.BaseURL = url
				js := vx.CredentialsJSON()
				if wrongKey { // another key of the same account: its signature does not verify
					other := &providersim.Vertex{BaseURL: url, Project: "sim-project"}
					js = other.CredentialsJSON()
				}
				creds, err := google.CredentialsFromJSON(context.Background(), js, "https://www.googleapis.com/auth/cloud-platform")
				if err != nil {
					t.Fatal(err)
				}
				u, err := NewVertex(context.Background(), VertexConfig{Project: "sim-project", Region: "us-east5", Credentials: creds, BaseURL: url + "/"}, http.DefaultClient)
				if err != nil {
					t.Fatal(err)
				}
				return u
			}},
	}
}

// routed is the built-in catalogue with Sonnet 5.5 on both platforms,
// Bedrock at a price of its own.
func routed(t *testing.T) *models.Source {
	c, err := models.Builtin().WithRoutes("bedrock", map[string]models.Route{"claude-sonnet-5-5": {Model: bedrockID,
		Price: &models.Price{Input: 3, Output: 15}}})
	if err == nil {
		c, err = c.WithRoutes("openai", map[string]models.Route{"claude-sonnet-5-5": {Model: "sonnet-via-litellm"}})
	}
	if err == nil {
		c, err = c.WithRoutes("vertex", map[string]models.Route{"claude-sonnet-5-5": {Model: vertexID}})
	}
	if err != nil {
		t.Fatal(err)
	}
	return models.Static(c)
}

func TestGatewayThroughCloudPlatforms(t *testing.T) {
	for _, p := range platforms(t) {
		t.Run(p.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				srv := httptest.NewServer(p.sim)
				defer srv.Close()
				gw := func(wrongKey bool, cat *models.Source) *Gateway {
					g, err := New(Config{DB: db, Log: slog.New(slog.DiscardHandler), Platform: p.name, Models: cat,
						Upstreams: map[string]Upstream{p.name: p.up(t, srv.URL, wrongKey)}})
					if err != nil {
						t.Fatal(err)
					}
					return g
				}
				g := gw(false, routed(t))
				rn := fixture(t, db, 10)
				ctx := context.Background()

				// Plain invoke: the Messages answer, metered at this platform's price.
				w := post(t, g, rn, msg, false)
				if w.Code != 200 || !strings.Contains(w.Body.String(), `"type":"message"`) {
					t.Fatalf("invoke: %d %s", w.Code, w.Body)
				}
				got := db.Run.GetX(ctx, rn.ID)
				if got.Provider != p.name {
					t.Fatalf("run records provider %q, want %q", got.Provider, p.name)
				}
				wantIn := 2.0
				if p.name == "bedrock" {
					wantIn = 3
				}
				want := (float64(got.InputTokens)*wantIn + float64(got.OutputTokens)*map[bool]float64{true: 15, false: 10}[p.name == "bedrock"]) / 1e6
				if got.InputTokens < 100_000 || got.CostUsd < want-1e-9 || got.CostUsd > want+1e-9 {
					t.Fatalf("metered %d in / %d out at $%v, want $%v", got.InputTokens, got.OutputTokens, got.CostUsd, want)
				}

				// Streaming: the platform's framing comes back as the Messages
				// API's events, and the usage in them is metered.
				before := got.InputTokens
				w = post(t, g, rn, `{"model":"claude-sonnet-5-5","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, false)
				body := w.Body.String()
				if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
					t.Fatalf("stream: %d %s %s", w.Code, w.Header().Get("Content-Type"), body)
				}
				for _, ev := range []string{"event: message_start", "event: content_block_delta", "event: message_delta", "event: message_stop"} {
					if !strings.Contains(body, ev) {
						t.Fatalf("stream lacks %q:\n%s", ev, body)
					}
				}
				if got := db.Run.GetX(ctx, rn.ID); got.InputTokens < before+100_000 {
					t.Fatalf("stream not metered: %d input tokens after %d", got.InputTokens, before)
				}

				// Throttling is a retryable 429 in the runner's error shape.
				p.refuseNext()
				calls := p.calls()
				w = post(t, g, rn, msg, false)
				if w.Code != http.StatusTooManyRequests || errCode(t, w) != CodeThrottled || w.Header().Get("x-should-retry") != "true" {
					t.Fatalf("throttled: %d %s %v", w.Code, w.Body, w.Header())
				}
				if p.calls() != calls {
					t.Fatal("a throttled call reached the model")
				}

				// A model the account has not enabled is a clear, final run error.
				off, _ := models.Builtin().WithRoutes(p.name, map[string]models.Route{"claude-sonnet-5-5": {Model: "claude-not-enabled-here"}})
				w = post(t, gw(false, models.Static(off)), rn, msg, false)
				if w.Code != http.StatusBadRequest || errCode(t, w) != CodeNotEnabled || w.Header().Get("x-should-retry") != "false" ||
					!strings.Contains(w.Body.String(), "claude-not-enabled-here") {
					t.Fatalf("not enabled: %d %s", w.Code, w.Body)
				}

				// Credentials the provider does not accept: not retried, no secret in the answer.
				w = post(t, gw(true, routed(t)), rn, msg, false)
				if w.Code != http.StatusBadGateway || errCode(t, w) != CodeCredentials || w.Header().Get("x-should-retry") != "false" {
					t.Fatalf("bad credentials: %d %s", w.Code, w.Body)
				}

				// A model without an id on this platform never leaves Chakshu.
				w = post(t, g, rn, `{"model":"claude-opus-5-5","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`, false)
				if w.Code != http.StatusBadRequest {
					t.Fatalf("unrouted model: %d %s", w.Code, w.Body)
				}

				// The hard cap holds on this platform too: the answer that
				// crosses it is metered from the platform's usage, the next is
				// refused before the platform sees it, and one final request
				// goes out, only one.
				spent := db.Run.GetX(ctx, rn.ID).CostUsd
				capped := db.Run.UpdateOneID(rn.ID).SetMaxCostUsd(spent + 0.0001).SaveX(ctx)
				if w := post(t, g, capped, msg, false); w.Code != 200 {
					t.Fatalf("first capped request: %d %s", w.Code, w.Body)
				}
				if c := db.Run.GetX(ctx, capped.ID).CostUsd; c <= capped.MaxCostUsd {
					t.Fatalf("the answer took the run to $%v, want past its $%v cap", c, capped.MaxCostUsd)
				}
				calls = p.calls()
				if w := post(t, g, capped, msg, false); w.Code != http.StatusTooManyRequests || errCode(t, w) != CodeCostCap {
					t.Fatalf("past the cap: %d %s", w.Code, w.Body)
				}
				if p.calls() != calls {
					t.Fatal("a request past the cap reached the platform")
				}
				if w := post(t, g, capped, msg, true); w.Code != 200 {
					t.Fatalf("final request: %d %s", w.Code, w.Body)
				}
				if w := post(t, g, capped, msg, true); w.Code != http.StatusTooManyRequests {
					t.Fatalf("second final request: %d %s", w.Code, w.Body)
				}
			})
		})
	}
}

// Microsoft Foundry serves the Messages API itself under /anthropic/ with
// the resource's key in x-api-key (anthropic-sdk-go v2.15.0 foundry:
// https://{resource}.services.ai.azure.com/anthropic/); its simulator
// refuses a wrong key with Azure's 401 (a credentials error naming the
// setting) and an undeployed name with 404 (a model not enabled).
func TestGatewayThroughFoundry(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		srv := httptest.NewServer(&providersim.Foundry{Model: scriptedmodel.New(scriptedmodel.Config{}),
			Deployments: map[string]string{"my-sonnet": "claude-sonnet-5-5"}})
		defer srv.Close()
		rn := fixture(t, db, 10)
		for _, tc := range []struct {
			key, deployment string
			status          int
			says            string
		}{
			{providersim.FoundryKey, "my-sonnet", 200, ""},
			{"not-the-resource-key-000000000000", "my-sonnet", http.StatusBadGateway, "CHAKSHU_FOUNDRY_API_KEY"},
			{providersim.FoundryKey, "not-deployed", http.StatusBadRequest, "deploy it in the Foundry resource"},
		} {
			cat, err := models.Builtin().WithRoutes("foundry", map[string]models.Route{"claude-sonnet-5-5": {Model: tc.deployment}})
			if err != nil {
				t.Fatal(err)
			}
			up, err := NewFoundry(FoundryConfig{BaseURL: srv.URL + "/anthropic/", APIKey: tc.key}, http.DefaultClient)
			if err != nil {
				t.Fatal(err)
			}
			g, err := New(Config{DB: db, Log: slog.New(slog.DiscardHandler), Platform: "foundry", Models: models.Static(cat),
				Upstreams: map[string]Upstream{"foundry": up}})
			if err != nil {
				t.Fatal(err)
			}
			w := post(t, g, rn, msg, false)
			if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.says) {
				t.Fatalf("key %s, %s: %d %s", tc.key[:8], tc.deployment, w.Code, w.Body)
			}
			if strings.Contains(w.Body.String(), tc.key) {
				t.Fatal("the key is in the answer")
			}
		}
		if got := db.Run.GetX(context.Background(), rn.ID); got.CostUsd <= 0 || got.InputTokens == 0 {
			t.Fatalf("not metered: %+v", got)
		}
		if _, err := NewFoundry(FoundryConfig{BaseURL: srv.URL}, http.DefaultClient); err == nil {
			t.Error("Foundry without a key accepted")
		}
	})
}
