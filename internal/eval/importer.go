package eval

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/internal/gh"
)

// ImportConfig configures `chakshu eval import`.
type ImportConfig struct {
	// Martian is a checkout of the benchmark (its offline/golden_comments,
	// or a folder holding golden_comments directly).
	Martian string
	// Out is the corpus directory written.
	Out string
	// GitHubURL is the REST API base; Token authenticates (a personal or
	// installation token; public repositories need only read access).
	GitHubURL, Token string
	// Full fetches the whole base and head trees; otherwise only the
	// directories the pull request touches are fetched (the changed files
	// and their neighbours), which costs one call per file of those
	// directories instead of one per file of the repository.
	Full bool
	// HTTP is the client's transport; nil means http.DefaultTransport. It
	// is wrapped in the project's GitHub retry transport.
	HTTP http.RoundTripper
	// Log gets a progress line per pull request.
	Log io.Writer
}

// caseMeta is cases/<owner>/<repo>/<n>/pr.json: what the import read of the
// pull request. Its presence marks the case as imported (it is written
// last), so an import run again skips it.
type caseMeta struct {
	Title    string   `json:"title"`
	Body     string   `json:"body"`
	BaseSHA  string   `json:"base_sha"`
	HeadSHA  string   `json:"head_sha"`
	BaseRepo string   `json:"base_repo"`
	HeadRepo string   `json:"head_repo"`
	Files    []string `json:"files"`
	Full     bool     `json:"full_trees"`
}

