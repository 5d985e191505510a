package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// Installations reads an installation as the App (gh.Apps).
type Installations interface {
	InstallationOf(ctx context.Context, id int64) (*github.Installation, error)
}

// AccountBackfill sets installation.account_id on installations recorded
// before Chakshu kept it (only installation events set it): org owners are
// recognised by that id (server/auth/orgadmin.go), so without it an
// upgraded install has no org-owner admins until the next installation
// event. It asks GitHub for each such installation's account, then waits an
// hour before looking again (a failed or deleted one is tried then).
type AccountBackfill struct {
	DB     *store.DB
	Log    *slog.Logger
	GitHub Installations
	// Every is the pause between passes; 0 means an hour.
	Every time.Duration
}

var _ Loop = (*AccountBackfill)(nil)

// Name implements Loop.
func (b *AccountBackfill) Name() string { return "account-backfill" }

// Run implements Loop.
func (b *AccountBackfill) Run(ctx context.Context) error {
	every := b.Every
	if every <= 0 {
		every = time.Hour
	}
	for {
		if _, err := b.Pass(ctx); err != nil && ctx.Err() == nil {
			b.Log.Warn("account backfill", "err", redact.Error(err))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(every):
		}
	}
}

// Pass backfills every installation without an account id once and
// returns how many it set.
func (b *AccountBackfill) Pass(ctx context.Context) (int, error) {
	ins, err := b.DB.Installation.Query().Where(installation.AccountID(0)).
		Select(installation.FieldID, installation.FieldGithubID).All(ctx)
	if err != nil {
		return 0, fmt.Errorf("list installations without an account id: %w", err)
	}
	n := 0
	var errs []error
	for _, in := range ins {
		gi, err := b.GitHub.InstallationOf(ctx, in.GithubID)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		acct := gi.GetAccount()
		if acct.GetID() == 0 {
			continue
		}
		up := b.DB.Installation.Update().Where(installation.ID(in.ID), installation.AccountID(0)).SetAccountID(acct.GetID())
		if acct.GetLogin() != "" {
			up.SetAccountLogin(acct.GetLogin())
		}
		if t := acct.GetType(); t != "" {
			up.SetAccountType(t)
		}
		k, err := up.Save(ctx)
		if err != nil {
			return n, fmt.Errorf("record installation %d's account: %w", in.GithubID, err)
		}
		n += k
	}
	if n > 0 {
		b.Log.Info("backfilled installation account ids", "count", n)
	}
	return n, errors.Join(errs...)
}
