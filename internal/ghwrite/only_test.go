package ghwrite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"
)

// Every write to GitHub in Chakshu's own code goes through this package
// (STYLE.md "One port per outside effect"); the runner (action/) writes
// nothing at all. An allow-list: outside internal/ghwrite, a call on any
// go-github service must read (its name says GET: Get…, List…, Search's
// queries, …), a raw request must be a GET, and no GraphQL mutation is sent.
// Tests, the simulator and the end-to-end harness are not Chakshu writing
// to GitHub. A POST that changes nothing on GitHub's side would be named in
// allowed.
func TestWritesOnlyThroughThePort(t *testing.T) {
	root := filepath.Join("..", "..")
	skip := []string{"internal/ghwrite", "internal/ghsim", "internal/e2e", "ent", "frontend", "node_modules"}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			for _, s := range skip {
				if rel == s || strings.HasPrefix(rel, s+"/") {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		receivers := map[ast.Node]bool{} // service selectors a call reads through
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && strings.Contains(lit.Value, "/replies") && !strings.HasPrefix(rel, "internal/gh/") {
				t.Errorf("%s: the replies endpoint is posted outside internal/ghwrite", fset.Position(lit.Pos()))
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			name := sel.Sel.Name
			svc, isSvc := serviceOf(sel)
			switch {
			case name == "Mutate" && len(call.Args) == 4: // githubv4's (ctx, m, input, vars); ent's Mutate takes two
				t.Errorf("%s: a GraphQL mutation outside internal/ghwrite", fset.Position(call.Pos()))
			case name == "NewRequest" && len(call.Args) == 4 && !isGET(call.Args[1]): // go-github's (ctx, method, url, body)
				t.Errorf("%s: a raw GitHub request that is not a GET outside internal/ghwrite", fset.Position(call.Pos()))
			case isSvc:
				receivers[sel.X] = true
				if !reads(name) && !allowed[rel+" "+name] {
					t.Errorf("%s: %s.%s is not a read (Get…, List…) and writes to GitHub outside internal/ghwrite", fset.Position(call.Pos()), svc, name)
				}
			}
			return true
		})
		// A go-github service handed on as a value (an argument, a field)
		// escapes this check: whatever receives it could write.
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && services[sel.Sel.Name] != nil && !receivers[sel] && isClient(sel.X) {
				t.Errorf("%s: go-github's %s service is handed on outside internal/ghwrite (wrap what it needs there)", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// allowed are non-GET calls outside this package that change nothing on
// GitHub ("file name" → true); none today (installation tokens are minted by
// ghinstallation's transport, the manifest is converted over plain HTTP).
var allowed = map[string]bool{}

// goGitHubServices are the service fields of go-github's Client (Checks,
// PullRequests, Apps, Actions, …: every one of them), with their types.
func goGitHubServices() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	ct := reflect.TypeOf(github.Client{})
	for i := range ct.NumField() {
		f := ct.Field(i)
		if f.Type.Kind() == reflect.Pointer && strings.HasSuffix(f.Type.Elem().Name(), "Service") {
			out[f.Name] = f.Type
		}
	}
	return out
}

var services = goGitHubServices()

// isClient reports an expression that is a go-github client the way
// Chakshu reaches one: apps.App(), an installation's REST, a client named gc.
func isClient(x ast.Expr) bool {
	switch e := x.(type) {
	case *ast.CallExpr:
		sel, ok := e.Fun.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "App" && len(e.Args) == 0
	case *ast.SelectorExpr:
		return e.Sel.Name == "REST"
	case *ast.Ident:
		return e.Name == "gc"
	}
	return false
}

// serviceOf tells a go-github service call (c.Checks.UpdateCheckRun) from a
// call of the same name on the port or a consumer's interface
// (p.cfg.Write.CreateReview), or on a field that shares a service's name
// but not its methods (r.cfg.Credentials.Lookup).
func serviceOf(sel *ast.SelectorExpr) (string, bool) {
	x, ok := sel.X.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	st, ok := services[x.Sel.Name]
	if !ok {
		return "", false
	}
	_, has := st.MethodByName(sel.Sel.Name)
	return x.Sel.Name, has
}

// reads reports a go-github method that sends a GET, by go-github's naming:
// Get…, List…, and the read-only verbs below.
func reads(name string) bool {
	for _, p := range []string{"Get", "List", "Download", "Compare", "Is", "Check"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	switch name {
	case "Issues", "Code", "Repositories", "Commits", "Users", "Topics", "Labels": // Search's queries
		return true
	}
	return false
}

func isGET(arg ast.Expr) bool {
	switch a := arg.(type) {
	case *ast.BasicLit:
		return a.Value == `"GET"`
	case *ast.SelectorExpr:
		return a.Sel.Name == "MethodGet"
	}
	return false
}