// Import writes a corpus in Chakshu's layout from the benchmark's golden
// comments: the golden-comments files as they are (comments keep their
// severity and category, and have no location), and each pull request's
// base and head trees fetched through the GitHub API. A pull request
// already imported is skipped, so an interrupted import is resumed by
// running it again.
func Import(ctx context.Context, cfg ImportConfig) error {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	files, _ := filepath.Glob(filepath.Join(cfg.Martian, "offline", "golden_comments", "*.json"))
	if len(files) == 0 {
		files, _ = filepath.Glob(filepath.Join(cfg.Martian, "golden_comments", "*.json"))
	}
	if len(files) == 0 {
		return fmt.Errorf("%s: no offline/golden_comments/*.json (want a checkout of withmartian/code-review-benchmark)", cfg.Martian)
	}
	sort.Strings(files)
	base := cfg.HTTP
	if base == nil {
		base = http.DefaultTransport
	}
	if cfg.Token != "" {
		base = bearer{token: cfg.Token, base: base}
	}
	hc := &http.Client{Transport: &gh.RetryTransport{Base: base}, Timeout: 5 * time.Minute}
	rest := gh.NewREST(hc, cfg.GitHubURL)
	type todo struct {
		owner, repo string
		n           int
		url         string
	}
	var prs []todo
	if err := os.MkdirAll(filepath.Join(cfg.Out, "golden_comments"), 0o755); err != nil {
		return err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var entries []struct {
			URL string `json:"url"`
		}
		if err := json.Unmarshal(b, &entries); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		for i, e := range entries {
			o, r, n, err := parsePRURL(e.URL)
			if err != nil {
				return fmt.Errorf("%s: entry %d: %w", f, i, err)
			}
			prs = append(prs, todo{o, r, n, e.URL})
		}
		// The golden comments are the corpus's as published: they check
		// against Chakshu's format when the corpus is loaded.
		if err := os.WriteFile(filepath.Join(cfg.Out, "golden_comments", filepath.Base(f)), b, 0o644); err != nil {
			return err
		}
	}
	for i, p := range prs {
		at := fmt.Sprintf("[%d/%d] %s/%s#%d", i+1, len(prs), p.owner, p.repo, p.n)
		dir := filepath.Join(cfg.Out, "cases", p.owner, p.repo, strconv.Itoa(p.n))
		if _, err := os.Stat(filepath.Join(dir, "pr.json")); err == nil {
			fmt.Fprintf(cfg.Log, "%s: already imported\n", at)
			continue
		}
		start := time.Now()
		meta, calls, bytes, err := importPR(ctx, rest, p.owner, p.repo, p.n, dir, cfg.Full)
		if err != nil {
			if t, ok := gh.WaitFor(err, time.Now()); ok {
				return fmt.Errorf("%s: GitHub asks to wait until %s (rate limit); run the import again then to resume: %w", at, t.Format(time.RFC3339), err)
			}
			return fmt.Errorf("%s: %w", at, err)
		}
		fmt.Fprintf(cfg.Log, "%s: %s: %d changed files, %d API calls, %d bytes, %s\n", at, meta.Title, len(meta.Files), calls, bytes,
			time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// importPR fetches one pull request's trees into dir (through dir.partial,
// renamed when complete).
func importPR(ctx context.Context, rest *github.Client, owner, repo string, n int, dir string, full bool) (*caseMeta, int, int64, error) {
	calls := 0
	pr, _, err := rest.PullRequests.Get(ctx, owner, repo, n)
	calls++
	if err != nil {
		return nil, calls, 0, fmt.Errorf("get the pull request: %w", err)
	}
	meta := &caseMeta{Title: pr.GetTitle(), Body: pr.GetBody(), BaseSHA: pr.GetBase().GetSHA(), HeadSHA: pr.GetHead().GetSHA(),
		BaseRepo: pr.GetBase().GetRepo().GetFullName(), HeadRepo: pr.GetHead().GetRepo().GetFullName(), Full: full}
	if meta.BaseRepo == "" {
		meta.BaseRepo = owner + "/" + repo
	}
	if meta.HeadRepo == "" {
		meta.HeadRepo = meta.BaseRepo // the head fork is gone; its commits stay reachable from the base repository
	}
	fs, err := gh.ListPRFiles(ctx, rest, owner, repo, n)
	calls += max(1, (len(fs)+99)/100) // GitHub's pages of 100
	if err != nil {
		return nil, calls, 0, fmt.Errorf("list the changed files: %w", err)
	}
	for _, f := range fs {
		meta.Files = append(meta.Files, f.GetFilename())
		if f.GetPreviousFilename() != "" {
			meta.Files = append(meta.Files, f.GetPreviousFilename())
		}
	}
	if !full && len(fs) >= gh.MaxPRFiles {
		return nil, calls, 0, fmt.Errorf("GitHub lists at most %d changed files of a pull request; import it with --full", gh.MaxPRFiles)
	}
	dirs := map[string]bool{}
	for _, f := range meta.Files {
		dirs[path.Dir(f)] = true
	}
	partial := dir + ".partial"
	if err := os.RemoveAll(partial); err != nil {
		return nil, calls, 0, err
	}
	blobs := map[string][]byte{} // blob sha → content, shared by base and head
	var total int64
	for _, side := range []struct{ name, repo, sha string }{{"base", meta.BaseRepo, meta.BaseSHA}, {"head", meta.HeadRepo, meta.HeadSHA}} {
		o, r, _ := strings.Cut(side.repo, "/")
		tree, _, err := rest.Git.GetTree(ctx, o, r, side.sha, true)
		calls++
		if err != nil {
			return nil, calls, 0, fmt.Errorf("%s tree at %s: %w", side.name, side.sha, err)
		}
		if tree.GetTruncated() {
			// GitHub cuts a recursive listing at 100,000 entries or 7 MB
			// (docs.github.com/rest/git/trees, "Get a tree"); a partial
			// tree would be a wrong corpus.
			return nil, calls, 0, fmt.Errorf("%s tree at %s: GitHub truncated the listing (too many files)", side.name, side.sha)
		}
		root := filepath.Join(partial, side.name)
		if err := os.MkdirAll(root, 0o755); err != nil {
			return nil, calls, 0, err
		}
		for _, e := range tree.Entries {
			p := e.GetPath()
			if e.GetType() != "blob" || (!full && !dirs[path.Dir(p)]) {
				continue
			}
			if !filepath.IsLocal(p) {
				return nil, calls, 0, fmt.Errorf("%s tree: path %q leaves the tree", side.name, p)
			}
			content, ok := blobs[e.GetSHA()]
			if !ok {
				b, _, err := rest.Git.GetBlob(ctx, o, r, e.GetSHA())
				calls++
				if err != nil {
					return nil, calls, 0, fmt.Errorf("%s file %s: %w", side.name, p, err)
				}
				if content, err = blobContent(b); err != nil {
					return nil, calls, 0, fmt.Errorf("%s file %s: %w", side.name, p, err)
				}
				blobs[e.GetSHA()] = content
			}
			dst := filepath.Join(root, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return nil, calls, 0, err
			}
			if err := os.WriteFile(dst, content, 0o644); err != nil {
				return nil, calls, 0, err
			}
			total += int64(len(content))
		}
	}
	b, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return nil, calls, 0, err
	}
	if err := os.WriteFile(filepath.Join(partial, "pr.json"), append(b, '\n'), 0o644); err != nil {
		return nil, calls, 0, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, calls, 0, err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, calls, 0, err
	}
	return meta, calls, total, os.Rename(partial, dir)
}

func blobContent(b *github.Blob) ([]byte, error) {
	switch b.GetEncoding() {
	case "base64":
		return base64.StdEncoding.DecodeString(strings.ReplaceAll(b.GetContent(), "\n", ""))
	case "utf-8", "":
		return []byte(b.GetContent()), nil
	}
	return nil, errors.New("blob encoding " + b.GetEncoding())
}

// bearer authenticates requests with a token.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}
