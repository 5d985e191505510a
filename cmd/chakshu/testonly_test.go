package main

import (
	"os/exec"
	"strings"
	"testing"
)

// testOnly are packages the production binary must not link: the testing
// package (whose flags and machinery a server has no use for) and the
// simulator's test side: GitHub's published descriptions (2.2 MB of REST,
// webhook and GraphQL specs) with the validators that read them, and fault
// injection.
var testOnly = []string{
	"testing",
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest",
	"github.com/chakshu-dev/chakshu/internal/ghsim/spec",
	"github.com/getkin/kin-openapi/openapi3filter",
}

// The binary links none of testOnly; a failure names the package of ours
// (or the library) that pulled one in.
func TestBinaryLinksNoTestMachinery(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		for _, imp := range f[1:] {
			for _, bad := range testOnly {
				if imp == bad {
					t.Errorf("the binary links %s (imported by %s): keep test machinery out of the server", imp, f[0])
				}
			}
		}
	}
}
