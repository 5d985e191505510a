package runnerapi

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/diffmap"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// withoutGitLines drops the lines of GitHub's .diff a diff built from the
// files list does not have (index and file modes), and vendor/'s section.
func withoutGitLines(diff string) string {
	var b strings.Builder
	keep := true
	for _, l := range strings.SplitAfter(diff, "\n") {
		if strings.HasPrefix(l, "diff --git ") {
			keep = !strings.Contains(l, " b/vendor/")
		}
		if !keep || strings.HasPrefix(l, "index ") || strings.HasPrefix(l, "new file mode ") || strings.HasPrefix(l, "deleted file mode ") {
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

// A review's job reads each GitHub fact once: the PR (has it moved?), the
// repository's chakshu.yml, the files list and the comparison with the base.
// The files list holds the whole diff here, so the diff is not fetched
// again, and it is GitHub's diff but for git's index and mode lines.
func TestJobReadsEachFactOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		rn := w.dispatch(run.KindReview)
		job := w.fetchCounted(t, rn)
		want := map[string]int{
			"GET /repos/{owner}/{repo}/pulls/{pull_number}":       1,
			"GET /repos/{owner}/{repo}/pulls/{pull_number}/files": 1,
			"GET /repos/{owner}/{repo}/contents/{path}":           1,
			"GET /repos/{owner}/{repo}/compare/{basehead}":        1,
		}
		got := map[string]int{}
		for k, v := range w.sim.Calls() {
			if strings.HasPrefix(k, "GET ") && !strings.Contains(k, "/actions/") && !strings.Contains(k, "/.well-known/") {
				got[k] = v
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("GitHub reads of one job (-want +got):\n%s", d)
		}
		raw, _, err := w.inst.REST.PullRequests.GetRaw(context.Background(), "acme", "widget", w.pr, github.RawOptions{Type: github.Diff})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(withoutGitLines(raw), job.Diff); d != "" {
			t.Errorf("the diff built from the files list is not GitHub's (-GitHub +job):\n%s", d)
		}
	})
}

// A file GitHub gives no patch for (binary) leaves the files list short of
// the diff: the job asks GitHub for the diff, which says so.
func TestJobFetchesTheDiffWhenTheFilesListLacksPatches(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		w.sim.Commit(repoName, "login", map[string]string{"assets/logo.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"}, "a logo")
		rn := w.dispatch(run.KindReview)
		job := w.fetchCounted(t, rn)
		if n := w.sim.CallCount("GET /repos/{owner}/{repo}/pulls/{pull_number}"); n != 2 {
			t.Errorf("pull request read %d times, want 2 (the PR, then its diff)", n)
		}
		if !strings.Contains(job.Diff, "Binary files /dev/null and b/assets/logo.png differ") {
			t.Errorf("the diff is not GitHub's:\n%s", job.Diff)
		}
	})
}

// Facts flow forward once: a run whose chakshu.yml was read when it was
// queued does not read it again, and the job records on the run the files
// it listed (publishing reads them) and the config it used.
func TestJobRecordsItsFactsOnTheRun(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		rn := w.dispatch(run.KindReview)
		queued := "instructions: Read at queue time.\n"
		rn = db.Run.UpdateOne(rn).SetRepoConfig(queued).SaveX(context.Background())
		job := w.fetchCounted(t, rn)
		if n := w.sim.CallCount("GET /repos/{owner}/{repo}/contents/{path}"); n != 0 {
			t.Errorf("chakshu.yml read %d times at job time, want 0 (read when queued)", n)
		}
		if strings.TrimSpace(job.Instructions) != "Read at queue time." {
			t.Errorf("instructions %q, want the queued file's", job.Instructions)
		}
		got := db.Run.GetX(context.Background(), rn.ID)
		if got.RepoConfig == nil || *got.RepoConfig != queued {
			t.Errorf("repo_config %v, want the file as queued", got.RepoConfig)
		}
		if got.PrFiles == nil || len(*got.PrFiles) == 0 {
			t.Fatal("the job stored no files")
		}
		files, err := diffmap.DecodeFiles(*got.PrFiles)
		if err != nil {
			t.Fatal(err)
		}
		listed, _, err := w.inst.REST.PullRequests.ListFiles(context.Background(), "acme", "widget", w.pr, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(diffmap.FilesOf(listed), files); d != "" {
			t.Errorf("stored files are not GitHub's (-GitHub +stored):\n%s", d)
		}

		// A run queued without reading it reads it once, and keeps it.
		db.Run.UpdateOneID(rn.ID).SetStatus(run.StatusSucceeded).ExecX(context.Background())
		rn2 := w.dispatch(run.KindReview)
		w.fetchCounted(t, rn2)
		if n := w.sim.CallCount("GET /repos/{owner}/{repo}/contents/{path}"); n != 1 {
			t.Errorf("chakshu.yml read %d times, want 1", n)
		}
		if got := db.Run.GetX(context.Background(), rn2.ID); got.RepoConfig == nil || !strings.Contains(*got.RepoConfig, "Every handler checks the session.") {
			t.Errorf("repo_config %v, want the file as read", got.RepoConfig)
		}
	})
}

// Files the event listed for picking (an auto review's path globs) are
// carried on the run: its job does not list them again, and its diff is the
// one a listing gives.
func TestJobUsesTheFilesTheEventListed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		listed, _, err := w.inst.REST.PullRequests.ListFiles(ctx, "acme", "widget", w.pr, nil)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := diffmap.EncodeFiles(diffmap.FilesOf(listed))
		if err != nil {
			t.Fatal(err)
		}
		rn := w.dispatch(run.KindReview)
		rn = db.Run.UpdateOne(rn).SetPrFiles(enc).SaveX(ctx)
		job := w.fetchCounted(t, rn)
		if n := w.sim.CallCount("GET /repos/{owner}/{repo}/pulls/{pull_number}/files"); n != 0 {
			t.Errorf("the job listed the files %d times, want 0 (the event's list)", n)
		}
		raw, _, err := w.inst.REST.PullRequests.GetRaw(ctx, "acme", "widget", w.pr, github.RawOptions{Type: github.Diff})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(withoutGitLines(raw), job.Diff); d != "" {
			t.Errorf("the diff from the carried list is not GitHub's (-GitHub +job):\n%s", d)
		}
	})
}

// fetchCounted fetches rn's job, GitHub's call counts reset first, and
// fails the test unless the job is handed out.
func (w *world) fetchCounted(t *testing.T, rn *ent.Run) *runnerproto.Job {
	t.Helper()
	w.sim.ResetCalls()
	st, job, e := w.fetchJob(rn, w.token(rn))
	if st != 200 {
		t.Fatalf("job: %d %+v", st, e)
	}
	return job
}
