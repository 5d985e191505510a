package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const shipped = "../../testdata/eval-corpus"

func TestLoadShippedCorpus(t *testing.T) {
	c, err := Load(shipped)
	if err != nil {
		t.Fatal(err)
	}
	clean, planted := 0, 0
	for _, k := range c.Cases {
		if len(k.Expected) == 0 {
			clean++
		}
		for _, e := range k.Expected {
			planted++
			b, err := os.ReadFile(filepath.Join(k.Head, e.Path))
			if err != nil {
				t.Fatalf("%s: %v", k.Name, err)
			}
			if n := strings.Count(string(b), "\n"); e.Line < 1 || e.Line > n {
				t.Errorf("%s: %s:%d is past the file's %d lines", k.Name, e.Path, e.Line, n)
			}
		}
	}
	if len(c.Cases) < 5 || clean < 2 || planted < 10 {
		t.Fatalf("%d cases, %d clean, %d planted bugs", len(c.Cases), clean, planted)
	}
}

// writeCorpus writes golden_comments/x.json and a head tree for acme/r#1.
func writeCorpus(t *testing.T, golden string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range map[string]string{
		"golden_comments/x.json":   golden,
		"cases/acme/r/1/head/a.go": "package a\n",
		"cases/acme/r/1/base/a.go": "package a\n",
		"cases/acme/r/2/head/b.go": "package b\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadToleratesUnknownFields(t *testing.T) {
	dir := writeCorpus(t, `[{"pr_title": "T", "url": "https://github.com/acme/r/pull/1", "original_url": "u", "az_comment": "z",
		"comments": [{"comment": "c", "severity": "high", "category": "bug", "extra": 1}]}]`)
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	k := c.Cases[0]
	if k.Name != "acme/r#1" || k.Title != "T" || k.Expected[0].Severity != "High" || k.Expected[0].Category != "bug" {
		t.Fatalf("%+v", k)
	}
}

func TestLoadRefusesBadFiles(t *testing.T) {
	pr := func(url, comments string) string {
		return `[{"pr_title": "T", "url": "` + url + `", "comments": ` + comments + `}]`
	}
	ok := "https://github.com/acme/r/pull/1"
	for name, tc := range map[string]struct{ golden, want string }{
		"not json":         {`{"pr_title": `, "want a JSON array"},
		"an object":        {`{"pr_title": "T"}`, "want a JSON array"},
		"no url":           {`[{"pr_title": "T", "comments": []}]`, "url is missing"},
		"not a PR url":     {pr("https://github.com/acme/r/issues/1", "[]"), "is not …/<owner>/<repo>/pull/<number>"},
		"PR number 0":      {pr("https://github.com/acme/r/pull/0", "[]"), "is not a pull request number"},
		"no title":         {`[{"url": "` + ok + `", "comments": []}]`, "pr_title is missing"},
		"no comments":      {`[{"pr_title": "T", "url": "` + ok + `"}]`, "comments is missing"},
		"bad severity":     {pr(ok, `[{"comment": "c", "severity": "Severe"}]`), `severity "Severe" is not one of`},
		"bad category":     {pr(ok, `[{"comment": "c", "severity": "Low", "category": "bugs"}]`), `category "bugs" is not one of`},
		"empty comment":    {pr(ok, `[{"comment": " ", "severity": "Low"}]`), "comment is empty"},
		"line, no path":    {pr(ok, `[{"comment": "c", "severity": "Low", "line": 3}]`), "needs a path"},
		"comment a string": {pr(ok, `["c"]`), "comment 0"},
		"no head tree":     {pr("https://github.com/acme/r/pull/3", "[]"), "no head tree"},
		"duplicate":        {`[` + strings.Trim(pr(ok, "[]"), "[]") + `,` + strings.Trim(pr(ok, "[]"), "[]") + `]`, "is also in"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeCorpus(t, tc.golden)
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), "x.json") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one naming x.json and saying %q", err, tc.want)
			}
		})
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no golden_comments") {
		t.Fatalf("empty dir: %v", err)
	}
}
