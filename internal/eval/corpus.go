// Package eval measures reviewers against a labelled corpus (`chakshu eval`,
// issue 25): each case is a pull request as a base and a head tree, with the
// findings a good review makes in the golden-comments format of Martian's open
// code-review benchmark (github.com/withmartian/code-review-benchmark,
// offline/golden_comments/*.json). Reviewers run through the runner's own
// review path against the model gateway; their findings are matched to the
// expected comments by file and line window (and, optionally, a model judge)
// and scored as precision, recall and F1 under the benchmark's strict, core
// and all category profiles (offline/analysis/score_profiles.py).
package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Categories are the benchmark's comment categories (the union of its
// profiles).
var Categories = []string{"bug", "security", "concurrency", "data", "api", "perf", "test_gap", "doc_defect", "style", "speculative"}

// Severities are the benchmark's severities, most severe first.
var Severities = []string{"Critical", "High", "Medium", "Low"}

// Expected is one golden comment. Path and Line are Chakshu's additions to
// the format (the benchmark's own files locate nothing): they let findings be
// matched by place; a comment without them is matched only by the judge.
type Expected struct {
	Comment  string `json:"comment"`
	Severity string `json:"severity"`
	Category string `json:"category,omitempty"`
	Path     string `json:"path,omitempty"`
	Line     int    `json:"line,omitempty"`
}

// Case is one pull request of the corpus.
type Case struct {
	// Name is owner/repo#number, from the URL.
	Name  string
	Title string
	// Body is the pull request's description, from pr.json beside the
	// trees when the import wrote one.
	Body        string
	URL         string
	Owner, Repo string
	Number      int
	// Base and Head are the trees' directories; Base may not exist (a new
	// repository).
	Base, Head string
	Expected   []Expected
	// File is the golden-comments file the case comes from.
	File string
}

// Corpus is a loaded corpus directory.
type Corpus struct {
	Dir   string
	Cases []Case
}

// goldenPR is one entry of a golden-comments file; unknown fields
// (original_url, az_comment, …) are tolerated.
type goldenPR struct {
	PRTitle  *string            `json:"pr_title"`
	URL      *string            `json:"url"`
	Comments *[]json.RawMessage `json:"comments"`
}

// Load reads DIR/golden_comments/*.json and finds each PR's trees at
// DIR/cases/<owner>/<repo>/<number>/{base,head}. Every problem names the file
// (and the entry) it is in.
func Load(dir string) (*Corpus, error) {
	files, err := filepath.Glob(filepath.Join(dir, "golden_comments", "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("corpus %s: no golden_comments/*.json", dir)
	}
	sort.Strings(files)
	c := &Corpus{Dir: dir}
	seen := map[string]string{}
	for _, f := range files {
		cases, err := loadFile(dir, f)
		if err != nil {
			return nil, err
		}
		for _, k := range cases {
			if prev, dup := seen[k.Name]; dup {
				return nil, fmt.Errorf("%s: %s is also in %s", f, k.URL, prev)
			}
			seen[k.Name] = f
			c.Cases = append(c.Cases, k)
		}
	}
	return c, nil
}

func loadFile(dir, file string) ([]Case, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var prs []goldenPR
	if err := json.Unmarshal(b, &prs); err != nil {
		return nil, fmt.Errorf("%s: want a JSON array of {pr_title, url, comments}: %w", file, err)
	}
	var out []Case
	for i, p := range prs {
		at := fmt.Sprintf("%s: entry %d", file, i)
		if p.URL == nil || *p.URL == "" {
			return nil, fmt.Errorf("%s: url is missing", at)
		}
		owner, repo, num, err := parsePRURL(*p.URL)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at, err)
		}
		at = fmt.Sprintf("%s (%s)", at, *p.URL)
		if p.PRTitle == nil {
			return nil, fmt.Errorf("%s: pr_title is missing", at)
		}
		if p.Comments == nil {
			return nil, fmt.Errorf("%s: comments is missing (an empty list marks a clean pull request)", at)
		}
		k := Case{Name: fmt.Sprintf("%s/%s#%d", owner, repo, num), Title: *p.PRTitle, URL: *p.URL,
			Owner: owner, Repo: repo, Number: num, File: file, Expected: []Expected{}}
		for j, raw := range *p.Comments {
			e, err := parseComment(raw)
			if err != nil {
				return nil, fmt.Errorf("%s: comment %d: %w", at, j, err)
			}
			k.Expected = append(k.Expected, e)
		}
		caseDir := filepath.Join(dir, "cases", owner, repo, strconv.Itoa(num))
		k.Base, k.Head = filepath.Join(caseDir, "base"), filepath.Join(caseDir, "head")
		if st, err := os.Stat(k.Head); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%s: no head tree at %s", at, k.Head)
		}
		if b, err := os.ReadFile(filepath.Join(caseDir, "pr.json")); err == nil {
			var m caseMeta
			if err := json.Unmarshal(b, &m); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", at, filepath.Join(caseDir, "pr.json"), err)
			}
			k.Body = m.Body
		}
		out = append(out, k)
	}
	return out, nil
}

// parsePRURL reads owner, repo and number from …/<owner>/<repo>/pull/<n>.
func parsePRURL(s string) (owner, repo string, n int, err error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "", "", 0, fmt.Errorf("url %q is not a pull request URL", s)
	}
	seg := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(seg) != 4 || seg[2] != "pull" || seg[0] == "" || seg[1] == "" || strings.HasPrefix(seg[0], ".") || strings.HasPrefix(seg[1], ".") {
		return "", "", 0, fmt.Errorf("url %q is not …/<owner>/<repo>/pull/<number>", s)
	}
	n, err = strconv.Atoi(seg[3])
	if err != nil || n <= 0 {
		return "", "", 0, fmt.Errorf("url %q: %q is not a pull request number", s, seg[3])
	}
	return seg[0], seg[1], n, nil
}

func parseComment(raw json.RawMessage) (Expected, error) {
	var e Expected
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&e); err != nil {
		return e, fmt.Errorf("want {comment, severity, category}: %w", err)
	}
	if strings.TrimSpace(e.Comment) == "" {
		return e, errors.New("comment is empty")
	}
	sev := -1
	for i, s := range Severities {
		if strings.EqualFold(s, e.Severity) {
			sev = i
		}
	}
	if sev < 0 {
		return e, fmt.Errorf("severity %q is not one of %s", e.Severity, strings.Join(Severities, ", "))
	}
	e.Severity = Severities[sev]
	if e.Category != "" && !slices.Contains(Categories, e.Category) {
		return e, fmt.Errorf("category %q is not one of %s", e.Category, strings.Join(Categories, ", "))
	}
	if e.Line < 0 || (e.Line > 0 && e.Path == "") {
		return e, fmt.Errorf("line %d needs a path and must be positive", e.Line)
	}
	return e, nil
}
