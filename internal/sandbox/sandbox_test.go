package sandbox

import (
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/reviewers"
)

// Every seeded reviewer must pass the same strict parsing a real reviewers
// repository gets, or the sandbox would start with sync errors.
func TestSeededReviewersAreValid(t *testing.T) {
	files, err := readTree("seed/reviewers")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for p, c := range files {
		if !strings.HasSuffix(p, "/reviewer.yaml") {
			continue
		}
		n++
		name := strings.TrimSuffix(p, "/reviewer.yaml")
		if _, err := reviewers.ParseReviewerYAML(name, []byte(c)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if n != 3 {
		t.Fatalf("%d seeded reviewers, want 3", n)
	}
}
