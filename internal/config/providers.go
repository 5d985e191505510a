package config

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
)

// Providers are the model providers the gateway may send runs to (README,
// Model providers). Secrets come from the environment or from files and are
// never logged (LogValue leaves them out).
type Providers struct {
	// Platform is the provider Anthropic's models go through
	// (CHAKSHU_MODEL_PROVIDER: anthropic, bedrock, vertex, foundry, or openai
	// for a proxy such as LiteLLM that serves them as Chat Completions).
	Platform string
	// BedrockRegion is Bedrock's region (CHAKSHU_BEDROCK_REGION; default the
	// AWS default chain's, AWS_REGION). Credentials come from the AWS
	// default chain: environment, shared config and profiles (AWS_PROFILE),
	// web identity (IRSA), ECS task and EC2 instance roles.
	BedrockRegion string
	// BedrockURL replaces the regional endpoint (CHAKSHU_BEDROCK_URL: a VPC
	// endpoint).
	BedrockURL string
	// BedrockAccessKeyID and BedrockSecretAccessKey are static credentials
	// set by the sandbox for its simulated Bedrock; never read from settings.
	BedrockAccessKeyID, BedrockSecretAccessKey string
	// VertexProject and VertexRegion (CHAKSHU_VERTEX_PROJECT, CHAKSHU_VERTEX_REGION).
	VertexProject, VertexRegion string
	// VertexCredentialsJSON is a service account key
	// (CHAKSHU_VERTEX_CREDENTIALS_FILE); empty means Application Default
	// Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud, the metadata server).
	VertexCredentialsJSON []byte
	// VertexURL replaces the regional endpoint (CHAKSHU_VERTEX_URL).
	VertexURL string
	// FoundryResource or FoundryURL name the Foundry endpoint
	// (CHAKSHU_FOUNDRY_RESOURCE, CHAKSHU_FOUNDRY_URL); FoundryAPIKey its key
	// (CHAKSHU_FOUNDRY_API_KEY or CHAKSHU_FOUNDRY_API_KEY_FILE).
	FoundryResource, FoundryURL, FoundryAPIKey string
	// OpenAIURL is an OpenAI-compatible server's base URL ending in /v1
	// (CHAKSHU_OPENAI_URL: vLLM, Ollama, LiteLLM, Azure OpenAI); OpenAIAPIKey
	// its key (CHAKSHU_OPENAI_API_KEY or CHAKSHU_OPENAI_API_KEY_FILE).
	OpenAIURL, OpenAIAPIKey string
}

// secret is a key set directly or, from file, in a file (not both); name
// is the direct setting's.
func secret(name, v, file string) (string, error) {
	if file == "" {
		return v, nil
	}
	if v != "" {
		return "", fmt.Errorf("%s_FILE: set it or %s, not both", name, name)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s_FILE: %w", name, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// providers checks and resolves the provider settings.
func providers(w WebOnly) (Providers, error) {
	p := Providers{
		Platform:      strings.ToLower(w.ModelProvider),
		BedrockRegion: w.BedrockRegion, BedrockURL: w.BedrockURL,
		VertexProject: w.VertexProject, VertexRegion: w.VertexRegion, VertexURL: w.VertexURL,
		FoundryResource: w.FoundryResource, FoundryURL: w.FoundryURL,
		OpenAIURL: w.OpenAIURL,
	}
	if p.Platform == "anthropic" {
		p.Platform = ""
	}
	switch p.Platform {
	case "", "bedrock", "vertex", "foundry", "openai":
	default:
		return p, fmt.Errorf("CHAKSHU_MODEL_PROVIDER: want anthropic, bedrock, vertex, foundry or openai, got %q", p.Platform)
	}
	for _, u := range []struct{ name, v string }{{"CHAKSHU_BEDROCK_URL", p.BedrockURL}, {"CHAKSHU_VERTEX_URL", p.VertexURL},
		{"CHAKSHU_FOUNDRY_URL", p.FoundryURL}, {"CHAKSHU_OPENAI_URL", p.OpenAIURL}} {
		if u.v != "" {
			if err := checkURL(u.name, u.v); err != nil {
				return p, err
			}
		}
	}
	if f := w.VertexCredentialsFile; f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return p, fmt.Errorf("CHAKSHU_VERTEX_CREDENTIALS_FILE: %w", err)
		}
		p.VertexCredentialsJSON = b
	}
	var err error
	if p.FoundryAPIKey, err = secret("CHAKSHU_FOUNDRY_API_KEY", w.FoundryAPIKey, w.FoundryAPIKeyFile); err != nil {
		return p, err
	}
	if p.OpenAIAPIKey, err = secret("CHAKSHU_OPENAI_API_KEY", w.OpenAIAPIKey, w.OpenAIAPIKeyFile); err != nil {
		return p, err
	}
	switch {
	case p.Platform == "vertex" && (p.VertexProject == "" || p.VertexRegion == ""):
		return p, errors.New("CHAKSHU_VERTEX_PROJECT: CHAKSHU_MODEL_PROVIDER=vertex needs CHAKSHU_VERTEX_PROJECT and CHAKSHU_VERTEX_REGION")
	case p.Platform == "openai" && p.OpenAIURL == "":
		return p, errors.New("CHAKSHU_OPENAI_URL: CHAKSHU_MODEL_PROVIDER=openai needs CHAKSHU_OPENAI_URL")
	case p.Platform == "foundry" && p.FoundryResource == "" && p.FoundryURL == "":
		return p, errors.New("CHAKSHU_FOUNDRY_RESOURCE: CHAKSHU_MODEL_PROVIDER=foundry needs CHAKSHU_FOUNDRY_RESOURCE or CHAKSHU_FOUNDRY_URL")
	case p.FoundryResource != "" && p.FoundryURL != "":
		return p, errors.New("CHAKSHU_FOUNDRY_URL: set it or CHAKSHU_FOUNDRY_RESOURCE, not both")
	case (p.FoundryResource != "" || p.FoundryURL != "") && p.FoundryAPIKey == "":
		return p, errors.New("CHAKSHU_FOUNDRY_API_KEY: required to reach Microsoft Foundry")
	}
	return p, nil
}

// Configured lists the providers this Chakshu can reach besides Anthropic's API.
func (p Providers) Configured() []string {
	var out []string
	if p.Platform == "bedrock" || p.BedrockRegion != "" || p.BedrockURL != "" {
		out = append(out, "bedrock")
	}
	if p.VertexProject != "" {
		out = append(out, "vertex")
	}
	if p.FoundryResource != "" || p.FoundryURL != "" {
		out = append(out, "foundry")
	}
	if p.OpenAIURL != "" {
		out = append(out, "openai")
	}
	return out
}

// LogValue shows the providers without their secrets.
func (p Providers) LogValue() slog.Value {
	return slog.GroupValue(slog.String("platform", p.Platform), slog.Any("configured", p.Configured()))
}
