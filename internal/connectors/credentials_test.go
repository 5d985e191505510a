package connectors

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/connectorcredential"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

func TestCredentials(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s, _ := NewSealer(key(7))
		c := &Credentials{DB: db.Client, Sealer: s}
		a := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
		b := db.Installation.Create().SetGithubID(2).SetAccountLogin("other").SaveX(ctx)

		if err := c.Set(ctx, a.ID, "http", "jira", "Bearer first-secret", "alice"); err != nil {
			t.Fatal(err)
		}
		if err := c.Set(ctx, a.ID, "http", "jira", "Bearer second-secret", "bob"); err != nil {
			t.Fatal(err)
		}
		got, err := c.Get(ctx, a.ID, "http", "jira")
		if err != nil || got != "Bearer second-secret" {
			t.Fatalf("Get = %q, %v", got, err)
		}
		row := db.ConnectorCredential.Query().Where(connectorcredential.Name("jira")).OnlyX(ctx)
		if bytes.Contains(row.Ciphertext, []byte("second-secret")) {
			t.Fatal("stored in clear")
		}
		if _, err := c.Get(ctx, b.ID, "http", "jira"); !errors.Is(err, ErrNoCredential) {
			t.Fatalf("other installation: %v", err)
		}
		// A ciphertext moved to another installation's row does not open.
		db.ConnectorCredential.Create().SetInstallationID(b.ID).SetConnector("http").SetName("jira").SetCiphertext(row.Ciphertext).ExecX(ctx)
		if _, err := c.Get(ctx, b.ID, "http", "jira"); !errors.Is(err, ErrOpen) {
			t.Fatalf("moved ciphertext: %v", err)
		}
		list, err := c.List(ctx, a.ID)
		if err != nil || len(list) != 1 || list[0].Name != "jira" || list[0].CreatedBy != "bob" {
			t.Fatalf("List = %+v, %v", list, err)
		}
		if err := c.Delete(ctx, a.ID, "http", "jira"); err != nil {
			t.Fatal(err)
		}
		if err := c.Delete(ctx, a.ID, "http", "jira"); !errors.Is(err, ErrNoCredential) {
			t.Fatalf("second delete: %v", err)
		}
		for _, bad := range [][3]string{{"http", "bad name", "x"}, {"http", "ok", ""}, {"", "ok", "x"}} {
			if err := c.Set(ctx, a.ID, bad[0], bad[1], bad[2], ""); err == nil {
				t.Errorf("Set(%q) accepted", bad)
			}
		}
	})
}
