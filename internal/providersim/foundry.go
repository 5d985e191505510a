package providersim

import (
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// FoundryKey is the simulated Foundry resource's key.
const FoundryKey = "sim-foundry-resource-key-0123456789abcdef"

// Foundry simulates Claude in Microsoft Foundry: a resource serves
// Anthropic's Messages API itself at
// https://{resource}.services.ai.azure.com/anthropic/v1/messages (Anthropic
// docs "Claude in Microsoft Foundry"; anthropic-sdk-go v2.15.0 foundry
// package: base URL .../anthropic/, key sent as X-Api-Key). The request is
// the first-party Messages request, except that its model field names a
// deployment of the resource (the deployment name, chosen when deploying).
// Answers, streams included, are Anthropic's own.
type Foundry struct {
	// Model is the scripted model behind it.
	Model http.Handler
	// Deployments are the resource's deployment names, each with the
	// Anthropic model id the scripted model answers as.
	Deployments map[string]string
	// Key is the resource key required; empty means FoundryKey.
	Key string

	meter meter
}

// Calls is how many messages reached the model.
func (f *Foundry) Calls() int { return f.meter.count() }

// azureError answers in the Azure AI services error shape, which the
// resource's front end uses before the request reaches Claude: 401
// {"error":{"code":"401","message":"Access denied due to invalid
// subscription key or wrong API endpoint. ..."}} for a missing or wrong key
// (as integrators saw it from /anthropic/v1/messages:
// owndev/Open-WebUI-Functions#97), and 404 when the deployment name does
// not exist (Microsoft Learn, Azure OpenAI in Foundry Models "Troubleshoot
// errors": 404 Not Found, "deployment name doesn't exist"; code
// DeploymentNotFound).
func azureError(w http.ResponseWriter, status int, code, msg string) {
	jsonError(w, status, map[string]any{"error": map[string]any{"code": code, "message": msg}})
}

func (f *Foundry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := f.Key
	if key == "" {
		key = FoundryKey
	}
	// The key goes in the api-key or the x-api-key header (Anthropic docs
	// "Claude in Microsoft Foundry", API key authentication).
	got := r.Header.Get("x-api-key")
	if got == "" {
		got = r.Header.Get("api-key")
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(key)) != 1 {
		azureError(w, http.StatusUnauthorized, "401", "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.")
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/anthropic/v1/messages" {
		azureError(w, http.StatusNotFound, "404", "Resource not found")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil || !gjson.ValidBytes(body) {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "The request body is not valid JSON.")
		return
	}
	name := gjson.GetBytes(body, "model").String()
	model, ok := f.Deployments[name]
	if !ok {
		azureError(w, http.StatusNotFound, "DeploymentNotFound", fmt.Sprintf("The API deployment %q for this resource does not exist.", name))
		return
	}
	f.meter.take()
	body, _ = sjson.SetBytes(body, "model", model)
	rec := forward(f.Model, r, body)
	for k, vals := range rec.Header() {
		w.Header()[k] = vals
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes()) //nolint:errcheck
}

// apiError answers in Anthropic's error shape (the Messages API's own
// validation, behind the resource's front end).
func apiError(w http.ResponseWriter, status int, typ, msg string) {
	jsonError(w, status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}
