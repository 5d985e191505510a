package eval

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/syncbuf"
)

// countingTransport counts requests by path and can fail from a number on.
type countingTransport struct {
	mu      sync.Mutex
	paths   []string
	failAt  int // fail the request with this 1-based number and after; 0 never
	scratch http.RoundTripper
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.paths = append(c.paths, r.URL.Path)
	n := len(c.paths)
	c.mu.Unlock()
	if c.failAt > 0 && n >= c.failAt {
		return nil, context.DeadlineExceeded
	}
	return c.scratch.RoundTrip(r)
}

func (c *countingTransport) count(sub string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, p := range c.paths {
		if strings.Contains(p, sub) {
			n++
		}
	}
	return n
}

// ledgerSim serves two pull requests on acme/ledger: one changing a file
// beside others, one adding a document.
func ledgerSim(t *testing.T) (*ghsim.Sim, string) {
	sim := ghsimtest.New(t)
	sim.CreateRepo("acme", "ledger", map[string]string{
		"ledger/post.go":     "package ledger\n\nfunc Post() {}\n",
		"ledger/fees.go":     "package ledger\n\nconst FeeRate = 0.01\n",
		"ledger/README.md":   "# ledger\n",
		"export/csv.go":      "package export\n",
		"cmd/ledger/main.go": "package main\n\nfunc main() {}\n",
	})
	sim.SetPublic("acme/ledger", true)
	sim.CreateBranch("acme/ledger", "fees", "main")
	sim.Commit("acme/ledger", "fees", map[string]string{"ledger/post.go": "package ledger\n\nfunc Post() { postFee(); checkBalance() }\n"}, "Post fees")
	sim.OpenPR("acme/ledger", "fees", "main", "Post fees as separate entries", "Fees get their own ledger entry.", "ana", false)
	sim.CreateBranch("acme/ledger", "docs", "main")
	sim.Commit("acme/ledger", "docs", map[string]string{"docs/export.md": "# Export\n\nOne row per entry.\n"}, "Document export")
	sim.OpenPR("acme/ledger", "docs", "main", "Document the export format", "", "ana", false)
	return sim, sim.UserToken("reader")
}

func TestImportFromGitHub(t *testing.T) {
	sim, token := ledgerSim(t)
	out := filepath.Join(t.TempDir(), "corpus")
	tr := &countingTransport{scratch: http.DefaultTransport}
	var log syncbuf.Buffer
	cfg := ImportConfig{Martian: "testdata/martian-import", Out: out, GitHubURL: sim.URL(), Token: token, HTTP: tr, Log: &log}
	if err := Import(context.Background(), cfg); err != nil {
		t.Fatalf("import: %v\n%s", err, log.String())
	}
	// One progress line per pull request.
	if lines := strings.Split(strings.TrimSpace(log.String()), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "[1/2] acme/ledger#1: Post fees as separate entries: 1 changed files") {
		t.Fatalf("progress:\n%s", log.String())
	}
	c, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Cases) != 2 {
		t.Fatalf("%d cases", len(c.Cases))
	}
	k := c.Cases[0]
	// Golden comments keep severity and category (where given) and no
	// location.
	if e := k.Expected; len(e) != 2 || e[0].Category != "bug" || e[0].Severity != "High" || e[1].Category != "" || e[0].Path != "" || e[0].Line != 0 {
		t.Fatalf("golden comments %+v", k.Expected)
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			return "<none>"
		}
		return string(b)
	}
	// The touched directory comes whole, at base and at head; directories
	// the PR does not touch stay out.
	for p, want := range map[string]string{
		"base/ledger/post.go":     "package ledger\n\nfunc Post() {}\n",
		"head/ledger/post.go":     "package ledger\n\nfunc Post() { postFee(); checkBalance() }\n",
		"head/ledger/fees.go":     "package ledger\n\nconst FeeRate = 0.01\n",
		"head/export/csv.go":      "<none>",
		"head/cmd/ledger/main.go": "<none>",
	} {
		if got := read(filepath.Join(filepath.Dir(k.Head), p)); got != want {
			t.Errorf("%s: %q, want %q", p, got, want)
		}
	}
	if m := read(filepath.Join(filepath.Dir(k.Head), "pr.json")); !strings.Contains(m, `"title": "Post fees as separate entries"`) || k.Body != "Fees get their own ledger entry." {
		t.Fatalf("pr.json: %s; the case's body %q", m, k.Body)
	}
	// A blob the same at base and head is fetched once: PR 1 reads the
	// three files of ledger/ at base and only the changed post.go at head;
	// PR 2 the one new document.
	if n := tr.count("/git/blobs/"); n != 3+1+1 {
		t.Errorf("%d blob calls, want 5: %v", n, tr.paths)
	}

	// Run again: nothing is fetched twice.
	before := len(tr.paths)
	log = syncbuf.Buffer{}
	cfg.Log = &log
	if err := Import(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if len(tr.paths) != before || strings.Count(log.String(), "already imported") != 2 {
		t.Fatalf("second run made %d calls:\n%s", len(tr.paths)-before, log.String())
	}
}

