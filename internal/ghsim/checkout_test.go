package ghsim

import (
	"fmt"
	"strings"
	"testing"
)

// FetchRef serves what GitHub's git serves actions/checkout: a commit by its
// full SHA while the repository holds it (a PR's older head, a commit a
// force push dropped until garbage collection), refs/pull/<n>/head as the PR's head now,
// a branch by name; git's errors otherwise.
func TestFetchRef(t *testing.T) {
	s := New(Options{Logf: func(string, ...any) {}}) // FetchRef is called directly: no traffic to validate
	t.Cleanup(s.Close)
	s.CreateOrg("acme")
	s.CreateUser("alice")
	s.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n"})
	const repo = "acme/widget"
	s.CreateBranch(repo, "feature", "main")
	first := s.Commit(repo, "feature", map[string]string{"a.go": "package a // 1\n"}, "one")
	n := s.OpenPR(repo, "feature", "main", "PR", "", "alice", false)
	second := s.Commit(repo, "feature", map[string]string{"a.go": "package a // 2\n"}, "two")
	third := s.ForcePush(repo, "feature", map[string]string{"a.go": "package a // 3\n"}) // drops second

	for _, c := range []struct{ ref, sha, a string }{
		{first, first, "package a // 1\n"},
		{strings.ToUpper(first), first, "package a // 1\n"},
		{second, second, "package a // 2\n"},
		{fmt.Sprintf("refs/pull/%d/head", n), third, "package a // 3\n"},
		{"main", s.BranchSHA(repo, "main"), ""},
	} {
		sha, files, err := s.FetchRef(repo, c.ref)
		if err != nil || sha != c.sha || files["a.go"] != c.a {
			t.Errorf("%s: %s %q %v; want %s", c.ref, sha, files["a.go"], err, c.sha)
		}
	}
	if got := s.CollectGarbage(repo); got != 1 {
		t.Fatalf("collected %d, want the force-pushed-away commit", got)
	}
	for ref, want := range map[string]string{
		second:              "fatal: remote error: upload-pack: not our ref " + second,
		first[:7]:           "fatal: couldn't find remote ref " + first[:7], // a short SHA is a branch or tag name to checkout
		"refs/pull/99/head": "fatal: couldn't find remote ref refs/pull/99/head",
		"refs/heads/nope":   "fatal: couldn't find remote ref refs/heads/nope",
	} {
		if _, _, err := s.FetchRef(repo, ref); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", ref, err, want)
		}
	}
	if sha, _, err := s.FetchRef(repo, first); err != nil || sha != first {
		t.Errorf("the PR's older head after collection: %s %v", sha, err)
	}
}
