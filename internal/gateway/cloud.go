package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/bedrock"
	"github.com/anthropics/anthropic-sdk-go/v2/foundry"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/vertex"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/tidwall/sjson"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/chakshu-dev/chakshu/internal/models"
)

// The cloud platforms serve Anthropic's models with the Messages API, so the
// request goes through anthropic-sdk-go's own adaptation for each: its
// bedrock, vertex and foundry packages rewrite the URL and body, sign the
// request (SigV4 with the AWS credentials; Google OAuth tokens; the Foundry
// key) and, for Bedrock, turn the binary event stream back into the
// Messages API's server-sent events. The gateway sends the runner's request
// body through the SDK's raw Post and relays the answer; the SDK's retries
// are off (the runner retries, with the gateway's metering in between).

// Body versions the platforms require in place of the anthropic-version header.
const (
	// BedrockVersion: Bedrock user guide, "Anthropic Claude Messages API"
	// (request body: anthropic_version "bedrock-2023-05-31", no model and no
	// stream fields; the model is in the path /model/{id}/invoke or
	// /invoke-with-response-stream).
	BedrockVersion = "bedrock-2023-05-31"
	// VertexVersion: Anthropic docs "Claude on Vertex AI" (model in the
	// URL …/publishers/anthropic/models/{model}:rawPredict or
	// :streamRawPredict; anthropic_version "vertex-2023-10-16" in the body).
	VertexVersion = "vertex-2023-10-16"
)

// BedrockConfig reaches Amazon Bedrock.
type BedrockConfig struct {
	// AWS is the AWS configuration: region and the credential chain
	// (config.LoadDefaultConfig: environment, shared config and profiles,
	// web identity / IRSA, ECS task and EC2 instance roles).
	AWS aws.Config
	// BaseURL replaces https://bedrock-runtime.{region}.amazonaws.com (a VPC
	// endpoint; the simulator in tests).
	BaseURL string
	// HTTPClient carries the calls; nil means the gateway's.
	HTTPClient *http.Client
}

// VertexConfig reaches Google Vertex AI.
type VertexConfig struct {
	// Project and Region (a region such as us-east5, or global).
	Project, Region string
	// Credentials are Google credentials (google.FindDefaultCredentials for
	// Application Default Credentials, or google.CredentialsFromJSON).
	Credentials *google.Credentials
	// BaseURL replaces the regional aiplatform endpoint (tests).
	BaseURL    string
	HTTPClient *http.Client
}

// FoundryConfig reaches Microsoft Foundry's Anthropic endpoint.
type FoundryConfig struct {
	// Resource is the Foundry resource name
	// (https://{resource}.services.ai.azure.com/anthropic/), or BaseURL
	// the endpoint itself.
	Resource, BaseURL string
	// APIKey is the resource's key.
	APIKey     string
	HTTPClient *http.Client
}

// cloudUpstream sends through anthropic-sdk-go's platform adaptation.
type cloudUpstream struct {
	provider string
	// opts are the SDK client's request options (sdkOptions).
	opts []option.RequestOption
	// version is the body's anthropic_version ("" keeps the header).
	version string
	// classify reads a refusal's kind from its status, headers and body.
	classify func(status int, h http.Header, body []byte) (kind, detail string)
}

func httpClient(c, fallback *http.Client) *http.Client {
	if c != nil {
		return c
	}
	return fallback
}

// sdkOptions are the request options anthropic.NewClient settles on (its
// defaults and call boundaries around opts), kept without the Client.
//
// No struct of ours holds an anthropic.Client. The Client's fields are the
// SDK's every service, Beta's some forty among them. A type converted to an
// interface (an Upstream, say) has its field types' exported methods kept by
// the linker whenever a binary can call a method by a name known only at run
// time, as text/template does (atlas's migrations and gorilla/csrf link it).
// Holding a Client cost chakshu about 4 MB of machine code and, with its
// function tables and type data, more than 10 MB of idle RSS (DESIGN §11's
// budget: BenchmarkIdleRSS). A Client built for one call, on the stack, keeps
// nothing: no interface ever sees its type.
func sdkOptions(opts []option.RequestOption) []option.RequestOption {
	return anthropic.NewClient(opts...).Options
}

