package action

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// actionlintVersion is the linter the template is checked with. It is built
// with `go install …@version` (in its own module, not this one: v1.7.12 needs
// go.yaml.in/yaml/v4 v4.0.0-rc.3, whose API v4.0.0 in this module's graph
// changed).
const actionlintVersion = "v1.7.12"

// actionlint builds the linter into a temporary GOBIN (the Go build cache
// makes later builds quick).
func actionlint(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.Command("go", "install", "github.com/rhysd/actionlint/cmd/actionlint@"+actionlintVersion)
	cmd.Dir = bin // outside this module
	cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=-buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install actionlint@%s: %v: %s", actionlintVersion, err, out)
	}
	return filepath.Join(bin, "actionlint")
}

// shellcheck finds shellcheck, installing Debian's package when it is
// missing and this user may (as storetest installs PostgreSQL). The lint is
// never skipped: without shellcheck the run: scripts would go unchecked.
func shellcheck(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("shellcheck"); err == nil {
		return p
	}
	if os.Geteuid() != 0 {
		t.Fatal("shellcheck is not installed and this user cannot install it: run `sudo apt-get install -y shellcheck`")
	}
	out, err := exec.Command("sh", "-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck").CombinedOutput()
	if err != nil {
		t.Fatalf("installing shellcheck: %v: %s", err, out)
	}
	p, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Fatalf("shellcheck installed but not found: %v", err)
	}
	return p
}

type lintError struct {
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Kind    string `json:"kind"`
}

func lint(t *testing.T, linter, shellcheckPath, src string) []lintError {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, ".github", "workflows", "chakshu.yml")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(linter, "-shellcheck", shellcheckPath, "-pyflakes", "", "-format", "{{json .}}", path)
	cmd.Dir = dir
	out, err := cmd.Output()
	var errs []lintError
	if jerr := json.Unmarshal(out, &errs); jerr != nil {
		t.Fatalf("actionlint: %v: %s", err, out)
	}
	if err != nil && len(errs) == 0 {
		t.Fatalf("actionlint failed without findings: %v", err)
	}
	return errs
}

// The workflow template passes actionlint with shellcheck checking its run:
// scripts.
func TestWorkflowTemplateLints(t *testing.T) {
	linter, sc := actionlint(t), shellcheck(t)
	for _, e := range lint(t, linter, sc, WorkflowTemplate) {
		t.Errorf("actionlint: %d:%d: %s [%s]", e.Line, e.Column, e.Message, e.Kind)
	}
	// The same linter flags a script shellcheck objects to (SC2086, an
	// unquoted variable), so a clean result above means shellcheck ran.
	bad := strings.Replace(WorkflowTemplate, `chmod +x chakshu-action`, `chmod +x $RUNNER_TEMP/chakshu-action`, 1)
	if bad == WorkflowTemplate {
		t.Fatal("the template's download step changed: update this test")
	}
	var got []string
	for _, e := range lint(t, linter, sc, bad) {
		got = append(got, e.Kind+": "+e.Message)
	}
	if !strings.Contains(strings.Join(got, "\n"), "SC2086") {
		t.Fatalf("shellcheck did not flag an unquoted variable; got %q", got)
	}
}
