package gateway

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/chakshu-dev/chakshu/server"
)

// Upstream is one model provider behind the gateway. The runner always
// speaks the Messages API to the gateway; each provider sends the request
// the way its service takes it and answers in the Messages API's wire
// format: a JSON message, or for a successful stream the Messages API's
// server-sent events, whatever the provider's own framing (Bedrock's binary
// event stream, Chat Completions chunks). So metering, the cost cap and the
// relay are the same code for every provider.
type Upstream interface {
	// Send sends c. A refusal the provider explains comes back as *Refusal
	// (mapped to the runner's error shape); other errors mean the provider
	// could not be reached. Anthropic-shaped providers may instead answer
	// their own error status and body, which pass through as they are.
	Send(ctx context.Context, c Call) (*http.Response, error)
}

// Call is one Messages request on its way to a provider.
type Call struct {
	// Body is the Messages request with its model set to the provider's id.
	Body []byte
	// Model is the provider's model id (also in Body).
	Model string
	// Stream says the runner asked for server-sent events.
	Stream bool
	// Version and Beta are the runner's anthropic-version and anthropic-beta
	// headers (Beta already checked against CHAKSHU_MODEL_BETAS).
	Version, Beta string
}

// Kinds of refusal, each with the status and code the runner gets.
const (
	// CodeThrottled: the provider's rate or quota limit (429; retryable).
	CodeThrottled = "upstream_throttled"
	// CodeOverloaded: the provider is unavailable or timed out (529; retryable).
	CodeOverloaded = "upstream_overloaded"
	// CodeNotEnabled: the model is not enabled, not offered in the region,
	// or not found on the provider (400; not retryable; an operator fixes it).
	CodeNotEnabled = "model_not_enabled"
	// CodeCredentials: the provider refused Chakshu's credentials or their
	// permissions (502; not retryable).
	CodeCredentials = "upstream_credentials"
	// CodeRefused: any other refusal of the request (400).
	CodeRefused = "upstream_refused"
)

// Refusal is a provider's refusal, translated.
type Refusal struct {
	// Provider names the provider, e.g. "bedrock".
	Provider string
	// Status is what the runner gets; Code the runner error code.
	Status int
	Code   string
	// Message is a safe sentence naming the fix.
	Message string
	// RetryAfter is the provider's retry-after, in seconds, when it gave one.
	RetryAfter string
	// Detail is the provider's own status and text, for the operator's log
	// (redacted before it is logged).
	Detail string
}

func (r *Refusal) Error() string { return r.Provider + ": " + r.Code + ": " + r.Detail }

// retryable says the runner should ask again.
func (r *Refusal) retryable() bool { return r.Code == CodeThrottled || r.Code == CodeOverloaded }

// write sends r to the runner in its error shape (runnerproto.Error), with
// the retry advice the agent's SDK follows.
func (r *Refusal) write(w http.ResponseWriter) {
	if r.retryable() {
		w.Header().Set("x-should-retry", "true")
		if r.RetryAfter != "" {
			w.Header().Set("retry-after", r.RetryAfter)
		}
	} else {
		w.Header().Set("x-should-retry", "false")
	}
	server.WriteError(w, r.Status, r.Code, r.Message)
}

// refusal builds the Refusal of a provider's error answer of status, whose
// kind the caller read from the provider's error type.
func refusal(provider, model string, status int, kind, detail, retryAfter string) *Refusal {
	name := providerNames[provider]
	r := &Refusal{Provider: provider, Code: kind, Detail: fmt.Sprintf("%d %s", status, detail), RetryAfter: retryAfter}
	switch kind {
	case CodeThrottled:
		r.Status, r.Message = http.StatusTooManyRequests, name+" is rate limiting or out of quota for this model; try again shortly"
	case CodeOverloaded:
		r.Status, r.Message = 529, name+" is overloaded or unavailable; try again shortly"
	case CodeNotEnabled:
		r.Status, r.Message = http.StatusBadRequest, fmt.Sprintf("model %q is not enabled for Chakshu's account on %s (%s)", model, name, notEnabledFix[provider])
	case CodeCredentials:
		r.Status, r.Message = http.StatusBadGateway, fmt.Sprintf("%s refused Chakshu's credentials; an operator should run `chakshu doctor` (%s)", name, credentialsFix[provider])
	default:
		r.Code, r.Status, r.Message = CodeRefused, http.StatusBadRequest, name+" refused the request"
	}
	return r
}

var providerNames = map[string]string{
	"anthropic": "Anthropic", "bedrock": "Amazon Bedrock", "vertex": "Google Vertex AI",
	"foundry": "Microsoft Foundry", "openai": "the OpenAI-compatible endpoint",
}

var notEnabledFix = map[string]string{
	"bedrock": "request access to it in the Bedrock console's Model access page for this region, or use an inference profile id the region offers",
	"vertex":  "enable it in Vertex AI Model Garden for this project and region",
	"foundry": "deploy it in the Foundry resource under this deployment name",
	"openai":  "check that the server serves this model name",
}

var credentialsFix = map[string]string{
	"bedrock": "AWS credentials from the default chain, and bedrock:InvokeModel and bedrock:InvokeModelWithResponseStream on the model",
	"vertex":  "Application Default Credentials with aiplatform.endpoints.predict on the project",
	"foundry": "CHAKSHU_FOUNDRY_API_KEY",
	"openai":  "CHAKSHU_OPENAI_API_KEY",
}

// classifyStatus is the kind of an error answer by its status alone, for
// providers whose error bodies say no more than it.
func classifyStatus(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return CodeThrottled
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return CodeCredentials
	case status == http.StatusNotFound:
		return CodeNotEnabled
	case status == http.StatusRequestTimeout || status >= 500:
		return CodeOverloaded
	}
	return CodeRefused
}

// readCapped reads at most n bytes of an error body.
func readCapped(rc io.ReadCloser, n int64) []byte {
	defer rc.Close()
	b, _ := io.ReadAll(io.LimitReader(rc, n))
	return b
}

// anthropicUpstream is Anthropic's own API: the request goes as it is with
// Chakshu's key, and the answer (errors included) comes back as it is.
type anthropicUpstream struct {
	endpoint, key string
	client        *http.Client
}

func (u *anthropicUpstream) Send(ctx context.Context, c Call) (*http.Response, error) {
	up, err := http.NewRequestWithContext(ctx, http.MethodPost, u.endpoint, bytes.NewReader(c.Body))
	if err != nil {
		return nil, err
	}
	up.Header.Set("Content-Type", "application/json")
	if c.Stream {
		up.Header.Set("Accept", "text/event-stream")
	} else {
		up.Header.Set("Accept", "application/json")
	}
	up.Header.Set("x-api-key", u.key)
	v := c.Version
	if v == "" {
		v = defaultVersion
	}
	up.Header.Set("anthropic-version", v)
	if c.Beta != "" {
		up.Header.Set("anthropic-beta", c.Beta)
	}
	return u.client.Do(up)
}

// trimDetail shortens a provider's error text for the log.
func trimDetail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 500 {
		s = s[:500]
	}
	return s
}
