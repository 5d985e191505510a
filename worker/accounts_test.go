package worker_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/internal/gh/ghtest"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/worker"
)

// Installations recorded before Chakshu kept the account id (an upgraded
// install) get it from GitHub, with the account's type, so org owners are
// recognised without waiting for an installation event.
func TestAccountBackfill(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := ghsimtest.New(t)
		appID, pem := s.CreateApp("chakshu")
		s.CreateOrg("acme")
		s.CreateUser("bob")
		s.CreateRepo("acme", "widget", map[string]string{"a.go": "package a\n"})
		s.CreateRepo("bob", "tool", map[string]string{"a.go": "package a\n"})
		org := s.Install(appID, "acme", []string{"acme/widget"}, nil)
		user := s.Install(appID, "bob", []string{"bob/tool"}, nil)
		// As an older Chakshu recorded them: no account id, the default type.
		db.Installation.Create().SetGithubID(org).SetAccountLogin("acme").ExecX(ctx)
		db.Installation.Create().SetGithubID(user).SetAccountLogin("bob").ExecX(ctx)
		b := &worker.AccountBackfill{DB: db, Log: slog.New(slog.DiscardHandler), GitHub: ghtest.Apps(t, s, appID, pem)}
		n, err := b.Pass(ctx)
		if err != nil || n != 2 {
			t.Fatalf("backfilled %d (%v), want 2", n, err)
		}
		for _, tc := range []struct {
			id    int64
			login string
			typ   string
		}{{org, "acme", "Organization"}, {user, "bob", "User"}} {
			in := db.Installation.Query().Where(installation.GithubID(tc.id)).OnlyX(ctx)
			if in.AccountID != s.UserID(tc.login) || in.AccountID == 0 || in.AccountType != tc.typ {
				t.Fatalf("%s: account id %d type %s, want %d %s", tc.login, in.AccountID, in.AccountType, s.UserID(tc.login), tc.typ)
			}
		}
		if n, err := b.Pass(ctx); err != nil || n != 0 {
			t.Fatalf("second pass set %d (%v), want none left", n, err)
		}
	})
}
