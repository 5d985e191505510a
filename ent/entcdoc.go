//go:build ignore

package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"entgo.io/ent/entc/gen"
	"github.com/vektah/gqlparser/v2/ast"
)

// describe is an entgql schema hook: it gives the parts of schema/ent.graphqls
// that entgql v0.7.0 leaves without a description one, so an explorer shows
// what every type, field, argument and enum value means
// (graph/describe_test.go fails on any left undocumented).
//
// What entgql v0.7.0 already turns into descriptions: a field's and an edge's
// .Comment(...) (but not the edge of a Relay connection, which it rebuilds),
// the Relay boilerplate (connections, edges, PageInfo, orders, node/nodes) and
// the first predicate of each field in a WhereInput ("x field predicates").
// What it does not, and this hook fills in from the ent schema:
//   - an ent type's description: its schema.Comment("...") annotation;
//   - connection edges and the top-level connection queries: the edge's
//     comment, and "<Type>s the viewer can see ..." with the type's comment;
//   - enum values of enum fields: the enumDoc annotation beside the field
//     (ent/schema/gql_doc.go); order-field values: the field they order by;
//   - every WhereInput predicate: what the operator compares, worded once
//     here per operator (not, and, or, hasX, hasXWith, fieldNEQ, fieldIn...).
//
// It never overwrites a description someone wrote.
func describe(g *gen.Graph, s *ast.Schema) error {
	if q := s.Types["Query"]; q != nil && q.Description == "" {
		q.Description = "The entry points for reading Chakshu's data. Every list is limited to what the viewer may see on GitHub."
	}
	for _, n := range g.Nodes {
		def := s.Types[n.Name]
		if def == nil {
			continue // skipped by entgql
		}
		typeDoc := typeComment(n)
		if def.Description == "" {
			def.Description = typeDoc
		}
		if f := def.Fields.ForName("id"); f != nil && f.Description == "" {
			f.Description = "The global ID: node(id:) resolves it."
		}
		for _, e := range n.Edges {
			if f := def.Fields.ForName(camel(e.Name)); f != nil && f.Description == "" {
				f.Description = e.Comment()
			}
		}
		if q := s.Types["Query"]; q != nil {
			for _, f := range q.Fields {
				if f.Description == "" && f.Type.Name() == n.Name+"Connection" {
					f.Description = fmt.Sprintf("%s the viewer can see, a page at a time (Relay): filter with where, sort with orderBy. %s", plural(n.Name), typeDoc)
				}
			}
		}
		for _, f := range allFields(n) {
			if !f.IsEnum() {
				continue
			}
			gf := def.Fields.ForName(camel(f.Name))
			if gf == nil {
				continue
			}
			enum := s.Types[gf.Type.Name()]
			docs := enumDocs(f)
			for _, v := range enum.EnumValues {
				if v.Description == "" {
					v.Description = docs[v.Name]
				}
			}
		}
		if order := s.Types[n.Name+"OrderField"]; order != nil {
			for _, v := range order.EnumValues {
				if v.Description != "" {
					continue
				}
				for _, f := range allFields(n) {
					if orderFieldName(f) == v.Name {
						v.Description = fmt.Sprintf("Order by %s.", camel(f.Name))
					}
				}
			}
		}
		if where := s.Types[n.Name+"WhereInput"]; where != nil {
			describeWhere(where, plural(n.Name))
		}
	}
	return nil
}

// predicateOps words each WhereInput operator suffix entgql generates
// (camel(field + "_" + op.Name()); the EQ form has no suffix).
var predicateOps = map[string]string{
	"":             "equals the value",
	"NEQ":          "differs from the value",
	"In":           "is one of the values",
	"NotIn":        "is none of the values",
	"GT":           "is greater than the value",
	"GTE":          "is greater than or equal to the value",
	"LT":           "is less than the value",
	"LTE":          "is less than or equal to the value",
	"IsNil":        "is null (when true)",
	"NotNil":       "is set (when true)",
	"Contains":     "contains the text",
	"HasPrefix":    "starts with the text",
	"HasSuffix":    "ends with the text",
	"EqualFold":    "equals the text, ignoring case",
	"ContainsFold": "contains the text, ignoring case",
}

// describeWhere words every predicate of a WhereInput. entgql emits a field's
// predicates together, the first (the EQ form) described "x field
// predicates", and each edge as hasX ("x edge predicates") then hasXWith.
func describeWhere(where *ast.Definition, things string) {
	base := ""
	for _, f := range where.Fields {
		switch {
		case f.Name == "not":
			f.Description = fmt.Sprintf("%s that do not match this filter.", things)
			continue
		case f.Name == "and":
			f.Description = fmt.Sprintf("%s that match every one of these filters.", things)
			continue
		case f.Name == "or":
			f.Description = fmt.Sprintf("%s that match at least one of these filters.", things)
			continue
		case strings.HasSuffix(f.Description, " field predicates"):
			base = f.Name
		case strings.HasSuffix(f.Description, " edge predicates"):
			base = ""
			f.Description = fmt.Sprintf("%s that have (true) or lack (false) a %s.", things, strings.TrimSuffix(f.Description, " edge predicates"))
			continue
		case strings.HasPrefix(f.Name, "has") && strings.HasSuffix(f.Name, "With"):
			base = ""
			if f.Description == "" {
				f.Description = fmt.Sprintf("%s with a %s matching one of these filters.", things, lowerFirst(strings.TrimSuffix(strings.TrimPrefix(f.Name, "has"), "With")))
			}
			continue
		}
		if f.Description != "" && !strings.HasSuffix(f.Description, " field predicates") {
			continue // written by hand (schema/chakshu.graphqls extends)
		}
		if op, ok := predicateOps[strings.TrimPrefix(f.Name, base)]; ok && base != "" && strings.HasPrefix(f.Name, base) {
			f.Description = fmt.Sprintf("%s whose %s %s.", things, base, op)
		}
	}
}

// typeComment is the text of a type's schema.Comment annotation.
func typeComment(n *gen.Type) string {
	var c struct{ Text string }
	decode(n.Annotations["Comment"], &c)
	return c.Text
}

// enumDocs is the enumDoc annotation of an enum field (ent/schema/gql_doc.go).
func enumDocs(f *gen.Field) map[string]string {
	m := map[string]string{}
	decode(f.Annotations["GQLEnumDoc"], &m)
	return m
}

// orderFieldName is the entgql.OrderField name of a field, if any.
func orderFieldName(f *gen.Field) string {
	var a struct{ OrderField string }
	decode(f.Annotations["EntGQL"], &a)
	return a.OrderField
}

func decode(v any, into any) {
	if v == nil {
		return
	}
	b, err := json.Marshal(v)
	if err == nil {
		_ = json.Unmarshal(b, into)
	}
}

func allFields(t *gen.Type) []*gen.Field {
	if t.ID == nil {
		return t.Fields
	}
	return append([]*gen.Field{t.ID}, t.Fields...)
}

// camel is entgql's field naming (snake_case to camelCase, ent's acronyms kept).
var camel = gen.Funcs["camel"].(func(string) string)

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func plural(s string) string {
	if strings.HasSuffix(s, "y") {
		return s[:len(s)-1] + "ies"
	}
	return s + "s"
}
