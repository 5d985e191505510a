package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The shipped eval corpus (testdata/eval-corpus) is made of the seeded pull
// requests: a change to a seeded PR must change the corpus (and its expected
// comments) with it.
func TestEvalCorpusMatchesTheSeededPRs(t *testing.T) {
	for _, p := range []struct{ repo, pr string }{
		{"payments-api", "payments-api-1"}, {"web-dashboard", "web-dashboard-1"}, {"data-pipeline", "data-pipeline-1"},
	} {
		base, err := readTree("seed/repos/" + p.repo)
		if err != nil {
			t.Fatal(err)
		}
		head := map[string]string{}
		for k, v := range base {
			head[k] = v
		}
		changes, err := readTree("seed/prs/" + p.pr)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range changes {
			head[k] = v
		}
		dir := filepath.Join("..", "..", "testdata", "eval-corpus", "cases", Org, p.repo, "1")
		for side, want := range map[string]map[string]string{"base": base, "head": head} {
			got := map[string]string{}
			root := filepath.Join(dir, side)
			err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := os.ReadFile(path)
				rel, _ := filepath.Rel(root, path)
				got[filepath.ToSlash(rel)] = string(b)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s %s differs from the seed (-seed +corpus):\n%s", p.pr, side, strings.TrimSpace(d))
			}
		}
	}
}
