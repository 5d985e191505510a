package job

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-github/v88/github"
)

func TestDiffTooLarge(t *testing.T) {
	resp := func(status int, codes ...string) error {
		er := &github.ErrorResponse{Response: &http.Response{StatusCode: status}, Message: "Sorry"}
		for _, c := range codes {
			er.Errors = append(er.Errors, github.Error{Resource: "PullRequest", Field: "diff", Code: c})
		}
		return er
	}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"too large", resp(http.StatusNotAcceptable, "too_large"), true},
		{"wrapped", fmt.Errorf("get: %w", resp(http.StatusNotAcceptable, "too_large")), true},
		{"406 for another reason", resp(http.StatusNotAcceptable), false},
		{"another status", resp(http.StatusUnprocessableEntity, "too_large"), false},
		{"server error", resp(http.StatusBadGateway), false},
		{"no error", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := diffTooLarge(c.err); got != c.want {
				t.Fatalf("diffTooLarge = %v, want %v", got, c.want)
			}
		})
	}
}

func TestDiffOfFilesNamesFilesWithoutPatch(t *testing.T) {
	got := diffOfFiles([]*github.CommitFile{
		{Filename: github.Ptr("a.go"), Status: github.Ptr("modified"), Patch: github.Ptr("@@ -1 +1 @@\n-x\n+y")},
		{Filename: github.Ptr("logo.png"), Status: github.Ptr("added")},
	})
	want := "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n" +
		"diff --git a/logo.png b/logo.png\n--- /dev/null\n+++ b/logo.png\n"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestWithoutPatch(t *testing.T) {
	files := []*github.CommitFile{
		{Filename: github.Ptr("a.go"), Status: github.Ptr("modified"), Changes: github.Ptr(2), Patch: github.Ptr("@@ -1 +1 @@\n-x\n+y")},
		{Filename: github.Ptr("logo.png"), Status: github.Ptr("added")},
		{Filename: github.Ptr("big.sql"), Status: github.Ptr("modified"), Changes: github.Ptr(90000)},
		{Filename: github.Ptr("new name.go"), PreviousFilename: github.Ptr("old name.go"), Status: github.Ptr("renamed"), Changes: github.Ptr(0)},
	}
	if n := withoutPatch(files); n != 2 {
		t.Fatalf("withoutPatch = %d, want 2 (a pure rename has nothing to patch)", n)
	}
	if n := withoutPatch(files[:1]); n != 0 {
		t.Fatalf("withoutPatch of a patched file = %d", n)
	}
}
