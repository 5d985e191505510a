package main

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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

// The server holds no anthropic.Client, whose fields are every service of the
// SDK: a type converted to an interface has its field types' exported
// methods linked in once a binary calls methods by run-time name (text/template
// does), so one Client in a struct of ours linked some forty Beta services'
// methods, about 4 MB of machine code and over 10 MB of idle RSS
// (internal/gateway.sdkOptions). The linked binary must carry none of them.
func TestBinaryLinksNoSDKServiceItDoesNotCall(t *testing.T) {
	f, err := elf.Open(chakshuBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	const sdk = "github.com/anthropics/anthropic-sdk-go/v2."
	var beta []string
	messages := false
	for _, s := range syms {
		name, ok := strings.CutPrefix(s.Name, sdk)
		if !ok {
			continue
		}
		if strings.HasPrefix(name, "(*Beta") && strings.Contains(name, "Service).") {
			beta = append(beta, name)
		}
		if name == "(*MessageService).New" {
			messages = true
		}
	}
	if !messages { // the check reads the right names: the one service we call is there
		t.Fatalf("no %s(*MessageService).New in the binary", sdk)
	}
	if len(beta) > 0 {
		t.Errorf("chakshu links %d methods of the SDK's Beta services, e.g. %s: does a struct hold an anthropic.Client?", len(beta), beta[0])
	}
}

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// chakshuBinary builds this command once for the package's tests.
func chakshuBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "chakshu-bin-"); buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(buildDir, "chakshu"), ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, "chakshu")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}
