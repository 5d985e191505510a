// Package ghsimtest starts the GitHub simulator for tests: validating every
// REST request and response against GitHub's OpenAPI description and every
// webhook payload against GitHub's webhook schemas (Spec), and failing the
// test on a mismatch (New). The descriptions and this package stay out of
// the server's binary.
package ghsimtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/spec"
)

// The descriptions are loaded once per process: every sim shares them.
var (
	specOnce sync.Once
	specDoc  *openapi3.T
	specErr  error

	hookOnce     sync.Once
	hookCompiler *jsonschema.Compiler
	hookErr      error
	hookMu       sync.Mutex
	hookSchemas  = map[string]*jsonschema.Schema{}
)

func loadSpec() (*openapi3.T, error) {
	specOnce.Do(func() {
		l := openapi3.NewLoader()
		specDoc, specErr = l.LoadFromData(spec.OpenAPISubset)
		if specErr != nil {
			specErr = fmt.Errorf("load OpenAPI subset: %w", specErr)
		}
	})
	return specDoc, specErr
}

// specRoute builds kin-openapi's route for one of the simulator's routes (the
// simulator already matched the path; no router needed).
func specRoute(method, template string) (*routers.Route, error) {
	doc, err := loadSpec()
	if err != nil {
		return nil, err
	}
	item := doc.Paths.Value(template)
	if item == nil {
		return nil, fmt.Errorf("%s %s is not in the OpenAPI subset (run make generate)", method, template)
	}
	op := item.GetOperation(method)
	if op == nil {
		return nil, fmt.Errorf("%s %s is not in the OpenAPI subset (run make generate)", method, template)
	}
	return &routers.Route{Spec: doc, Server: doc.Servers[0], Path: template, PathItem: item, Method: method, Operation: op}, nil
}

func validationOptions() *openapi3filter.Options {
	return &openapi3filter.Options{
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus: true,
		MultiError:            true,
		// Schema dumps in errors run to pages; the path and reason are enough.
		SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()},
	}
}

// Spec is the simulator's Validator against GitHub's descriptions. The
// descriptions are loaded once per process and shared.
type Spec struct{}

var _ ghsim.Validator = Spec{}

func requestInput(r *http.Request, method, template string, params map[string]string, body []byte) (*openapi3filter.RequestValidationInput, error) {
	route, err := specRoute(method, template)
	if err != nil {
		return nil, err
	}
	req := r.Clone(r.Context())
	if string(bytes.TrimSpace(body)) == "null" {
		// ghinstallation posts a JSON null to access_tokens when it asks for
		// no narrowing; GitHub accepts it as an empty body.
		body = nil
		req.Header.Del("Content-Type")
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	return &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: validationOptions()}, nil
}

// Request checks r against GitHub's OpenAPI description.
func (Spec) Request(r *http.Request, method, template string, params map[string]string, body []byte) error {
	in, err := requestInput(r, method, template, params, body)
	if err != nil {
		return err
	}
	return openapi3filter.ValidateRequest(context.Background(), in)
}

// Response checks the simulator's answer against GitHub's OpenAPI description.
func (Spec) Response(r *http.Request, method, template string, params map[string]string, body []byte,
	status int, header http.Header, respBody []byte) error {
	if status == http.StatusUnauthorized {
		return nil // GitHub answers 401 everywhere; its description lists it almost nowhere
	}
	in, err := requestInput(r, method, template, params, body)
	if err != nil {
		return err
	}
	if undocumentedError(in, status, respBody) || ambiguousConflict(status, respBody) {
		return nil
	}
	opts := validationOptions()
	if !strings.Contains(header.Get("Content-Type"), "json") {
		opts.ExcludeResponseBody = true // diffs and raw content
	}
	return openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: status, Header: header,
		Body: io.NopCloser(bytes.NewReader(respBody)), Options: opts,
	})
}

// ambiguousConflict accepts a 409 in GitHub's error shape: PUT contents
// declares its 409 as oneOf basic-error and repository-rule-violation-error,
// whose properties are all optional, so every error body matches both and
// strict oneOf rejects each one GitHub could send.
func ambiguousConflict(status int, body []byte) bool {
	if status != http.StatusConflict {
		return false
	}
	var e struct {
		Message          *string `json:"message"`
		DocumentationURL *string `json:"documentation_url"`
	}
	return json.Unmarshal(body, &e) == nil && e.Message != nil && e.DocumentationURL != nil
}

// undocumentedError accepts the 403/404/422 answers GitHub really gives on
// operations whose description omits them (a 404 for a repository the token
// cannot see, 403 "Resource not accessible by integration", a dispatch
// without the workflow file), as long as the body is GitHub's error shape.
func undocumentedError(in *openapi3filter.RequestValidationInput, status int, body []byte) bool {
	switch status {
	case http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity:
	default:
		return false
	}
	if in.Route.Operation.Responses.Status(status) != nil {
		return false
	}
	var e struct {
		Message          *string `json:"message"`
		DocumentationURL *string `json:"documentation_url"`
	}
	return json.Unmarshal(body, &e) == nil && e.Message != nil && e.DocumentationURL != nil
}

func hookSchema(event, action string) (*jsonschema.Schema, error) {
	hookOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(spec.WebhooksSchema))
		if err != nil {
			hookErr = fmt.Errorf("parse webhook schemas: %w", err)
			return
		}
		hookCompiler = jsonschema.NewCompiler()
		// The library's uri-template check splits on "/" and so rejects
		// GitHub's own "{/owner}" templates; accept any string there.
		hookCompiler.RegisterFormat(&jsonschema.Format{Name: "uri-template", Validate: func(any) error { return nil }})
		hookErr = hookCompiler.AddResource("webhooks.json", doc)
	})
	if hookErr != nil {
		return nil, hookErr
	}
	def := event + "$" + action
	if action == "" {
		def = event + "$event"
	}
	hookMu.Lock()
	defer hookMu.Unlock()
	if sch, ok := hookSchemas[def]; ok {
		return sch, nil
	}
	sch, err := hookCompiler.Compile("webhooks.json#/definitions/" + def)
	if err != nil {
		return nil, fmt.Errorf("no webhook schema %s: %w", def, err)
	}
	hookSchemas[def] = sch
	return sch, nil
}

// Webhook checks a payload against GitHub's webhook schemas.
func (Spec) Webhook(event, action string, payload []byte) error {
	sch, err := hookSchema(event, action)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(payload))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}
