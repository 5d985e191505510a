package reviewerconfig

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/models"
)

// Columns are what a parsed reviewer puts in its Reviewer row's content
// columns; a shadow run's reviewer_snapshot carries the same values.
type Columns struct {
	ClaudeMD   string
	ConfigYAML string
	// Config is the parsed reviewer.yaml (nil: none, the defaults).
	Config *Config
	// Skills in their stored form.
	Skills []map[string]any
}

// columns is the one place a parsed reviewer becomes stored values: the
// sync writes them on the Reviewer row, a backtest in a shadow run's snapshot.
func (pr *parsedReviewer) columns() Columns {
	return Columns{ClaudeMD: pr.claudeMD, ConfigYAML: pr.configYAML, Config: new(pr.config), Skills: skillsToJSON(pr.skills)}
}

// Snapshot keys of Run.reviewer_snapshot.
const (
	SnapshotClaudeMD   = "claude_md"
	SnapshotConfigYAML = "config_yaml"
	SnapshotConfig     = "config"
	SnapshotSkills     = "skills"
)

// Snapshot is c as a shadow run's reviewer_snapshot: {"claude_md": string,
// "config_yaml": string, "config": map (Reviewer.config's shape), "skills":
// [...] (Reviewer.skills' shape)}. The job fetch of a shadow run uses it
// instead of the reviewer in force.
func (c Columns) Snapshot() map[string]any {
	skills := make([]any, 0, len(c.Skills))
	for _, s := range c.Skills {
		skills = append(skills, s)
	}
	return map[string]any{SnapshotClaudeMD: c.ClaudeMD, SnapshotConfigYAML: c.ConfigYAML, SnapshotConfig: c.Config, SnapshotSkills: skills}
}

// SnapshotOf is the snapshot of the version of r in force (its synced columns).
func SnapshotOf(r *ent.Reviewer) map[string]any {
	return Columns{ClaudeMD: r.ClaudeMd, ConfigYAML: r.ConfigYaml, Config: r.Config, Skills: r.Skills}.Snapshot()
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
	// Columns are its stored values (Columns.Snapshot for a shadow run).
	Columns Columns
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
		return nil, fmt.Errorf("reviewers repository %s: tree at %s: %w", full, short(commit), err)
	}
	if tree.GetTruncated() {
		return nil, fmt.Errorf("reviewers repository %s: too many files to list at %s", full, short(commit))
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

// ConfigOfSnapshot is the reviewer.yaml a reviewer_snapshot carries, over
// the defaults as a stored reviewer's (FromEnt).
func ConfigOfSnapshot(snap map[string]any) (Config, error) {
	s, err := snapshotFrom(snap)
	if err != nil || s.Config == nil {
		return Defaults(), err
	}
	return *s.Config, nil
}
