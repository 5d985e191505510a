package learnings

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

type fixture struct {
	inst, other        *ent.Installation
	api, web, otherRep *ent.Repository
}

func setup(t *testing.T, db *store.DB) fixture {
	t.Helper()
	ctx := context.Background()
	var f fixture
	f.inst = db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
	f.other = db.Installation.Create().SetGithubID(2).SetAccountLogin("umbrella").SaveX(ctx)
	repo := func(id int64, in *ent.Installation, owner, name string) *ent.Repository {
		return db.Repository.Create().SetGithubID(id).SetOwner(owner).SetName(name).SetFullName(owner + "/" + name).
			SetInstallation(in).SaveX(ctx)
	}
	f.api = repo(10, f.inst, "acme", "api")
	f.web = repo(11, f.inst, "acme", "web")
	f.otherRep = repo(12, f.other, "umbrella", "api")
	return f
}

func TestCreateValidatesAndDedupes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := setup(t, db)
		n := New{Scope: ScopeRepo, InstallationID: f.inst.ID, RepositoryID: f.api.ID, Glob: "**/*.sql",
			Directive: "  Migrations   must be\nreversible. ", Source: SourceReply, PRNumber: 7, CommentID: 99, Author: "octo"}
		l, created, err := Create(ctx, db.Client, n)
		if err != nil || !created {
			t.Fatalf("Create = %v, %v", created, err)
		}
		if l.Directive != "Migrations must be reversible." || l.PrNumber != 7 || l.CommentID != 99 || l.Author != "octo" ||
			l.Source != SourceReply || l.Glob != "**/*.sql" || string(l.Scope) != "repo" || !l.Enabled {
			t.Errorf("stored %+v", l)
		}
		// The same directive (other whitespace and case, other provenance) is a duplicate.
		n2 := n
		n2.Directive, n2.CommentID, n2.Author = "migrations must be reversible.", 100, "someone"
		again, created, err := Create(ctx, db.Client, n2)
		if err != nil || created || again.ID != l.ID || again.Author != "octo" {
			t.Fatalf("duplicate: created=%v err=%v id=%d (want %d)", created, err, again.ID, l.ID)
		}
		// Other glob, other repository, other scope: new learnings.
		for _, m := range []func(*New){
			func(x *New) { x.Glob = "" },
			func(x *New) { x.RepositoryID = f.web.ID },
			func(x *New) { x.Scope = ScopeInstallation },
		} {
			x := n
			m(&x)
			if _, created, err := Create(ctx, db.Client, x); err != nil || !created {
				t.Fatalf("variant %+v: created=%v err=%v", x, created, err)
			}
		}
		// Installation scope ignores the repository for uniqueness.
		x := n
		x.Scope, x.RepositoryID = ScopeInstallation, f.web.ID
		if _, created, err := Create(ctx, db.Client, x); err != nil || created {
			t.Fatalf("installation-scope duplicate from another repo: created=%v err=%v", created, err)
		}

		bad := []struct {
			name string
			mod  func(*New)
		}{
			{"empty directive", func(x *New) { x.Directive = " \n " }},
			{"long directive", func(x *New) { x.Directive = strings.Repeat("x", MaxDirective+1) }},
			{"invalid glob", func(x *New) { x.Glob = "src/[a-" }},
			{"long glob", func(x *New) { x.Glob = strings.Repeat("a", 257) }},
			{"complex glob", func(x *New) { x.Glob = "*a*b*c*d*e*f*g*h*i" }},
			{"absolute glob", func(x *New) { x.Glob = "/etc/*" }},
			{"bad scope", func(x *New) { x.Scope = "org" }},
			{"repo scope without repo", func(x *New) { x.RepositoryID = 0 }},
			{"bad source", func(x *New) { x.Source = "email" }},
		}
		for _, b := range bad {
			t.Run(b.name, func(t *testing.T) {
				x := n
				b.mod(&x)
				if _, _, err := Create(ctx, db.Client, x); !errors.Is(err, ErrInvalid) {
					t.Errorf("want ErrInvalid, got %v", err)
				}
			})
		}
	})
}

