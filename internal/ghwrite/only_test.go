package ghwrite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// writeCalls are go-github and githubv4 calls that write to GitHub.
var writeCalls = map[string]bool{
	"CreateCheckRun": true, "UpdateCheckRun": true, "CreateReview": true, "CreateComment": true,
	"CreateCommentInReplyTo": true, "Mutate": true, "CreateWorkflowDispatchEventByFileName": true,
	"CreateWorkflowDispatchEventByID": true, "CancelWorkflowRunByID": true, "RemoveReviewers": true,
	"EditComment": true, "SubmitReview": true,
}

// Every write to GitHub in Chakshu's own code goes through this package
// (STYLE.md "One port per outside effect"); the runner (action/) writes
// nothing at all. Tests, the simulator and the end-to-end harness are not
// Chakshu writing to GitHub.
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
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && writeCalls[sel.Sel.Name] && isClientCall(sel, len(call.Args)) {
				t.Errorf("%s: %s writes to GitHub outside internal/ghwrite", fset.Position(call.Pos()), sel.Sel.Name)
			}
			if lit, ok := n.(*ast.BasicLit); ok && strings.Contains(lit.Value, "/replies") {
				t.Errorf("%s: the replies endpoint is posted outside internal/ghwrite", fset.Position(lit.Pos()))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// isClientCall tells a go-github service call (c.Checks.UpdateCheckRun,
// gq.Mutate) from a call of the same name on the port or a consumer's
// interface (p.cfg.Write.CreateReview) or on ent (next.Mutate).
func isClientCall(sel *ast.SelectorExpr, args int) bool {
	if sel.Sel.Name == "Mutate" {
		return args == 4 // githubv4's (ctx, m, input, vars); ent's Mutate takes two
	}
	switch x := sel.X.(type) {
	case *ast.SelectorExpr:
		switch x.Sel.Name {
		case "Checks", "PullRequests", "Issues", "Actions":
			return true
		}
	}
	return false
}
