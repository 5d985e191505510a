package graph

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePRURL(t *testing.T) {
	const web = "https://github.com"
	cases := []struct {
		name, url string
		want      PullRequestRef
		ok        bool
	}{
		{"plain", "https://github.com/acme/api/pull/12", PullRequestRef{"acme", "api", 12}, true},
		{"files tab", "https://github.com/acme/api/pull/12/files", PullRequestRef{"acme", "api", 12}, true},
		{"trailing slash", "https://github.com/acme/api/pull/12/", PullRequestRef{"acme", "api", 12}, true},
		{"query and fragment", "https://github.com/acme/api/pull/12?w=1#discussion_r1", PullRequestRef{"acme", "api", 12}, true},
		{"host case", "https://GitHub.com/acme/my.repo_x-1/pull/3", PullRequestRef{"acme", "my.repo_x-1", 3}, true},
		{"spaces around", "  https://github.com/acme/api/pull/7\n", PullRequestRef{"acme", "api", 7}, true},
		{"other host", "https://evil.example/acme/api/pull/12", PullRequestRef{}, false},
		{"lookalike host", "https://github.com.evil.example/acme/api/pull/12", PullRequestRef{}, false},
		{"http", "http://github.com/acme/api/pull/12", PullRequestRef{}, false},
		{"userinfo", "https://x@github.com/acme/api/pull/12", PullRequestRef{}, false},
		{"issue", "https://github.com/acme/api/issues/12", PullRequestRef{}, false},
		{"zero", "https://github.com/acme/api/pull/0", PullRequestRef{}, false},
		{"leading zero", "https://github.com/acme/api/pull/012", PullRequestRef{}, false},
		{"huge", "https://github.com/acme/api/pull/99999999999", PullRequestRef{}, false},
		{"dot dot repo", "https://github.com/acme/../pull/1", PullRequestRef{}, false},
		{"escaped slash", "https://github.com/acme%2Fx/api/pull/1", PullRequestRef{}, false},
		{"extra path", "https://github.com/acme/api/pull/1/files/x", PullRequestRef{}, false},
		{"relative", "/acme/api/pull/1", PullRequestRef{}, false},
		{"empty", "", PullRequestRef{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePRURL(tc.url, web)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok %v", err, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got); tc.ok && diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// GitHub Enterprise Server and the simulator: the web base may be http and carry a port.
	got, err := ParsePRURL("http://127.0.0.1:8081/acme/api/pull/5", "http://127.0.0.1:8081")
	if err != nil || got != (PullRequestRef{"acme", "api", 5}) {
		t.Errorf("sim URL: %+v %v", got, err)
	}
}

// FuzzParsePRURL: whatever parses names a valid owner, repository and number,
// and rebuilding the canonical URL parses to the same reference.
func FuzzParsePRURL(f *testing.F) {
	f.Add("https://github.com/acme/api/pull/12")
	f.Fuzz(func(t *testing.T, s string) {
		ref, err := ParsePRURL(s, "https://github.com")
		if err != nil {
			return
		}
		if ref.Number <= 0 || !ownerRE.MatchString(ref.Owner) || !repoRE.MatchString(ref.Repo) || strings.Contains(ref.Repo, "/") {
			t.Fatalf("accepted %q as %+v", s, ref)
		}
		again, err := ParsePRURL("https://github.com/"+ref.Owner+"/"+ref.Repo+"/pull/"+strconv.Itoa(ref.Number), "https://github.com")
		if err != nil || again != ref {
			t.Fatalf("canonical form of %q: %+v %v", s, again, err)
		}
	})
}

func TestRepoBase(t *testing.T) {
	cases := map[string]string{
		"https://github.com/acme/api/pull/3":       "https://github.com/acme/api",
		"http://127.0.0.1:9/acme/api/pull/3?x=1#y": "http://127.0.0.1:9/acme/api",
		"https://ghe.example/acme/api/pull/3/":     "https://ghe.example/acme/api",
		"":                                         "",
		"https://github.com/acme/api/issues/3":     "",
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			if got := repoBase(in); got != want {
				t.Errorf("repoBase(%q) = %q, want %q", in, got, want)
			}
		})
	}
}