func TestSelect(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := setup(t, db)
		mk := func(scope Scope, inst *ent.Installation, repo *ent.Repository, glob, directive string) int {
			t.Helper()
			n := New{Scope: scope, InstallationID: inst.ID, Glob: glob, Directive: directive}
			if repo != nil {
				n.RepositoryID = repo.ID
			}
			l, _, err := Create(ctx, db.Client, n)
			if err != nil {
				t.Fatal(err)
			}
			return l.ID
		}
		goRule := mk(ScopeRepo, f.inst, f.api, "**/*.go", "Check errors are wrapped.")
		sqlRule := mk(ScopeRepo, f.inst, f.api, "db/*.sql", "Migrations must be reversible.")
		all := mk(ScopeRepo, f.inst, f.api, "", "We target Go 1.26.")
		org := mk(ScopeInstallation, f.inst, nil, "*.md", "Docs use British spelling.")
		mk(ScopeRepo, f.inst, f.web, "", "Web only.")                         // other repository
		mk(ScopeInstallation, f.other, f.otherRep, "", "Other installation.") // other installation
		off := mk(ScopeRepo, f.inst, f.api, "", "Disabled one.")
		db.ReviewLearning.UpdateOneID(off).SetEnabled(false).ExecX(ctx)

		ids := func(s Selection) []int {
			out := make([]int, len(s.Learnings))
			for i, l := range s.Learnings {
				out[i] = l.ID
			}
			return out
		}
		files := []string{"cmd/main.go", "docs/README.md"}
		sel, err := Select(ctx, db.Client, f.inst.ID, f.api.ID, files, Caps{})
		if err != nil {
			t.Fatal(err)
		}
		// Never used: newest created first. sqlRule does not match a file.
		if d := cmp.Diff([]int{org, all, goRule}, ids(sel)); d != "" {
			t.Errorf("selection (-want +got):\n%s", d)
		}
		if sel.Omitted != 0 || sel.Marker() != "" {
			t.Errorf("nothing should be omitted: %+v", sel)
		}
		if sel.Learnings[2] != (runnerproto.Learning{ID: goRule, Glob: "**/*.go", Directive: "Check errors are wrapped."}) {
			t.Errorf("learning = %+v", sel.Learnings[2])
		}

		// Using goRule (as publishing records it) makes it the most recently used.
		time.Sleep(10 * time.Millisecond)
		db.ReviewLearning.UpdateOneID(goRule).AddUseCount(1).SetLastUsedAt(time.Now()).ExecX(ctx)
		sel, _ = Select(ctx, db.Client, f.inst.ID, f.api.ID, append(files, "db/001.sql"), Caps{})
		if d := cmp.Diff([]int{goRule, org, all, sqlRule}, ids(sel)); d != "" {
			t.Errorf("after bump (-want +got):\n%s", d)
		}

		// Count cap.
		sel, _ = Select(ctx, db.Client, f.inst.ID, f.api.ID, append(files, "db/001.sql"), Caps{MaxCount: 2})
		if d := cmp.Diff([]int{goRule, org}, ids(sel)); d != "" || sel.Omitted != 2 {
			t.Errorf("count cap: omitted=%d (-want +got):\n%s", sel.Omitted, d)
		}
		if sel.Marker() != "[2 more matching learnings were left out to fit the limit]" {
			t.Errorf("marker = %q", sel.Marker())
		}
		// Byte cap: goRule (7+25 bytes) fits in 40, org (4+26) does not.
		sel, _ = Select(ctx, db.Client, f.inst.ID, f.api.ID, append(files, "db/001.sql"), Caps{MaxBytes: 40})
		if d := cmp.Diff([]int{goRule}, ids(sel)); d != "" || sel.Omitted != 3 {
			t.Errorf("byte cap: omitted=%d (-want +got):\n%s", sel.Omitted, d)
		}

		// Another repository of the installation sees only installation-wide learnings and its own.
		sel, _ = Select(ctx, db.Client, f.inst.ID, f.web.ID, []string{"x.ts"}, Caps{})
		if len(sel.Learnings) != 1 || sel.Learnings[0].Directive != "Web only." {
			t.Errorf("web selection = %+v", sel.Learnings)
		}
	})
}

func TestCreateRace(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := setup(t, db)
		n := New{Scope: ScopeInstallation, InstallationID: f.inst.ID, Directive: "Prefer table tests."}
		type res struct {
			id      int
			created bool
			err     error
		}
		out := make(chan res, 4)
		for range 4 {
			go func() {
				l, created, err := Create(ctx, db.Client, n)
				if err != nil {
					out <- res{err: err}
					return
				}
				out <- res{id: l.ID, created: created}
			}()
		}
		ids, created := map[int]bool{}, 0
		for range 4 {
			r := <-out
			if r.err != nil {
				t.Fatal(r.err)
			}
			ids[r.id] = true
			if r.created {
				created++
			}
		}
		if len(ids) != 1 || created != 1 {
			t.Errorf("4 racing creates: %d ids, %d created; want 1 and 1", len(ids), created)
		}
	})
}
