package storetest

import (
	"context"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// SeedRepoReviewer creates installation acme with repository acme/api and
// reviewer security, for tests that need a run's parents.
func SeedRepoReviewer(t *testing.T, ctx context.Context, db *store.DB) (*ent.Repository, *ent.Reviewer) {
	t.Helper()
	inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
	repo := db.Repository.Create().SetGithubID(10).SetOwner("acme").SetName("api").SetFullName("acme/api").SetInstallation(inst).SaveX(ctx)
	rv := db.Reviewer.Create().SetName("security").SetInstallation(inst).SaveX(ctx)
	return repo, rv
}
