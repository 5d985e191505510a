package security

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/chakshu-dev/chakshu/graph/exec"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// edgeField is one edge predicate of a where-input: In.Name → the where-input of To.
type edgeField struct{ In, Name, To string }

var edgeRe = regexp.MustCompile(`^has[A-Z]\w*With$`)

// schemaEdges lists, from the generated GraphQL schema, every edge predicate
// of every where-input, and the root query field taking each where-input.
func schemaEdges(t *testing.T) (edges map[string][]edgeField, roots map[string]string) {
	t.Helper()
	s := exec.NewExecutableSchema(exec.Config{}).Schema()
	edges, roots = map[string][]edgeField{}, map[string]string{}
	for name, def := range s.Types {
		if def.Kind != ast.InputObject || !strings.HasSuffix(name, "WhereInput") {
			continue
		}
		for _, f := range def.Fields {
			if !edgeRe.MatchString(f.Name) {
				continue
			}
			if f.Type.Elem == nil || !strings.HasSuffix(f.Type.Elem.Name(), "WhereInput") {
				t.Fatalf("%s.%s is not a list of where-inputs", name, f.Name)
			}
			edges[name] = append(edges[name], edgeField{In: name, Name: f.Name, To: f.Type.Elem.Name()})
		}
	}
	for _, f := range s.Query.Fields {
		if a := f.Arguments.ForName("where"); a != nil {
			roots[a.Type.Name()] = f.Name
		}
	}
	return edges, roots
}

func entityOf(whereInput string) string { return strings.TrimSuffix(whereInput, "WhereInput") }

// edgeProbe is one query: root(where: e1:[{e2:[{… {id: secret}}]}]) {totalCount}.
type edgeProbe struct {
	root  string
	path  []edgeField
	id    int
	query string
}

// TestGraphQLEdgeFiltersSeeOnlyReadableRows tries every edge of every
// where-input, along every path of up to three edges from every root query,
// ending in {id: X} for each row X of the target that alice may not read.
// Whatever the path, no row alice reads may be found to have such a
// neighbour, so every count must be 0 for her (session and read token); the
// same probes as a configured admin must find rows through every edge (the
// seed reaches each), so a new edge without a seeded secret fails here too.
func TestGraphQLEdgeFiltersSeeOnlyReadableRows(t *testing.T) {
	edges, roots := schemaEdges(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		var probes []edgeProbe
		var walk func(root string, at string, path []edgeField)
		walk = func(root, at string, path []edgeField) {
			if len(path) == 3 {
				return
			}
			for _, e := range edges[at] {
				p := append(append([]edgeField{}, path...), e)
				secrets, ok := w.secretIDs[entityOf(e.To)]
				if !ok && entityOf(e.To) != "Worker" {
					t.Fatalf("edge %s.%s into %s: the seed has no secret %s rows; add some to newWorld", e.In, e.Name, e.To, entityOf(e.To))
				}
				for _, id := range secrets {
					probes = append(probes, edgeProbe{root: root, path: p, id: id, query: probeQuery(root, p, id)})
				}
				walk(root, e.To, p)
			}
		}
		rootNames := make([]string, 0, len(roots))
		for in := range roots {
			rootNames = append(rootNames, in)
		}
		sort.Strings(rootNames)
		for _, in := range rootNames {
			walk(roots[in], in, nil)
		}
		if len(probes) < 50 {
			t.Fatalf("only %d probes: the schema walk found too few edges (%v)", len(probes), edges)
		}

		alice := w.Login("alice")
		aliceTok, _ := alice.Token("read")
		admin := w.Login("carol")

		seenByAdmin := map[string]bool{}
		for i := 0; i < len(probes); i += 20 {
			batch := probes[i:min(i+20, len(probes))]
			q := batchQuery(batch)
			for _, who := range []*clientT{{"alice", alice}, {"alice's read token", aliceTok}} {
				got := totalCounts(t, who.c, q, len(batch))
				for j, n := range got {
					if n != 0 {
						t.Errorf("%s: %s counted %d rows through an unreadable %s (id %d)", who.name, batch[j].query, n, entityOf(batch[j].path[len(batch[j].path)-1].To), batch[j].id)
					}
				}
			}
			for j, n := range totalCounts(t, admin, q, len(batch)) {
				if n > 0 {
					for _, e := range batch[j].path {
						seenByAdmin[e.In+"."+e.Name] = true
					}
				}
			}
		}
		for in, es := range edges {
			for _, e := range es {
				if entityOf(e.To) == "Worker" {
					continue
				}
				if !seenByAdmin[in+"."+e.Name] {
					t.Errorf("no probe through %s.%s found a row as admin: the seed does not exercise this edge", in, e.Name)
				}
			}
		}
		t.Logf("%d probes over %d where-inputs", len(probes), len(edges))
	})
}

// TestGraphQLEdgeFilterLeaksFromTheReview reproduces the two leaks of the
// review: guessing an unreadable finding's title through reviewers, and
// listing installations by the names of repositories alice cannot read.
func TestGraphQLEdgeFilterLeaksFromTheReview(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		alice := w.Login("alice")
		aliceTok, _ := alice.Token("read")
		admin := w.Login("carol")
		queries := []string{
			`{ q0: reviewers(where: {hasRunsWith: [{hasRepositoryWith: [{name: "secret"}], hasFindingsWith: [{titleContains: "SECRETT"}]}]}) { totalCount } }`,
			`{ q0: installations(where: {hasRepositoriesWith: [{name: "secret"}]}) { totalCount } }`,
			`{ q0: installations(where: {hasReviewersWith: [{hasRunsWith: [{prTitleContains: "SECRETT"}]}]}) { totalCount } }`,
			`{ q0: repositories(where: {hasInstallationWith: [{hasLearningsWith: [{directiveContains: "l2"}]}]}) { totalCount } }`,
			`{ q0: runs(where: {or: [{hasReviewerWith: [{hasRunsWith: [{hasFindingsWith: [{pathContains: "SECRETTITLE"}]}]}]}]}) { totalCount } }`,
		}
		for _, q := range queries {
			if n := totalCounts(t, admin, q, 1)[0]; n == 0 {
				t.Fatalf("admin: %s = 0, want the seeded rows", q)
			}
			for _, who := range []*clientT{{"alice", alice}, {"alice's read token", aliceTok}} {
				if n := totalCounts(t, who.c, q, 1)[0]; n != 0 {
					t.Errorf("%s: %s = %d, want 0", who.name, q, n)
				}
			}
		}
		// Her own rows still filter as before.
		q := `{ q0: reviewers(where: {hasRunsWith: [{hasFindingsWith: [{titleContains: "public"}]}]}) { totalCount } }`
		if n := totalCounts(t, alice, q, 1)[0]; n != 1 {
			t.Errorf("alice: %s = %d, want 1", q, n)
		}
	})
}

func probeQuery(root string, path []edgeField, id int) string {
	inner := fmt.Sprintf(`{id: "%d"}`, id)
	for i := len(path) - 1; i >= 0; i-- {
		inner = fmt.Sprintf(`{%s: [%s]}`, path[i].Name, inner)
	}
	return fmt.Sprintf(`%s(where: %s) { totalCount }`, root, inner)
}

func batchQuery(ps []edgeProbe) string {
	var b strings.Builder
	b.WriteString("{")
	for i, p := range ps {
		fmt.Fprintf(&b, " q%d: %s", i, p.query)
	}
	b.WriteString(" }")
	return b.String()
}