// NewBedrock is the Amazon Bedrock provider.
func NewBedrock(cfg BedrockConfig, fallback *http.Client) (Upstream, error) {
	if cfg.AWS.Region == "" {
		return nil, errors.New("bedrock: no AWS region (set CHAKSHU_BEDROCK_REGION or AWS_REGION)")
	}
	if cfg.AWS.Credentials == nil && cfg.AWS.BearerAuthTokenProvider == nil {
		return nil, errors.New("bedrock: no AWS credentials found in the default chain")
	}
	opts := []option.RequestOption{option.WithHTTPClient(httpClient(cfg.HTTPClient, fallback)), option.WithMaxRetries(0), bedrock.WithConfig(cfg.AWS)}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	return &cloudUpstream{provider: models.ProviderBedrock, opts: sdkOptions(opts), version: BedrockVersion, classify: classifyBedrock}, nil
}

// NewVertex is the Google Vertex AI provider.
func NewVertex(ctx context.Context, cfg VertexConfig, fallback *http.Client) (u Upstream, err error) {
	if cfg.Project == "" || cfg.Region == "" {
		return nil, errors.New("vertex: CHAKSHU_VERTEX_PROJECT and CHAKSHU_VERTEX_REGION are required")
	}
	if cfg.Credentials == nil {
		return nil, errors.New("vertex: no Google credentials")
	}
	defer func() { // the SDK panics on a client it cannot build
		if v := recover(); v != nil {
			u, err = nil, fmt.Errorf("vertex: %v", v)
		}
	}()
	opts := []option.RequestOption{option.WithHTTPClient(httpClient(cfg.HTTPClient, fallback)), option.WithMaxRetries(0),
		vertex.WithCredentials(ctx, cfg.Region, cfg.Project, cfg.Credentials)}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	return &cloudUpstream{provider: models.ProviderVertex, opts: sdkOptions(opts), version: VertexVersion, classify: classifyGoogle}, nil
}

// NewFoundry is the Microsoft Foundry provider.
func NewFoundry(cfg FoundryConfig, fallback *http.Client) (Upstream, error) {
	if cfg.APIKey == "" {
		return nil, errors.New("foundry: CHAKSHU_FOUNDRY_API_KEY is required")
	}
	fc, err := foundry.NewClient(foundry.ClientConfig{APIKey: cfg.APIKey, Resource: cfg.Resource, BaseURL: cfg.BaseURL},
		option.WithHTTPClient(httpClient(cfg.HTTPClient, fallback)), option.WithMaxRetries(0))
	if err != nil {
		return nil, err
	}
	return &cloudUpstream{provider: models.ProviderFoundry, opts: sdkOptions(fc.Options), classify: classifyAnthropic}, nil
}

