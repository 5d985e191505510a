package job

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/diffmap"
	"github.com/chakshu-dev/chakshu/internal/gh"
)

// listFiles lists every file the PR touches (gh.ListPRFiles: GitHub lists
// at most 3,000), with its patch when GitHub gives one. Patches past MaxDiff
// in all are not kept (a job's diff is cut there anyway): such a file's
// patch is "" rather than absent, which stays GitHub's "no patch".
func listFiles(ctx context.Context, f *runFacts) ([]*github.CommitFile, error) {
	out, err := gh.ListPRFiles(ctx, f.gh, f.owner, f.name, f.rn.PrNumber)
	if err != nil {
		return nil, err
	}
	kept := 0
	for _, f := range out {
		if kept += len(f.GetPatch()); kept > MaxDiff && f.Patch != nil {
			f.Patch = github.Ptr("")
		}
	}
	return out, nil
}

// storedFiles are the files a run stored (diffmap.EncodeFiles) as a files
// list: a patch the list lacked (or the job cut) is none, which the diff
// and its notes take as GitHub's "no patch".
func storedFiles(b []byte) ([]*github.CommitFile, error) {
	fs, err := diffmap.DecodeFiles(b)
	if err != nil {
		return nil, err
	}
	out := make([]*github.CommitFile, len(fs))
	for i, f := range fs {
		cf := &github.CommitFile{Filename: github.Ptr(f.Path), Status: github.Ptr(f.Status),
			Additions: github.Ptr(f.Additions), Deletions: github.Ptr(f.Deletes), Changes: github.Ptr(f.Additions + f.Deletes)}
		if f.PreviousPath != "" {
			cf.PreviousFilename = github.Ptr(f.PreviousPath)
		}
		if f.Patch != "" {
			cf.Patch = github.Ptr(f.Patch)
		}
		out[i] = cf
	}
	return out, nil
}

// reviewDiff is the diff a review works on.
type reviewDiff struct {
	since  string // the last reviewed commit, for a follow-up review
	reason string // why a full review was done, and what its diff lacks
	note   string // what a follow-up review's diff lacks
	text   string
}

// diffFor returns the diff to review: since the reviewer's last succeeded
// review of this PR when that commit is an ancestor of the head (DESIGN §4),
// else the whole PR with the reason a full review was done. files is the PR's
// files list: the whole diff is built from it when GitHub refuses to give it.
func (b *Builder) diffFor(ctx context.Context, f *runFacts, pr *github.PullRequest, files []*github.CommitFile) (reviewDiff, error) {
	var reason string
	head := f.rn.HeadSha
	prev, err := b.cfg.DB.Run.Query().Where(
		run.HasRepositoryWith(repository.ID(f.repo.ID)), run.HasReviewerWith(reviewer.ID(f.rv.ID)),
		run.PrNumber(f.rn.PrNumber), run.KindEQ(run.KindReview), run.StatusEQ(run.StatusSucceeded),
		run.HeadShaNEQ(head), run.IDNEQ(f.rn.ID), run.Shadow(false),
	).Order(ent.Desc(run.FieldFinishedAt), ent.Desc(run.FieldID)).First(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return reviewDiff{}, fmt.Errorf("last review: %w", err)
	}
	if prev != nil {
		cmp, resp, err := f.gh.Repositories.CompareCommits(ctx, f.owner, f.name, prev.HeadSha, head, &github.ListOptions{PerPage: 100})
		switch {
		case resp != nil && resp.StatusCode == http.StatusNotFound:
			reason = fmt.Sprintf("the last reviewed commit %s is gone (force push)", gh.ShortSHA(prev.HeadSha))
		case err != nil:
			return reviewDiff{}, fmt.Errorf("compare with last review: %w", err)
		case cmp.GetStatus() == "ahead" && len(cmp.Files) < 300:
			return reviewDiff{since: prev.HeadSha, text: diffOfFiles(cmp.Files), note: patchNote(cmp.Files)}, nil
		case cmp.GetStatus() == "ahead":
			reason = "the changes since the last review touch too many files"
		default:
			reason = fmt.Sprintf("force push: the last reviewed commit %s is no longer an ancestor of the head", gh.ShortSHA(prev.HeadSha))
		}
	}
	// A complete files list already holds the whole diff's hunks: the
	// diff is built from it rather than fetched again.
	if completeFiles(pr, files) {
		return reviewDiff{reason: reason, text: diffOfFiles(files)}, nil
	}
	d, _, err := f.gh.PullRequests.GetRaw(ctx, f.owner, f.name, f.rn.PrNumber, github.RawOptions{Type: github.Diff})
	if diffTooLarge(err) {
		return reviewDiff{reason: joinReasons(reason, partialReason(pr, files)), text: diffOfFiles(files)}, nil
	}
	if err != nil {
		return reviewDiff{}, fmt.Errorf("pull request diff: %w", err)
	}
	return reviewDiff{reason: reason, text: d}, nil
}

// GitHub's limits on a whole-PR diff (past them it answers 406 too_large).
const (
	maxDiffFiles = 300
	maxDiffLines = 20_000
)

