package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/auditentry"
	"github.com/chakshu-dev/chakshu/internal/audit"
	"github.com/chakshu-dev/chakshu/internal/store"
)

func TestInstallationSetReviewersRepo(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	t.Setenv("CHAKSHU_DATA_DIR", dir)
	db, err := store.Open(ctx, store.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	in := db.Installation.Create().SetGithubID(42).SetAccountLogin("acme").SaveX(ctx)
	var out, errb bytes.Buffer
	if err := run(ctx, []string{"installation", "set-reviewers-repo", "--installation", "42", "acme/bots"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "now syncs reviewers from acme/bots") || db.Installation.GetX(ctx, in.ID).ReviewersRepo != "acme/bots" {
		t.Fatalf("out %q", out.String())
	}
	// The change is in the audit log, as the operating-system user's.
	entries := db.AuditEntry.Query().AllX(ctx)
	if len(entries) != 1 || entries[0].Action != audit.InstallationReviewersRepo || entries[0].Actor != audit.CLIActor() ||
		entries[0].InstallationID != in.ID || entries[0].Target != "installation acme" || entries[0].Detail != "acme/chakshu-reviewers → acme/bots" {
		t.Fatalf("audit entries: %+v", entries)
	}
	if err := run(ctx, []string{"installation", "set-reviewers-repo", "--installation", "acme", "evil/bots"}, &out, &errb); err == nil {
		t.Fatal("another account's repository was accepted")
	}
	// A refused change records nothing; going back to the default does.
	if n := db.AuditEntry.Query().CountX(ctx); n != 1 {
		t.Fatalf("%d audit entries after a refused change, want 1", n)
	}
	if err := run(ctx, []string{"installation", "set-reviewers-repo", "--installation", "acme", ""}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if last := db.AuditEntry.Query().Order(ent.Desc(auditentry.FieldID)).FirstX(ctx); last.Detail != "acme/bots → acme/chakshu-reviewers" {
		t.Fatalf("back to the default: %+v", last)
	}
	if err := run(ctx, []string{"installation", "set-reviewers-repo", "--installation", "nobody", "nobody/x"}, &out, &errb); err == nil ||
		!strings.Contains(err.Error(), "no installation") {
		t.Fatalf("unknown installation: %v", err)
	}
	if err := run(ctx, []string{"installation", "set-reviewers-repo", "acme/bots"}, &out, &errb); err != errUsage {
		t.Fatalf("without --installation: %v, want the usage error", err)
	}
}
