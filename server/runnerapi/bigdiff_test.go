package runnerapi

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/run"
	ijob "github.com/chakshu-dev/chakshu/internal/job"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// GitHub refuses the whole diff of a PR past 300 files or 20,000 lines (406
// too_large): the job's diff is then built from the files list the job
// builder already fetched, names every file, and says it is partial.
func TestJobDiffTooLarge(t *testing.T) {
	many := func(n, lines int) map[string]string {
		fs := map[string]string{}
		for i := range n {
			fs[fmt.Sprintf("gen/f%04d.go", i)] = strings.Repeat(fmt.Sprintf("// line of file %d\n", i), lines)
		}
		return fs
	}
	cases := []struct {
		name    string
		files   map[string]string
		noPatch []string // listed by GitHub without a patch
	}{
		{"301 files", many(301, 1), nil},
		{"over 20,000 lines", many(5, 4100), nil},
		// 20 patches of 495 KB: more than a job's diff holds. Patches past
		// that are not kept, and every file is still named.
		{"patches past the job's cap", func() map[string]string {
			fs := map[string]string{}
			for i := range 20 {
				fs[fmt.Sprintf("wide/f%02d.txt", i)] = strings.Repeat(strings.Repeat("w", 450)+"\n", 1100)
			}
			return fs
		}(), nil},
		{"files without a patch", func() map[string]string {
			fs := many(2, 1)
			fs["big.txt"] = strings.Repeat("line\n", 20_001) // its own diff is too large
			fs["assets/logo.png"] = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
			return fs
		}(), []string{"assets/logo.png", "big.txt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				ctx := context.Background()
				w := newWorld(t, db)
				w.sim.Commit(repoName, "login", c.files, "a big change")
				rn := w.dispatch(run.KindReview)
				w.sim.ResetCalls()
				st, job, e := w.fetchJob(rn, w.token(rn))
				if st != 200 {
					t.Fatalf("job: %d %+v", st, e)
				}
				want := len(c.files) + 1 // and auth/login.go; vendor/lib/lib.go is left out by path_filters
				if len(job.Files) != want {
					t.Fatalf("job lists %d files, want %d", len(job.Files), want)
				}
				for _, f := range job.Files {
					if !strings.Contains(job.Diff, "diff --git a/"+f+" b/"+f+"\n") {
						t.Errorf("the diff does not name %s", f)
					}
				}
				if !strings.Contains(job.Diff, "+\treturn tok == want") {
					t.Errorf("the diff lacks the hunks of auth/login.go")
				}
				if len(job.Diff) > ijob.MaxDiff {
					t.Errorf("diff of %d bytes, over the job's cap", len(job.Diff))
				}
				if strings.Contains(job.Diff, "vendor/lib") {
					t.Errorf("path_filters not applied to the diff")
				}
				for _, f := range c.noPatch {
					i := strings.Index(job.Diff, "diff --git a/"+f+" b/"+f+"\n")
					if i < 0 {
						continue // reported above
					}
					rest := job.Diff[i+1:]
					if end := strings.Index(rest, "diff --git "); end >= 0 {
						rest = rest[:end]
					}
					if strings.Contains(rest, "@@") {
						t.Errorf("%s: hunks where GitHub gave no patch:\n%.300s", f, rest)
					}
				}
				got := db.Run.GetX(ctx, rn.ID)
				if !strings.Contains(got.FullReviewReason, "too large for GitHub's diff") ||
					!strings.Contains(job.Prompt, "Full review: the pull request is too large for GitHub's diff") {
					t.Errorf("the job does not say the diff is partial: reason %q", got.FullReviewReason)
				}
				if hunkless := strings.Contains(got.FullReviewReason, "listed without hunks"); hunkless != (len(c.noPatch) > 0) {
					t.Errorf("reason %q: says files lack hunks = %v, want %v", got.FullReviewReason, hunkless, len(c.noPatch) > 0)
				}
				// One listing of the files serves both the file list and the diff.
				pages := (want + 1 + 99) / 100 // with vendor/lib/lib.go
				if n := w.sim.CallCount("GET /repos/{owner}/{repo}/pulls/{pull_number}/files"); n != pages {
					t.Errorf("files listed in %d calls, want %d", n, pages)
				}
			})
		})
	}
}
