package graph

import (
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/chakshu-dev/chakshu/graph/exec"
)

// undocumented lists every type, field, argument, input field and enum value
// of the schema with no description. Prelude (built-in) types and the
// introspection types are GraphQL's own.
func undocumented(s *ast.Schema) []string {
	var miss []string
	blank := func(d string) bool { return strings.TrimSpace(d) == "" }
	for name, d := range s.Types {
		if d.BuiltIn || strings.HasPrefix(name, "__") {
			continue
		}
		if blank(d.Description) {
			miss = append(miss, "type "+name)
		}
		for _, f := range d.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			what := "field "
			if d.Kind == ast.InputObject {
				what = "input field "
			}
			if blank(f.Description) {
				miss = append(miss, what+name+"."+f.Name)
			}
			for _, a := range f.Arguments {
				if blank(a.Description) {
					miss = append(miss, "argument "+name+"."+f.Name+"("+a.Name+")")
				}
			}
		}
		for _, v := range d.EnumValues {
			if blank(v.Description) {
				miss = append(miss, "enum value "+name+"."+v.Name)
			}
		}
	}
	return miss
}

// TestSchemaIsDocumented fails on anything in the served schema an explorer
// would show without a description. Generated parts get theirs from ent/schema
// (.Comment(...) on fields and edges, schema.Comment on types, enumDoc on
// enum fields; ent/entcdoc.go words the WhereInput predicates and order
// fields); schema/*.graphqls is written with them.
func TestSchemaIsDocumented(t *testing.T) {
	s := exec.NewExecutableSchema(exec.Config{}).Schema()
	if len(s.Types) < 100 {
		t.Fatalf("served schema has %d types; expected the whole API", len(s.Types))
	}
	for _, m := range undocumented(s) {
		t.Errorf("undocumented: %s", m)
	}
}

// TestUndocumentedIsCaught proves the check sees each kind it promises to.
func TestUndocumentedIsCaught(t *testing.T) {
	s := exec.NewExecutableSchema(exec.Config{}).Schema()
	run := s.Types["Run"]
	where := s.Types["RunWhereInput"]
	status := s.Types["RunStatus"]
	costSummary := s.Query.Fields.ForName("costSummary")
	if run == nil || where == nil || status == nil || costSummary == nil {
		t.Fatal("schema lacks Run, RunWhereInput, RunStatus or Query.costSummary")
	}
	cases := []struct {
		name  string
		clear func() (restore func())
		want  string
	}{
		{"type", blankOut(&run.Description), "type Run"},
		{"field", blankOut(&run.Fields.ForName("costUsd").Description), "field Run.costUsd"},
		{"argument", blankOut(&costSummary.Arguments.ForName("groupBy").Description), "argument Query.costSummary(groupBy)"},
		{"input field", blankOut(&where.Fields.ForName("statusIn").Description), "input field RunWhereInput.statusIn"},
		{"enum value", blankOut(&status.EnumValues.ForName("queued").Description), "enum value RunStatus.queued"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			restore := c.clear()
			defer restore()
			got := undocumented(s)
			if len(got) != 1 || got[0] != c.want {
				t.Fatalf("undocumented = %q, want [%q]", got, c.want)
			}
		})
	}
}

func blankOut(d *string) func() func() {
	return func() func() {
		old := *d
		*d = " \n"
		return func() { *d = old }
	}
}
