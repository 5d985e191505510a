package logging

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// logMethods are slog's calls whose arguments after the message (or all of
// them, for With) are key-value pairs.
var logMethods = map[string]int{
	"Debug": 1, "Info": 1, "Warn": 1, "Error": 1,
	"DebugContext": 2, "InfoContext": 2, "WarnContext": 2, "ErrorContext": 2, "With": 0,
}

var snake = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// walkGo calls fn for each hand-written, non-test Go file of the module.
func walkGo(t *testing.T, fn func(rel string, f *ast.File, fset *token.FileSet)) {
	t.Helper()
	root := filepath.Join("..", "..")
	generated := []string{"graph/exec", "graph/model", "frontend", "node_modules"}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			for _, g := range generated {
				if rel == g || strings.HasPrefix(rel, g+"/") {
					return filepath.SkipDir
				}
			}
			// ent is generated except its schema.
			if strings.HasPrefix(rel, "ent/") && rel != "ent/schema" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(rel) == "ent" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		fn(rel, f, fset)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// keysOf returns the literal keys of a log call's key-value arguments.
func keysOf(call *ast.CallExpr) []*ast.BasicLit {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	first, ok := logMethods[sel.Sel.Name]
	if !ok || len(call.Args) <= first || !isLogger(sel.X) {
		return nil
	}
	var out []*ast.BasicLit
	for i := first; i < len(call.Args); i += 2 {
		lit, ok := call.Args[i].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return out // an slog.Attr or a computed key: pairs no longer line up
		}
		out = append(out, lit)
	}
	return out
}

// isLogger says whether x looks like a *slog.Logger: a name or field with
// "log" in it (log, h.log, l.cfg.Log, slog), or a chained With or From call.
func isLogger(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.Ident:
		return strings.Contains(strings.ToLower(x.Name), "log")
	case *ast.SelectorExpr:
		return strings.Contains(strings.ToLower(x.Sel.Name), "log")
	case *ast.CallExpr:
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
			return sel.Sel.Name == "With" || sel.Sel.Name == "From" || sel.Sel.Name == "Logger"
		}
	}
	return false
}

// One key per fact: no log call in the module uses a synonym of a fixed key
// ("installation" for installation_id), and every literal key is snake_case.
func TestOneKeyPerFact(t *testing.T) {
	calls := 0
	walkGo(t, func(rel string, f *ast.File, fset *token.FileSet) {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			for _, lit := range keysOf(call) {
				calls++
				k, err := strconv.Unquote(lit.Value)
				if err != nil {
					continue
				}
				if want, drift := Synonyms[k]; drift {
					t.Errorf("%s: log key %q says the same as %q; use the fixed key", fset.Position(lit.Pos()), k, want)
				} else if !snake.MatchString(k) {
					t.Errorf("%s: log key %q is not snake_case", fset.Position(lit.Pos()), k)
				}
			}
			return true
		})
	})
	if calls < 100 {
		t.Fatalf("only %d log keys found: the walk missed the module", calls)
	}
}

// The check sees drift in a log call and skips what is not a key.
func TestKeysOfFindsDrift(t *testing.T) {
	src := `package p
func f() {
	log.Info("msg", "installation", 1, "repo", r)
	log.With("run", 2).Warn("x", slog.Int("n", 1), "installation", 3)
	fmt.Println("installation", 4)
	c.Error("bad form", 400)
	logging.From(ctx).Debug("y", "delivery", 5)
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			for _, lit := range keysOf(call) {
				got = append(got, lit.Value)
			}
		}
		return true
	})
	if strings.Join(got, " ") != `"installation" "repo" "run" "delivery"` {
		t.Errorf("keys = %v", got)
	}
}

// Every hand-written package says what it holds in a package doc comment.
func TestEveryPackageHasADocComment(t *testing.T) {
	documented := map[string]bool{}
	seen := map[string]bool{}
	walkGo(t, func(rel string, f *ast.File, _ *token.FileSet) {
		dir := filepath.ToSlash(filepath.Dir(rel))
		seen[dir] = true
		if f.Doc != nil && strings.TrimSpace(f.Doc.Text()) != "" {
			documented[dir] = true
		}
	})
	if len(seen) < 30 {
		t.Fatalf("only %d packages found: the walk missed the module", len(seen))
	}
	for dir := range seen {
		if !documented[dir] {
			t.Errorf("package %s has no package doc comment", dir)
		}
	}
}
