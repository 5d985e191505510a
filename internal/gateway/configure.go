package gateway

import (
	"context"
	"fmt"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"golang.org/x/oauth2/google"

	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/models"
)

// cloudPlatformScope is the OAuth scope Vertex AI's predict methods take.
const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// Upstreams builds the providers p configures, each with its credentials
// resolved the way its own library does (the AWS default chain;
// Application Default Credentials or a service account key). hc carries
// their calls (nil: the gateway's default client).
func Upstreams(ctx context.Context, p config.Providers, hc *http.Client) (map[string]Upstream, error) {
	if hc == nil {
		hc = &http.Client{Timeout: defaultTimeout}
	}
	out := map[string]Upstream{}
	for _, name := range p.Configured() {
		var u Upstream
		var err error
		switch name {
		case models.ProviderBedrock:
			var cfg aws.Config
			if cfg, err = bedrockAWS(ctx, p); err == nil {
				u, err = NewBedrock(BedrockConfig{AWS: cfg, BaseURL: p.BedrockURL}, hc)
			}
		case models.ProviderVertex:
			var creds *google.Credentials
			if len(p.VertexCredentialsJSON) > 0 {
				creds, err = google.CredentialsFromJSON(ctx, p.VertexCredentialsJSON, cloudPlatformScope)
			} else {
				creds, err = google.FindDefaultCredentials(ctx, cloudPlatformScope)
			}
			if err == nil {
				u, err = NewVertex(ctx, VertexConfig{Project: p.VertexProject, Region: p.VertexRegion, Credentials: creds, BaseURL: p.VertexURL}, hc)
			}
		case models.ProviderFoundry:
			u, err = NewFoundry(FoundryConfig{Resource: p.FoundryResource, BaseURL: p.FoundryURL, APIKey: p.FoundryAPIKey}, hc)
		case models.ProviderOpenAI:
			u, err = NewOpenAI(OpenAIConfig{BaseURL: p.OpenAIURL, APIKey: p.OpenAIAPIKey}, hc)
		}
		if err != nil {
			return nil, fmt.Errorf("model provider %s: %w", name, err)
		}
		out[name] = u
	}
	if p.Platform != "" && out[p.Platform] == nil {
		return nil, fmt.Errorf("CHAKSHU_MODEL_PROVIDER=%s is not configured", p.Platform)
	}
	return out, nil
}

// bedrockAWS loads the AWS configuration: static keys when the sandbox set
// them, else the default chain (environment, shared config and profiles,
// web identity, ECS and EC2 roles) with CHAKSHU_BEDROCK_REGION over AWS_REGION.
func bedrockAWS(ctx context.Context, p config.Providers) (aws.Config, error) {
	var opts []func(*awsconfig.LoadOptions) error
	if p.BedrockRegion != "" {
		opts = append(opts, awsconfig.WithRegion(p.BedrockRegion))
	}
	if p.BedrockAccessKeyID != "" {
		opts = append(opts, awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(p.BedrockAccessKeyID, p.BedrockSecretAccessKey, "")))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("AWS configuration: %w", err)
	}
	return cfg, nil
}
