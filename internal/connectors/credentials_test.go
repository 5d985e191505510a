package connectors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
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

		if err := c.Set(ctx, a.ID, "http", "jira", "Bearer first-secret", "alice", []string{"jira.example.com"}); err != nil {
			t.Fatal(err)
		}
		if err := c.Set(ctx, a.ID, "http", "jira", "Bearer second-secret", "bob", []string{"Jira.Example.com:8443", "jira.example.com", " "}); err != nil {
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
		if err != nil || len(list) != 1 || list[0].Name != "jira" || list[0].CreatedBy != "bob" ||
			strings.Join(list[0].Hosts, ",") != "jira.example.com,jira.example.com:8443" {
			t.Fatalf("List = %+v, %v", list, err)
		}
		if err := c.Delete(ctx, a.ID, "http", "jira"); err != nil {
			t.Fatal(err)
		}
		if err := c.Delete(ctx, a.ID, "http", "jira"); !errors.Is(err, ErrNoCredential) {
			t.Fatalf("second delete: %v", err)
		}
		for _, bad := range [][3]string{{"http", "bad name", "x"}, {"http", "ok", ""}, {"", "ok", "x"}} {
			if err := c.Set(ctx, a.ID, bad[0], bad[1], bad[2], "", []string{"h.example"}); err == nil {
				t.Errorf("Set(%q) accepted", bad)
			}
		}
		// An http credential names its hosts; each is an exact host with an optional port.
		for _, hosts := range [][]string{nil, {""}, {"*.example.com"}, {"https://jira.example.com"}, {"jira.example.com/rest"},
			{"user@jira.example.com"}, {"jira.example.com:0"}, {"jira.example.com:65536"}, {"jira.example.com:"}, {"a..b"}, {"::1"}} {
			if err := c.Set(ctx, a.ID, "http", "jira", "x", "", hosts); err == nil {
				t.Errorf("hosts %q accepted", hosts)
			}
		}
		if err := c.Set(ctx, a.ID, "http", "jira", "x", "", []string{"[::1]:443", "10.0.0.1", "h:65535"}); err != nil {
			t.Errorf("valid hosts refused: %v", err)
		}
		many := make([]string, MaxCredentialHosts+1)
		for i := range many {
			many[i] = fmt.Sprintf("h%d.example", i)
		}
		if err := c.Set(ctx, a.ID, "http", "jira", "x", "", many[:MaxCredentialHosts]); err != nil {
			t.Errorf("%d hosts refused: %v", MaxCredentialHosts, err)
		}
		if err := c.Set(ctx, a.ID, "http", "jira", "x", "", many); err == nil {
			t.Errorf("%d hosts accepted", len(many))
		}
		// Another connector may go without hosts.
		if err := c.Set(ctx, a.ID, "other", "jira", "x", "", nil); err != nil {
			t.Errorf("non-http without hosts: %v", err)
		}
	})
}
