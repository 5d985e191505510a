package ghsim_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v88/github"
)

// listAllFiles pages through a PR's files.
func listAllFiles(t *testing.T, rest *github.Client, n int) []*github.CommitFile {
	t.Helper()
	var out []*github.CommitFile
	opt := &github.ListOptions{PerPage: 100}
	for {
		fs, resp, err := rest.PullRequests.ListFiles(context.Background(), "acme", "widget", n, opt)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fs...)
		if resp.NextPage == 0 {
			return out
		}
		opt.Page = resp.NextPage
	}
}

// GitHub refuses the whole diff of a PR past 300 files or 20,000 lines with
// 406 too_large; the files list still has every file, without the patch of a
// file whose own diff is too large or binary.
func TestPullDiffLimits(t *testing.T) {
	cases := []struct {
		name    string
		files   func() map[string]string
		status  int
		message string
		noPatch []string // files listed without a patch
	}{
		{"300 files are served", func() map[string]string { return manyFiles(300, 1) }, http.StatusOK, "", nil},
		{"301 files", func() map[string]string { return manyFiles(301, 1) }, http.StatusNotAcceptable,
			"Sorry, the diff exceeded the maximum number of files (300). Consider using 'List pull requests files' API or locally cloning the repository instead.", nil},
		{"over 20,000 lines", func() map[string]string { return manyFiles(5, 4100) }, http.StatusNotAcceptable,
			"Sorry, the diff exceeded the maximum number of lines (20000)", nil},
		{"one file over 20,000 lines", func() map[string]string {
			fs := manyFiles(2, 1)
			fs["big.txt"] = strings.Repeat("line\n", 20_001)
			return fs
		}, http.StatusNotAcceptable, "Sorry, the diff exceeded the maximum number of lines (20000)", []string{"big.txt"}},
		{"one file over 500 KB", func() map[string]string {
			fs := manyFiles(2, 1)
			fs["wide.txt"] = strings.Repeat(strings.Repeat("w", 1000)+"\n", 600)
			return fs
		}, http.StatusOK, "", []string{"wide.txt"}},
		{"binary file", func() map[string]string {
			fs := manyFiles(2, 1)
			fs["logo.png"] = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
			return fs
		}, http.StatusOK, "", []string{"logo.png"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			rest := f.inst.REST
			f.sim.CreateBranch("acme/widget", "big", "main")
			files := c.files()
			f.sim.Commit("acme/widget", "big", files, "big change")
			n := f.sim.OpenPR("acme/widget", "big", "main", "Big", "", "alice", false)

			for _, typ := range []github.RawType{github.Diff, github.Patch} {
				diff, resp, err := rest.PullRequests.GetRaw(ctx, "acme", "widget", n, github.RawOptions{Type: typ})
				if status := statusOf(resp); status != c.status {
					t.Fatalf("media type %v: status %d, want %d (err %v)", typ, status, c.status, err)
				}
				if c.status == http.StatusOK {
					for name := range files {
						if !strings.Contains(diff, "diff --git a/"+name+" b/"+name+"\n") {
							t.Errorf("diff does not name %s", name)
						}
					}
					continue
				}
				var er *github.ErrorResponse
				if !errors.As(err, &er) {
					t.Fatalf("error %T %v", err, err)
				}
				want := []github.Error{{Resource: "PullRequest", Field: "diff", Code: "too_large"}}
				if er.Message != c.message || !cmp.Equal(want, er.Errors) ||
					er.DocumentationURL != "https://docs.github.com/rest/pulls/pulls#list-pull-requests-files" {
					t.Errorf("406 body: %q %+v %q", er.Message, er.Errors, er.DocumentationURL)
				}
				var body map[string]any
				if err := json.Unmarshal(mustBody(t, rest, n, typ), &body); err != nil || body["status"] != "406" {
					t.Errorf("406 body status: %v %v", body["status"], err)
				}
			}

			listed := listAllFiles(t, rest, n)
			if len(listed) != len(files) {
				t.Fatalf("files list has %d files, want %d", len(listed), len(files))
			}
			var noPatch []string
			for _, fl := range listed {
				if fl.Patch == nil {
					noPatch = append(noPatch, fl.GetFilename())
				} else if fl.GetAdditions() == 0 {
					t.Errorf("%s: a patch but no additions", fl.GetFilename())
				}
			}
			if d := cmp.Diff(c.noPatch, noPatch); d != "" {
				t.Errorf("files without a patch (-want +got):\n%s", d)
			}
		})
	}
}

// The files list stops at 3,000 files.
func TestPullFilesListCap(t *testing.T) {
	f := newFixture(t)
	f.sim.CreateBranch("acme/widget", "huge", "main")
	f.sim.Commit("acme/widget", "huge", manyFiles(3001, 1), "huge change")
	n := f.sim.OpenPR("acme/widget", "huge", "main", "Huge", "", "alice", false)
	if got := len(listAllFiles(t, f.inst.REST, n)); got != 3000 {
		t.Fatalf("files list has %d files, want 3000", got)
	}
}

func statusOf(resp *github.Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}

// manyFiles makes n new files of lines lines each.
func manyFiles(n, lines int) map[string]string {
	out := map[string]string{}
	for i := range n {
		out[fmt.Sprintf("gen/f%04d.txt", i)] = strings.Repeat(fmt.Sprintf("line of file %d\n", i), lines)
	}
	return out
}

// mustBody fetches the raw answer to a diff request.
func mustBody(t *testing.T, rest *github.Client, n int, typ github.RawType) []byte {
	t.Helper()
	accept := "application/vnd.github.diff"
	if typ == github.Patch {
		accept = "application/vnd.github.patch"
	}
	req, err := rest.NewRequest(context.Background(), "GET", fmt.Sprintf("repos/acme/widget/pulls/%d", n), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := rest.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	return raw
}
