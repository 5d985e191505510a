package reviewerconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadDirReadsTheSandboxReviewers(t *testing.T) {
	rs, err := LoadDir("../sandbox/seed/reviewers", nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rs {
		names = append(names, r.Name)
		if r.Config.Model == "" || r.ClaudeMD == "" || len(r.Skills) == 0 || r.Skills[0].Content == "" {
			t.Errorf("%s: model %q, CLAUDE.md %d bytes, skills %v", r.Name, r.Config.Model, len(r.ClaudeMD), r.Skills)
		}
	}
	if got := strings.Join(names, ","); got != "correctness,security,style" {
		t.Fatalf("reviewers %s", got)
	}
}

func TestLoadDirRefusesWhatSyncRefuses(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"bad yaml":      {"a/reviewer.yaml": "model: [\n"},
		"unknown model": {"a/reviewer.yaml": "model: claude-nonesuch-1\n"},
		"no yaml":       {"a/CLAUDE.md": "rules\n"},
		"skill name":    {"a/reviewer.yaml": "model: claude-sonnet-5-5\n", "a/skills/x/SKILL.md": "---\nname: y\ndescription: d\n---\n"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for p, c := range files {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
				if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := LoadDir(dir, nil, time.Now())
			if err == nil || !strings.Contains(err.Error(), "reviewers/a/") {
				t.Fatalf("err %v, want one naming the reviewer's file", err)
			}
		})
	}
}
