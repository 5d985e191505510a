package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// The simulated checkout refuses what git refuses, before writing anything,
// and never writes outside its directory.
func TestWriteCheckoutRefusesPathsGitRefuses(t *testing.T) {
	for _, p := range []string{"../escape.go", "a/../../escape.go", "a/./b.go", "a//b.go", "/etc/x", "a/nul\x00.go",
		".git/config", "a/.GIT/hooks/post-checkout", "a\\..\\b.go", ""} {
		root := t.TempDir()
		dir := filepath.Join(root, "checkout")
		err := writeCheckout(dir, map[string]string{"ok.go": "package ok\n", p: "x"})
		if err == nil {
			t.Errorf("%q: checked out", p)
		}
		ents, _ := os.ReadDir(root)
		if len(ents) != 0 {
			t.Errorf("%q: wrote %d entries before refusing", p, len(ents))
		}
	}
	dir := filepath.Join(t.TempDir(), "checkout")
	odd := []string{"odd/..hidden.go", "odd/-rf .go", "odd/ünï cödé.go", "odd/ctl\x1b[31m.go", "odd/invalid\xff.go", "a/.github/x.yml"}
	files := map[string]string{}
	for _, p := range odd {
		files[p] = "package odd\n"
	}
	if err := writeCheckout(dir, files); err != nil {
		t.Fatal(err)
	}
	for _, p := range odd {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
}
