package learnings

import (
	"context"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/reviewlearning"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

func TestProposalGlob(t *testing.T) {
	long := strings.Repeat("d/", 100) + strings.Repeat("x", 60) + ".go"
	for in, want := range map[string]string{
		"lib/a.go":         "lib/a.go",
		"lib/[id]/{x}*.ts": `lib/\[id\]/\{x\}\*.ts`,
		long:               strings.Repeat("d/", 99) + "d/**",
		"":                 "",
	} {
		got := ProposalGlob(in)
		if got != want {
			t.Errorf("ProposalGlob(%q) = %q, want %q", in, got, want)
		}
		// The glob matches the file it came from.
		if in != "" && got != "" && !reviewerconfig.MatchGlob(got, in, true) {
			t.Errorf("ProposalGlob(%q) = %q does not match it", in, got)
		}
	}
}

func TestProposalDirectiveIsCappedAndOneLine(t *testing.T) {
	p := Proposal{Reviewer: "security", Path: "lib/a.go", Category: "bug", Title: strings.Repeat("t", 500),
		Reason: "@bob replied that it is wrong", Reply: strings.Repeat("é", 400) + "\n\nmore"}
	d := ProposalDirective(p)
	if !utf8.ValidString(d) || strings.ContainsAny(d, "\n\r") || len(d) > MaxDirective {
		t.Fatalf("directive of %d bytes, valid=%v: %q", len(d), utf8.ValidString(d), d)
	}
	if strings.Count(d, "…") != 2 || strings.Contains(d, "more") {
		t.Errorf("title and reply not cut: %q", d)
	}
	// The longest inputs still fit a learning.
	p.Reviewer, p.Path, p.Category, p.Reason = strings.Repeat("r", 1000), strings.Repeat("p", 1000), strings.Repeat("c", 1000), strings.Repeat("w", 1000)
	if d := ProposalDirective(p); len(d) > MaxDirective {
		t.Errorf("directive of %d bytes, over %d", len(d), MaxDirective)
	}
}

// Two readers deciding the same dismissal at once store one proposal.
func TestProposeOncePerFinding(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := setup(t, db)
		p := Proposal{InstallationID: f.inst.ID, RepositoryID: f.api.ID, FindingID: 42, PRNumber: 3, Reviewer: "security",
			Path: "lib/a.go", Category: "bug", Title: "nil map", Reason: "thread resolved by @bob with no change under it"}
		var wg sync.WaitGroup
		ids := make([]int, 4)
		created := make([]bool, 4)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l, c, err := Propose(ctx, db.Client, p)
				if err != nil {
					t.Error(err)
					return
				}
				ids[i], created[i] = l.ID, c
			}()
		}
		wg.Wait()
		n := 0
		for i := range ids {
			if ids[i] != ids[0] {
				t.Errorf("proposals %v differ", ids)
			}
			if created[i] {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d callers created the proposal, want 1", n)
		}
		// A different title on a re-read (a reworded report) is still the same finding.
		p.Title = "nil map, reworded"
		if l, c, err := Propose(ctx, db.Client, p); err != nil || c || l.ID != ids[0] {
			t.Errorf("re-proposed: %v %v %v", l, c, err)
		}
		ofInst := reviewlearning.HasInstallationWith(installation.ID(f.inst.ID))
		if n := db.ReviewLearning.Query().Where(ofInst, reviewlearning.StatusEQ(reviewlearning.StatusProposed)).CountX(ctx); n != 1 {
			t.Fatalf("%d proposed learnings, want 1", n)
		}
		if n := db.ReviewLearning.Query().Where(ofInst, reviewlearning.Enabled(true)).CountX(ctx); n != 0 {
			t.Errorf("a proposal is enabled among the learnings in use (%d)", n)
		}
		if _, _, err := Propose(ctx, db.Client, Proposal{InstallationID: f.inst.ID, RepositoryID: f.api.ID, Title: "x", Path: "a"}); err == nil {
			t.Error("a proposal without its finding was stored")
		}
	})
}
