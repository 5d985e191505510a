package sandbox

import (
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/providersim"
)

// Config is the configuration Chakshu runs with against this sandbox: base's,
// with the simulated App, GitHub, Actions issuer and model (behind the
// simulated provider of `chakshu sandbox --provider`, with its credentials)
// in place of GitHub's and Anthropic's. base is left as it is.
func (sb *Sandbox) Config(base config.Config) *config.Config {
	c := base
	c.AppID, c.PrivateKey = sb.AppID, sb.AppKey
	c.GitHubURL, c.GitHubGraphQLURL = sb.Sim.URL(), sb.Sim.GraphQLURL()
	c.OIDCIssuer, c.ModelURL = sb.Sim.IssuerURL(), sb.ModelURL
	p := &c.Providers
	switch sb.opts.Provider {
	case models.ProviderBedrock:
		p.Platform, p.BedrockURL, p.BedrockRegion = models.ProviderBedrock, sb.ModelURL, providersim.BedrockRegion
		p.BedrockAccessKeyID, p.BedrockSecretAccessKey = providersim.BedrockAccessKey, providersim.BedrockSecretKey
	case models.ProviderVertex:
		p.Platform, p.VertexURL, p.VertexProject, p.VertexRegion = models.ProviderVertex, sb.ModelURL+"/", providersim.VertexProject, providersim.VertexRegion
		p.VertexCredentialsJSON = sb.provider.Vertex.CredentialsJSON()
	case models.ProviderOpenAI:
		p.Platform, p.OpenAIURL, p.OpenAIAPIKey = models.ProviderOpenAI, sb.ModelURL+"/v1", providersim.OpenAIKey
	case models.ProviderFoundry:
		p.Platform, p.FoundryResource, p.FoundryURL, p.FoundryAPIKey = models.ProviderFoundry, "", sb.ModelURL+"/anthropic/", providersim.FoundryKey
	}
	return &c
}

// Catalog is base with the simulated provider's ids of the seeded
// reviewers' models.
func (sb *Sandbox) Catalog(base *models.Catalog) (*models.Catalog, error) {
	ids := providersim.SandboxModels[sb.opts.Provider]
	if len(ids) == 0 {
		return base, nil
	}
	routes := map[string]models.Route{}
	for catalogID, id := range ids {
		routes[catalogID] = models.Route{Model: id}
	}
	return base.WithRoutes(sb.opts.Provider, routes)
}

// ProviderCalls is how many model requests reached the scripted model
// through the simulated provider (0 for anthropic).
func (sb *Sandbox) ProviderCalls() int {
	if sb.provider.Calls == nil {
		return 0
	}
	return sb.provider.Calls()
}