// An import cut off part way resumes where it stopped: the finished pull
// request is not fetched again, the unfinished one leaves no case behind.
func TestImportResumes(t *testing.T) {
	sim, token := ledgerSim(t)
	out := filepath.Join(t.TempDir(), "corpus")
	tr := &countingTransport{scratch: http.DefaultTransport, failAt: 12}
	cfg := ImportConfig{Martian: "testdata/martian-import", Out: out, GitHubURL: sim.URL(), Token: token, HTTP: tr}
	if err := Import(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "acme/ledger#2") {
		t.Fatalf("cut off: %v (after %d calls: %v)", err, len(tr.paths), tr.paths)
	}
	if _, err := os.Stat(filepath.Join(out, "cases", "acme", "ledger", "2")); !os.IsNotExist(err) {
		t.Fatalf("the unfinished case was left: %v", err)
	}
	tr2 := &countingTransport{scratch: http.DefaultTransport}
	cfg.HTTP = tr2
	if err := Import(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if tr2.count("/pulls/1") != 0 || tr2.count("/pulls/2") == 0 {
		t.Fatalf("resumed with %v", tr2.paths)
	}
	if _, err := Load(out); err != nil {
		t.Fatal(err)
	}
}

// GitHub's 502s and secondary rate limits are retried as everywhere in
// Chakshu (internal/gh's retry transport).
func TestImportRetries(t *testing.T) {
	sim, token := ledgerSim(t)
	ghsimtest.InjectFault(sim, ghsimtest.Fault{Match: "GET /repos/*/git/trees/*", Kind: ghsimtest.FaultServerError, Times: 1})
	ghsimtest.InjectFault(sim, ghsimtest.Fault{Match: "GET /repos/*/git/blobs/*", Kind: ghsimtest.FaultSecondaryRateLimit, Times: 1, RetryAfter: 1})
	out := filepath.Join(t.TempDir(), "corpus")
	if err := Import(context.Background(), ImportConfig{Martian: "testdata/martian-import", Out: out, GitHubURL: sim.URL(), Token: token}); err != nil {
		t.Fatal(err)
	}
	if ghsimtest.FaultHits(sim, 0) != 1 || ghsimtest.FaultHits(sim, 1) != 1 {
		t.Fatalf("faults hit %d, %d times", ghsimtest.FaultHits(sim, 0), ghsimtest.FaultHits(sim, 1))
	}
}

// A pull request of more files than a page lists is read page by page.
func TestImportPagesChangedFiles(t *testing.T) {
	sim := ghsimtest.New(t)
	sim.CreateRepo("acme", "ledger", map[string]string{"README.md": "# ledger\n"})
	sim.SetPublic("acme/ledger", true)
	sim.CreateBranch("acme/ledger", "many", "main")
	files := map[string]string{}
	for i := range 130 {
		files[fmt.Sprintf("gen/f%03d.go", i)] = fmt.Sprintf("package gen\n\nconst N%d = %d\n", i, i)
	}
	sim.Commit("acme/ledger", "many", files, "Generate")
	sim.OpenPR("acme/ledger", "many", "main", "Post fees as separate entries", "", "ana", false)
	sim.CreateBranch("acme/ledger", "docs", "main")
	sim.Commit("acme/ledger", "docs", map[string]string{"docs/export.md": "# Export\n"}, "Docs")
	sim.OpenPR("acme/ledger", "docs", "main", "Document the export format", "", "ana", false)
	out := filepath.Join(t.TempDir(), "corpus")
	tr := &countingTransport{scratch: http.DefaultTransport}
	if err := Import(context.Background(), ImportConfig{Martian: "testdata/martian-import", Out: out, GitHubURL: sim.URL(), Token: sim.UserToken("reader"), HTTP: tr}); err != nil {
		t.Fatal(err)
	}
	got, _ := filepath.Glob(filepath.Join(out, "cases", "acme", "ledger", "1", "head", "gen", "*.go"))
	if len(got) != 130 || tr.count("/pulls/1/files") != 2 {
		t.Fatalf("%d files in head/gen, %d pages of files", len(got), tr.count("/pulls/1/files"))
	}
}