// completeFiles says whether files, the PR's files list, holds its whole
// diff: every file GitHub counts is listed with its patch (a pure rename has
// none to give), none was cut past MaxDiff, and the diff is within GitHub's
// own limits (past them the review says its diff was built from the list,
// after GitHub's refusal). Each file's patch is its section's hunks in the
// PR's diff; the diff built from them lacks only git's index and mode lines.
func completeFiles(pr *github.PullRequest, files []*github.CommitFile) bool {
	if len(files) != pr.GetChangedFiles() || len(files) > maxDiffFiles {
		return false
	}
	lines := 0
	for _, cf := range files {
		if cf.Patch == nil {
			if cf.GetStatus() == "renamed" && cf.GetChanges() == 0 {
				continue
			}
			return false
		}
		if *cf.Patch == "" { // cut past MaxDiff (listFiles)
			return false
		}
		lines += strings.Count(*cf.Patch, "\n") + 1
	}
	return lines <= maxDiffLines
}

// compareShadow compares a shadow run's base and head (three dots, as a
// PR's own diff): the files and patches of the commit reviewed back then,
// which need not be the PR's now.
func compareShadow(ctx context.Context, f *runFacts, base string) (*github.CommitsComparison, error) {
	cmp, _, err := f.gh.Repositories.CompareCommits(ctx, f.owner, f.name, base, f.rn.HeadSha, &github.ListOptions{PerPage: 100})
	if err != nil {
		return nil, fmt.Errorf("compare the shadow run's base and head: %w", err)
	}
	return cmp, nil
}

// shadowDiff is a shadow run's whole diff, built from its comparison. The
// prompt says nothing of a backtest: the reviewer sees the commit as a
// review of it would.
func shadowDiff(cmp *github.CommitsComparison) reviewDiff {
	rd := reviewDiff{text: diffOfFiles(cmp.Files), note: patchNote(cmp.Files)}
	if len(cmp.Files) >= 300 {
		rd.reason = "GitHub's comparison of the commit with its base lists at most 300 files, so the diff may lack some"
	}
	return rd
}

// patchNote tells the agent how many files come without hunks, or "".
func patchNote(files []*github.CommitFile) string {
	if n := withoutPatch(files); n > 0 {
		return fmt.Sprintf("%d of the changed files come without hunks: GitHub gives no patch for them (binary, or their diff is too large). Read them in the checkout", n)
	}
	return ""
}

// withoutPatch counts the files GitHub gives no patch for (binary, or their
// own diff too large); a pure rename has nothing to patch and is not counted.
func withoutPatch(files []*github.CommitFile) int {
	n := 0
	for _, f := range files {
		if f.Patch == nil && !(f.GetStatus() == "renamed" && f.GetChanges() == 0) {
			n++
		}
	}
	return n
}

// diffTooLarge tells GitHub's refusal of a whole-PR diff past 300 files or
// 20,000 lines (406, code too_large) from any other error.
func diffTooLarge(err error) bool {
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusNotAcceptable {
		return false
	}
	for _, e := range er.Errors {
		if e.Code == "too_large" {
			return true
		}
	}
	return false
}

// partialReason tells the agent (and the run page) that the diff was built
// from the files list, and what it lacks.
func partialReason(pr *github.PullRequest, files []*github.CommitFile) string {
	r := fmt.Sprintf("the pull request is too large for GitHub's diff (%d files, %d changed lines), so the diff is built from its files list",
		max(pr.GetChangedFiles(), len(files)), pr.GetAdditions()+pr.GetDeletions())
	if n := pr.GetChangedFiles(); n > len(files) {
		r += fmt.Sprintf("; GitHub lists only %d of its %d files", len(files), n)
	}
	if noPatch := withoutPatch(files); noPatch > 0 {
		r += fmt.Sprintf("; %d files whose patch GitHub does not give are listed without hunks: read them in the checkout", noPatch)
	}
	return r
}

func joinReasons(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// diffOfFiles builds a unified diff from a comparison's or a PR's per-file
// patches; a file without a patch (binary, or its diff too large for GitHub)
// still has its header, so the diff names every file.
func diffOfFiles(files []*github.CommitFile) string {
	var b strings.Builder
	for _, f := range files {
		name, old := f.GetFilename(), f.GetFilename()
		if f.GetPreviousFilename() != "" {
			old = f.GetPreviousFilename()
		}
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n", old, name)
		switch f.GetStatus() {
		case "added":
			fmt.Fprintf(&b, "--- /dev/null\n+++ b/%s\n", name)
		case "removed":
			fmt.Fprintf(&b, "--- a/%s\n+++ /dev/null\n", old)
		default:
			fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", old, name)
		}
		if p := f.GetPatch(); p != "" {
			b.WriteString(strings.TrimRight(p, "\n"))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// filterDiff drops the sections of files left out by path_filters.
func filterDiff(diff string, dropped []string) string {
	if len(dropped) == 0 {
		return diff
	}
	drop := map[string]bool{}
	for _, d := range dropped {
		drop[d] = true
	}
	var b strings.Builder
	keep := true
	for _, line := range strings.SplitAfter(diff, "\n") {
		if rest, ok := strings.CutPrefix(line, "diff --git "); ok {
			keep = true
			// The new path follows the last " b/" (a header without its a/
			// side still names its b/ path).
			if i := strings.LastIndex(" "+rest, " b/"); i >= 0 {
				keep = !drop[strings.TrimRight(rest[i+2:], "\n")]
			}
		}
		if keep {
			b.WriteString(line)
		}
	}
	return b.String()
}
