package ghsim

import (
	"bytes"
	"context"
	_ "embed"
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
)

// GitHub's descriptions, extracted by cmd/specgen (make generate).
var (
	//go:embed spec/openapi-subset.json
	openAPISubset []byte
	//go:embed spec/webhooks-schema.json
	webhooksSchema []byte
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
		specDoc, specErr = l.LoadFromData(openAPISubset)
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

func (s *Sim) requestInput(r *http.Request, path string, body []byte) (*openapi3filter.RequestValidationInput, error) {
	rt, vars, _ := s.match(r.Method, path)
	if rt == nil {
		return nil, nil
	}
	route, err := specRoute(rt.method, strings.ReplaceAll(rt.template, "...}", "}"))
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
	return &openapi3filter.RequestValidationInput{Request: req, PathParams: vars, Route: route, Options: validationOptions()}, nil
}

// validateRequest checks r against GitHub's OpenAPI description.
func (s *Sim) validateRequest(r *http.Request, path string, body []byte) {
	in, err := s.requestInput(r, path, body)
	if err == nil && in != nil {
		err = openapi3filter.ValidateRequest(context.Background(), in)
	}
	if err != nil {
		s.validationError(fmt.Errorf("request %s %s does not match GitHub's OpenAPI description: %v", r.Method, path, err))
	}
}

// validateResponse checks the recorded answer against GitHub's OpenAPI description.
func (s *Sim) validateResponse(r *http.Request, path string, body []byte, rec *recorder) {
	if rec.status == http.StatusUnauthorized {
		return // GitHub answers 401 everywhere; its description lists it almost nowhere
	}
	in, err := s.requestInput(r, path, body)
	if err == nil && in != nil && undocumentedError(in, rec) {
		return
	}
	if err == nil && in != nil {
		opts := validationOptions()
		ct := rec.h.Get("Content-Type")
		if !strings.Contains(ct, "json") {
			opts.ExcludeResponseBody = true // diffs and raw content
		}
		err = openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in, Status: rec.status, Header: rec.h,
			Body: io.NopCloser(bytes.NewReader(rec.body.Bytes())), Options: opts,
		})
	}
	if err != nil {
		s.validationError(fmt.Errorf("simulator's response %d to %s %s does not match GitHub's OpenAPI description: %v", rec.status, r.Method, path, err))
	}
}

// undocumentedError accepts the 403/404/422 answers GitHub really gives on
// operations whose description omits them (a 404 for a repository the token
// cannot see, 403 "Resource not accessible by integration", a dispatch
// without the workflow file), as long as the body is GitHub's error shape.
func undocumentedError(in *openapi3filter.RequestValidationInput, rec *recorder) bool {
	switch rec.status {
	case http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity:
	default:
		return false
	}
	if in.Route.Operation.Responses.Status(rec.status) != nil {
		return false
	}
	var e struct {
		Message          *string `json:"message"`
		DocumentationURL *string `json:"documentation_url"`
	}
	return json.Unmarshal(rec.body.Bytes(), &e) == nil && e.Message != nil && e.DocumentationURL != nil
}

func hookSchema(event, action string) (*jsonschema.Schema, error) {
	hookOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(webhooksSchema))
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

// validateWebhook checks a payload against GitHub's webhook schemas.
func (s *Sim) validateWebhook(d *Delivery) {
	sch, err := hookSchema(d.Event, d.Action)
	if err == nil {
		var v any
		v, err = jsonschema.UnmarshalJSON(bytes.NewReader(d.Payload))
		if err == nil {
			err = sch.Validate(v)
		}
	}
	if err != nil {
		s.validationError(fmt.Errorf("webhook %s.%s does not match GitHub's webhook schema: %v", d.Event, d.Action, err))
	}
}

// ValidateGraphQL checks a GraphQL document against GitHub's schema (the
// endpoint does this for every request when validation is on).
func ValidateGraphQL(query string) error {
	return validateGraphQLDoc(query)
}
