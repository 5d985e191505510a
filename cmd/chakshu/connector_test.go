package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/auditentry"
	"github.com/chakshu-dev/chakshu/internal/connectors"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

func TestConnectorCmd(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			key := bytes.Repeat([]byte{9}, 32)
			t.Setenv("CHAKSHU_SECRET_KEY", base64.StdEncoding.EncodeToString(key))
			db := commandDB(t, d)
			in := db.Installation.Create().SetGithubID(42).SetAccountLogin("acme").SaveX(ctx)

			var out, errb bytes.Buffer
			if err := connectorMain(ctx, []string{"set", "--installation", "acme", "--connector", "http", "--name", "jira"},
				strings.NewReader("Bearer s3cret-value\n"), &out, &errb); err == nil || !strings.Contains(err.Error(), "hosts") {
				t.Fatalf("http credential without --hosts: %v", err)
			}
			err := connectorMain(ctx, []string{"set", "--installation", "acme", "--connector", "http", "--name", "jira", "--by", "ops",
				"--hosts", "Jira.example.com, jira.example.com:8443"},
				strings.NewReader("Bearer s3cret-value\n"), &out, &errb)
			if err != nil {
				t.Fatalf("set: %v %s", err, errb.String())
			}
			s, _ := connectors.NewSealer(key)
			got, err := (&connectors.Credentials{DB: db.Client, Sealer: s}).Get(ctx, in.ID, "http", "jira")
			if err != nil || got != "Bearer s3cret-value" {
				t.Fatalf("stored %q, %v", got, err)
			}
			out.Reset()
			if err := connectorMain(ctx, []string{"list", "--installation", "42"}, nil, &out, &errb); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "jira") || !strings.Contains(out.String(), "ops") ||
				!strings.Contains(out.String(), "jira.example.com,jira.example.com:8443") || strings.Contains(out.String(), "s3cret") {
				t.Fatalf("list:\n%s", out.String())
			}
			if err := connectorMain(ctx, []string{"delete", "--installation", "acme", "--name", "jira"}, nil, &out, &errb); err != nil {
				t.Fatal(err)
			}
			if err := connectorMain(ctx, []string{"delete", "--installation", "acme", "--name", "jira"}, nil, &out, &errb); err == nil {
				t.Fatal("second delete succeeded")
			}
			// The set and the first delete are in the audit log, as the command's
			// user; the refused delete left nothing.
			var log []string
			for _, e := range db.AuditEntry.Query().Order(auditentry.ByID()).AllX(ctx) {
				if !strings.HasPrefix(e.Actor, "cli") || e.InstallationID != in.ID || strings.Contains(e.Detail, "s3cret") {
					t.Fatalf("audit entry %+v", e)
				}
				log = append(log, e.Action+" "+e.Target)
			}
			if got := strings.Join(log, "; "); got != "credential.set connector http credential jira; credential.delete connector http credential jira" {
				t.Fatalf("audit log: %s", got)
			}
			if err := connectorMain(ctx, []string{"set", "--installation", "nobody", "--name", "x"}, strings.NewReader("v"), &out, &errb); err == nil {
				t.Fatal("unknown installation accepted")
			}
			if err := connectorMain(ctx, []string{"set", "--installation", "acme"}, nil, &out, &errb); err != errUsage {
				t.Fatalf("missing name: %v", err)
			}
		})
	}
}

// commandDB points the commands' settings at a fresh, migrated database of
// dialect d (SQLite in a temporary data dir, or a PostgreSQL database) and
// opens it for the test.
func commandDB(t *testing.T, d string) *store.DB {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	t.Setenv("CHAKSHU_DATA_DIR", dir)
	opts := store.Options{DataDir: dir}
	if d == "postgres" {
		opts.DatabaseURL = storetest.NewPostgresDatabase(t)
		t.Setenv("CHAKSHU_DATABASE_URL", opts.DatabaseURL)
	}
	db, err := store.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}
