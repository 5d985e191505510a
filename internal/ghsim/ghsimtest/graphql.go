package ghsimtest

import (
	"fmt"
	"sync"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/chakshu-dev/chakshu/internal/ghsim/spec"
)

// GitHub's schema, parsed once per test binary (about 5 MB of heap).
var (
	gqlOnce   sync.Once
	gqlSchema *ast.Schema
	gqlErr    error
)

func graphQLSchema() (*ast.Schema, error) {
	gqlOnce.Do(func() { gqlSchema, gqlErr = parseGraphQLSchema() })
	return gqlSchema, gqlErr
}

// parseGraphQLSchema parses GitHub's schema. The published file defines a few
// fields twice, which gqlparser's LoadSchema refuses, so duplicates are
// dropped before validation.
func parseGraphQLSchema() (*ast.Schema, error) {
	doc, err := parser.ParseSchemas(validator.Prelude, &ast.Source{Name: "github.graphql", Input: spec.GraphQLSchema})
	if err != nil {
		return nil, fmt.Errorf("parse GitHub's GraphQL schema: %w", err)
	}
	dedupe := func(defs ast.DefinitionList) {
		for _, d := range defs {
			seen := map[string]bool{}
			kept := d.Fields[:0]
			for _, f := range d.Fields {
				if !seen[f.Name] {
					seen[f.Name] = true
					kept = append(kept, f)
				}
			}
			d.Fields = kept
		}
	}
	dedupe(doc.Definitions)
	dedupe(doc.Extensions)
	schema, err := validator.ValidateSchemaDocument(doc)
	if err != nil {
		return nil, fmt.Errorf("validate GitHub's GraphQL schema: %w", err)
	}
	return schema, nil
}

// GraphQL checks a request's document and variables against GitHub's schema.
func (Spec) GraphQL(query, operationName string, variables map[string]any) error {
	schema, err := graphQLSchema()
	if err != nil {
		return err
	}
	doc, errs := gqlparser.LoadQuery(schema, query)
	if len(errs) > 0 {
		return fmt.Errorf("GraphQL document does not validate against GitHub's schema: %w", errs)
	}
	op := doc.Operations.ForName(operationName)
	if op == nil && len(doc.Operations) > 0 {
		op = doc.Operations[0]
	}
	if _, err := validator.VariableValues(schema, op, variables); err != nil {
		return fmt.Errorf("GraphQL variables do not validate against GitHub's schema: %w", err)
	}
	return nil
}

// ValidateGraphQL checks a GraphQL document against GitHub's schema.
func ValidateGraphQL(query string) error { return Spec{}.GraphQL(query, "", nil) }
