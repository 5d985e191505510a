package ghsim

import "net/http"

// Validator checks the simulator's traffic against GitHub's published
// descriptions (Options.Validator). The REST calls name the route as the
// description does (method, "/repos/{owner}/{repo}/pulls/{pull_number}") with
// its path parameters; an error is a mismatch, recorded as a validation
// failure. ghsimtest.Spec is the one the tests use.
type Validator interface {
	// Request checks a REST request and its body.
	Request(r *http.Request, method, template string, params map[string]string, body []byte) error
	// Response checks the simulator's answer to it.
	Response(r *http.Request, method, template string, params map[string]string, body []byte,
		status int, header http.Header, respBody []byte) error
	// Webhook checks a delivery's payload.
	Webhook(event, action string, payload []byte) error
	// GraphQL checks a GraphQL request's document and variables against
	// GitHub's schema; the simulator answers an error with GraphQL's errors
	// list (a gqlerror.List as it is), as GitHub does.
	GraphQL(query, operationName string, variables map[string]any) error
}
