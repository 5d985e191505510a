package reviewerconfig

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/models"
)

// columns is the one place a parsed reviewer becomes stored values: the
// sync writes them on the Reviewer row, a backtest in a shadow run's snapshot.
func (pr *parsedReviewer) columns() Snapshot {
	return Snapshot{ClaudeMD: pr.claudeMD, ConfigYAML: pr.configYAML, Config: new(pr.config), Skills: pr.skills}
}

// Version is one reviewer as the reviewers repository holds it at a commit.
type Version struct {
	Name string
	// Commit is the commit it was read at.
	Commit string
	// Missing: the commit has no reviewers/<name>/ folder.
	Missing bool
	// Problem says why the files do not make a reviewer (file:line), as a
	// sync would record it; Config and Columns are then empty.
	Problem error
	// Config is the parsed reviewer.yaml.
	Config Config
	// Columns are its stored values, a shadow run's snapshot as they are.
	Columns Snapshot
}

// LoadAt reads the reviewers named (all of them when names is empty) from
// the reviewers repository full ("owner/name") at commit, with the sync's
// own reader and parser: the same limits, the same checks (the model
// included, against src at now). A reviewer not in the commit comes back
// Missing. The error is for GitHub failures only.
func LoadAt(ctx context.Context, rest *github.Client, full, commit string, names []string, src *models.Source, now time.Time) (map[string]*Version, error) {
	owner, name, ok := strings.Cut(full, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("reviewers repository %q: want owner/name", full)
	}
	tree, _, err := rest.Git.GetTree(ctx, owner, name, commit, true)
	if err != nil {
		return nil, fmt.Errorf("reviewers repository %s: tree at %s: %w", full, gh.ShortSHA(commit), err)
	}
	if tree.GetTruncated() {
		return nil, fmt.Errorf("reviewers repository %s: too many files to list at %s", full, gh.ShortSHA(commit))
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var entries []*github.TreeEntry
	for _, e := range tree.Entries {
		rest, ok := strings.CutPrefix(e.GetPath(), "reviewers/")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, "/")
		if len(want) == 0 || want[n] {
			entries = append(entries, e)
		}
	}
	f := &fetcher{rest: rest, owner: owner, repo: name, commit: commit, models: src, now: now}
	snap, _, err := f.snapshot(ctx, entries)
	if err != nil {
		return nil, err
	}
	out := map[string]*Version{}
	for n, pr := range snap.reviewers {
		v := &Version{Name: n, Commit: commit, Problem: pr.err}
		if pr.err == nil {
			v.Config, v.Columns = pr.config, pr.columns()
		}
		out[n] = v
	}
	for n, why := range snap.ignored {
		out[n] = &Version{Name: n, Commit: commit, Problem: fmt.Errorf("%s", why)}
	}
	for _, n := range names {
		if out[n] == nil {
			out[n] = &Version{Name: n, Commit: commit, Missing: true}
		}
	}
	return out, nil
}
