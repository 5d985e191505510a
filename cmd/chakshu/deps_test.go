package main

import (
	"os/exec"
	"strings"
	"testing"
)

// generatorOnly are import paths (and everything under them) that only code
// generation needs. Linked into a server they cost resident memory for
// nothing: entgql's and entc's package init parses their templates at
// start-up (DESIGN §11 budgets idle RSS; graph/entgqlrt explains).
var generatorOnly = []string{
	"entgo.io/contrib/entgql",
	"entgo.io/ent/entc",
	"github.com/99designs/gqlgen/api",
	"github.com/99designs/gqlgen/codegen",
	"github.com/99designs/gqlgen/plugin",
	"golang.org/x/tools",
}

func isGeneratorOnly(path string) bool {
	for _, p := range generatorOnly {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// The server binaries do not link the code generators; a failure names the
// package of ours (or the library) that pulled one in.
func TestDepsExcludeCodeGenerators(t *testing.T) {
	for _, pkg := range []string{".", "../chakshu-action"} {
		out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for line := range strings.Lines(string(out)) {
			f := strings.Fields(line)
			if len(f) == 0 || isGeneratorOnly(f[0]) {
				continue
			}
			for _, imp := range f[1:] {
				if isGeneratorOnly(imp) {
					t.Errorf("%s links %s (imported by %s): keep code generators out of the server", pkg, imp, f[0])
				}
			}
		}
	}
}

func TestIsGeneratorOnly(t *testing.T) {
	for path, want := range map[string]bool{
		"entgo.io/contrib/entgql":                       true,
		"entgo.io/ent/entc/gen":                         true,
		"golang.org/x/tools/go/packages":                true,
		"github.com/99designs/gqlgen/codegen":           true,
		"github.com/99designs/gqlgen/graphql":           false,
		"entgo.io/ent/dialect/sql":                      false,
		"entgo.io/ent/entcx":                            false,
		"github.com/chakshu-dev/chakshu/graph/entgqlrt": false,
	} {
		if got := isGeneratorOnly(path); got != want {
			t.Errorf("isGeneratorOnly(%s) = %v, want %v", path, got, want)
		}
	}
}
