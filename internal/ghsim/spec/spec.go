// Package spec holds GitHub's published REST, webhook and GraphQL descriptions,
// extracted by cmd/specgen (make generate), for the tests' validation of the
// simulator's traffic (ghsimtest.Spec). Only tests import it: the server's
// binary carries none of it.
package spec

import _ "embed"

// GitHub's descriptions.
var (
	//go:embed openapi-subset.json
	OpenAPISubset []byte
	//go:embed webhooks-schema.json
	WebhooksSchema []byte
	//go:embed schema.graphql
	GraphQLSchema string
)
