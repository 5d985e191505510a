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

// Doctor checks Vertex AI and Microsoft Foundry as it does Bedrock: through
// each provider's simulator, a model the catalogue routes there answers a
// one-token request; Foundry with a key the resource refuses fails and names
// the key's setting.
func TestDoctorVertexAndFoundry(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		for _, provider := range []string{models.ProviderVertex, models.ProviderFoundry} {
			t.Run(provider, func(t *testing.T) {
				sim, err := providersim.New(provider, scriptedmodel.New(scriptedmodel.Config{}))
				if err != nil {
					t.Fatal(err)
				}
				srv := httptest.NewServer(sim.Handler)
				defer srv.Close()
				id := providersim.SandboxModels[provider]["claude-sonnet-5-5"]
				cat, err := models.Builtin().WithRoutes(provider, map[string]models.Route{"claude-sonnet-5-5": {Model: id}})
				if err != nil {
					t.Fatal(err)
				}
				check := func(p config.Providers) Check {
					name := "provider " + provider + ": model claude-sonnet-5-5"
					for _, c := range Run(ctx, Config{Settings: Settings{ModelURL: srv.URL, PublicURL: srv.URL, Providers: p}, DB: db, Models: models.Static(cat)}) {
						if c.Name == name {
							return c
						}
					}
					t.Fatalf("no check %q", name)
					return Check{}
				}
				p := config.Providers{Platform: provider}
				switch provider {
				case models.ProviderVertex:
					sim.Vertex.BaseURL = srv.URL
					p.VertexURL, p.VertexProject, p.VertexRegion = srv.URL+"/", providersim.VertexProject, providersim.VertexRegion
					p.VertexCredentialsJSON = sim.Vertex.CredentialsJSON()
				case models.ProviderFoundry:
					p.FoundryURL, p.FoundryAPIKey = srv.URL+"/anthropic/", providersim.FoundryKey
				}
				if c := check(p); !c.OK || !strings.Contains(c.Detail, id) {
					t.Fatalf("%s: %+v", provider, c)
				}
				if provider == models.ProviderFoundry {
					p.FoundryAPIKey = strings.Repeat("k", 32)
					if c := check(p); c.OK || !strings.Contains(c.Detail, "upstream_credentials") || !strings.Contains(c.Fix, "CHAKSHU_FOUNDRY_API_KEY") ||
						strings.Contains(c.Detail, p.FoundryAPIKey) {
						t.Fatalf("foundry with a refused key: %+v", c)
					}
				}
			})
		}
	})
}
