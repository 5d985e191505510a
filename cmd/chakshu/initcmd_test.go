package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/syncbuf"
)

// `chakshu init reviewers DIR` writes a repository the reviewer loader (the
// code a sync runs) accepts as it is: a security and a correctness reviewer
// on models the catalogue lists as active (not deprecated, not retiring),
// caps inside the sync's limits and above the defaults for security,
// automatic on opened, ready and pushed PRs but never on drafts, rules and a
// README, and nothing of the sandbox.
func TestInitReviewers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chakshu-reviewers")
	var stdout, stderr syncbuf.Buffer
	if err := run(context.Background(), []string{"init", "reviewers", dir}, &stdout, &stderr); err != nil {
		t.Fatalf("init: %v\n%s", err, stderr.String())
	}
	now := time.Now()
	cat := models.Builtin()
	got, err := reviewerconfig.LoadDir(filepath.Join(dir, "reviewers"), models.Static(cat), now)
	if err != nil {
		t.Fatalf("the written reviewers do not load: %v", err)
	}
	byName := map[string]reviewerconfig.Local{}
	for _, r := range got {
		byName[r.Name] = r
	}
	if len(got) != 2 || byName["security"].Name == "" || byName["correctness"].Name == "" {
		t.Fatalf("reviewers %v, want security and correctness", got)
	}
	defaults := reviewerconfig.Defaults()
	for name, r := range byName {
		c := r.Config
		e, st, err := cat.Check(c.Model, now)
		if err != nil || st.State != "active" {
			t.Errorf("%s: model %s is not active in the catalogue: %v %s", name, c.Model, err, st.Sentence())
		} else if e.ID != c.Model {
			t.Errorf("%s: model %s is an alias of %s: name the model itself", name, c.Model, e.ID)
		}
		if c.MaxCostUSD <= 0 || c.MaxCostUSD > 10 || c.MaxTurns < defaults.MaxTurns || c.MaxFindings > defaults.MaxFindings {
			t.Errorf("%s caps: $%v, %d turns, %d findings", name, c.MaxCostUSD, c.MaxTurns, c.MaxFindings)
		}
		if c.Samples < 2 || c.Agree < 2 || !c.Verify {
			t.Errorf("%s: %d passes, agree %d, verify %v: the review method is several passes that agree, verified", name, c.Samples, c.Agree, c.Verify)
		}
		if c.FailCheckOn != "blocker" || c.MinSeverity == defaults.MinSeverity {
			t.Errorf("%s: fail_check_on %s, min_severity %s: fail on blockers only, drop nits", name, c.FailCheckOn, c.MinSeverity)
		}
		for _, ev := range []string{"opened", "ready_for_review", "synchronize"} {
			if !slices.Contains(c.Auto.Events, ev) {
				t.Errorf("%s: not automatic on %s: %v", name, ev, c.Auto.Events)
			}
		}
		if c.Auto.Drafts || len(c.Auto.Repos) > 0 || len(c.Connectors) > 0 {
			t.Errorf("%s: drafts %v, repos %v, connectors %v: want none", name, c.Auto.Drafts, c.Auto.Repos, c.Connectors)
		}
		if !strings.Contains(r.ClaudeMD, "## Severity") || !strings.Contains(r.ClaudeMD, "evidence") {
			t.Errorf("%s: CLAUDE.md lacks the severity scale or the evidence rule", name)
		}
	}
	if sec, cor := byName["security"].Config, byName["correctness"].Config; sec.MaxCostUSD <= cor.MaxCostUSD {
		t.Errorf("security ($%v) should be allowed more than correctness ($%v): it follows data further", sec.MaxCostUSD, cor.MaxCostUSD)
	}
	if len(byName["security"].Skills) != 1 || byName["security"].Skills[0].Name != "untrusted-input" {
		t.Errorf("security skills %+v", byName["security"].Skills)
	}
	// Nothing of the sandbox or of this machine.
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, bad := range []string{"sandbox", "127.0.0.1", "localhost", "acme", "example.com"} {
			if strings.Contains(strings.ToLower(string(b)), bad) {
				t.Errorf("%s mentions %q", p, bad)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "README.md")); err != nil || !strings.Contains(string(b), "## Who owns what") {
		t.Errorf("README for the owning team: %v", err)
	}
}

// It never writes over anything, and a wrong call is a usage error.
func TestInitReviewersRefuses(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"a folder with files", []string{"init", "reviewers", full}, "not empty"},
		{"no folder", []string{"init", "reviewers"}, "usage"},
		{"another kind", []string{"init", "workflows", t.TempDir()}, "usage"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr syncbuf.Buffer
			err := run(context.Background(), tc.args, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(full, "keep.txt")); string(b) != "mine" {
		t.Fatal("init changed a file it found")
	}
	if ents, _ := os.ReadDir(full); len(ents) != 1 {
		t.Fatalf("init wrote into a non-empty folder: %v", ents)
	}
}
