package scriptedmodel

import (
	"strings"
	"testing"
)

func FuzzReviewDiff(f *testing.F) {
	f.Add(diff)
	f.Add("@@ -1 +1 @@\n+x")
	f.Add("+++ b/a.go\n@@ -0,0 +1,2 @@\n+_ = f()\n+password = \"abcd\"\n")
	f.Add("+++ b/\n@@ -1,0 +99999999999999999999,1 @@\n+TODO")
	f.Fuzz(func(t *testing.T, d string) {
		for _, l := range addedLines(d) {
			if l.Line < 0 {
				t.Fatalf("negative line %+v", l)
			}
		}
		for _, fd := range review(d) {
			if fd.Path == "" || fd.Line < 1 {
				continue // the finding would be refused by validation, as the submit tool does
			}
			if err := fd.Validate(); err != nil && !strings.Contains(err.Error(), "path") {
				t.Fatalf("finding %+v invalid: %v", fd, err)
			}
		}
	})
}