func (u *cloudUpstream) Send(ctx context.Context, c Call) (*http.Response, error) {
	body := c.Body
	if u.version != "" {
		var err error
		if body, err = sjson.SetBytes(body, "anthropic_version", u.version); err != nil {
			return nil, err
		}
	}
	opts := []option.RequestOption{option.WithRequestBody("application/json", body)}
	if c.Beta != "" {
		opts = append(opts, option.WithHeader("anthropic-beta", c.Beta))
	}
	if c.Version != "" && u.version == "" {
		opts = append(opts, option.WithHeader("anthropic-version", c.Version))
	}
	var res *http.Response
	client := anthropic.Client{Options: u.opts} // a local: see sdkOptions
	err := client.Post(ctx, "v1/messages", nil, &res, opts...)
	if res != nil && res.StatusCode >= 400 {
		b := readCapped(res.Body, 64<<10)
		kind, detail := u.classify(res.StatusCode, res.Header, b)
		return nil, refusal(u.provider, c.Model, res.StatusCode, kind, detail, res.Header.Get("retry-after"))
	}
	var tokenErr *oauth2.RetrieveError
	if errors.As(err, &tokenErr) { // Google's token endpoint refused the service account
		return nil, refusal(u.provider, c.Model, tokenErr.Response.StatusCode, CodeCredentials,
			"token: "+tokenErr.ErrorCode+" "+tokenErr.ErrorDescription, "")
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// classifyBedrock reads Bedrock's error type from the x-amzn-ErrorType
// header or the body's __type (AWS restJson1 protocol, "type:namespace"),
// per the Bedrock user guide's "Troubleshooting Amazon Bedrock API Error
// Codes": ThrottlingException 429, ServiceQuotaExceededException,
// ModelNotReadyException (retried by the AWS SDKs), ServiceUnavailable 503,
// InternalServerException 500, ModelTimeoutException 408;
// AccessDeniedException 403 is a missing model access grant ("You don't
// have access to the model with the specified model ID.") or a missing IAM
// permission; ResourceNotFoundException 404 and a ValidationException "The
// provided model identifier is invalid." name a model the region does not
// serve; UnrecognizedClientException, InvalidSignatureException,
// IncompleteSignature and ExpiredTokenException refuse the credentials.
func classifyBedrock(status int, h http.Header, body []byte) (string, string) {
	var e struct {
		Type     string `json:"__type"`
		Message  string `json:"message"`
		Message2 string `json:"Message"`
	}
	_ = json.Unmarshal(body, &e)
	typ := h.Get("X-Amzn-Errortype")
	if typ == "" {
		typ = e.Type
	}
	if i := strings.IndexAny(typ, ":#"); i >= 0 {
		if strings.HasPrefix(typ[i:], "#") { // "namespace#Type"
			typ = typ[i+1:]
		} else {
			typ = typ[:i]
		}
	}
	msg := e.Message + e.Message2
	detail := typ + ": " + msg
	switch typ {
	case "ThrottlingException", "ServiceQuotaExceededException", "ModelNotReadyException":
		return CodeThrottled, detail
	case "ServiceUnavailableException", "InternalServerException", "ModelTimeoutException", "InternalFailure":
		return CodeOverloaded, detail
	case "ResourceNotFoundException", "FTUFormNotFilled":
		return CodeNotEnabled, detail
	case "AccessDeniedException":
		if strings.Contains(msg, "access to the model") {
			return CodeNotEnabled, detail
		}
		return CodeCredentials, detail
	case "ValidationException":
		if strings.Contains(msg, "model identifier is invalid") {
			return CodeNotEnabled, detail
		}
		return CodeRefused, detail
	case "UnrecognizedClientException", "InvalidSignatureException", "IncompleteSignature", "ExpiredTokenException",
		"InvalidClientTokenId", "MissingAuthenticationToken":
		return CodeCredentials, detail
	}
	return classifyStatus(status), detail
}

// classifyGoogle reads a Google API error ({"error": {"code", "message",
// "status"}}; Google AIP-193): RESOURCE_EXHAUSTED 429 is a quota,
// UNAVAILABLE 503 and DEADLINE_EXCEEDED 504 are transient, NOT_FOUND 404
// ("Publisher Model … was not found or your project does not have access to
// it") is a model the project has not enabled, PERMISSION_DENIED 403 and
// UNAUTHENTICATED 401 refuse the credentials. Anthropic-shaped errors that
// Vertex passes from the model (overloaded_error 529) are read like
// Anthropic's.
func classifyGoogle(status int, h http.Header, body []byte) (string, string) {
	var e struct {
		Error struct {
			Status  string `json:"status"`
			Message string `json:"message"`
			Type    string `json:"type"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	detail := e.Error.Status + e.Error.Type + ": " + e.Error.Message
	switch e.Error.Status {
	case "RESOURCE_EXHAUSTED":
		return CodeThrottled, detail
	case "UNAVAILABLE", "DEADLINE_EXCEEDED", "INTERNAL":
		return CodeOverloaded, detail
	case "NOT_FOUND":
		return CodeNotEnabled, detail
	case "PERMISSION_DENIED", "UNAUTHENTICATED":
		return CodeCredentials, detail
	}
	if e.Error.Type != "" {
		return classifyAnthropic(status, h, body)
	}
	return classifyStatus(status), detail
}

// classifyAnthropic reads an Anthropic error ({"type": "error", "error":
// {"type", "message"}}; docs "Errors"): rate_limit_error 429,
// overloaded_error 529, api_error 500, authentication_error 401,
// permission_error 403, not_found_error 404.
func classifyAnthropic(status int, _ http.Header, body []byte) (string, string) {
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	detail := e.Error.Type + ": " + e.Error.Message
	switch e.Error.Type {
	case "rate_limit_error":
		return CodeThrottled, detail
	case "overloaded_error", "api_error":
		return CodeOverloaded, detail
	case "authentication_error", "permission_error":
		return CodeCredentials, detail
	case "not_found_error":
		return CodeNotEnabled, detail
	}
	if status == 529 {
		return CodeOverloaded, detail
	}
	return classifyStatus(status), detail
}
