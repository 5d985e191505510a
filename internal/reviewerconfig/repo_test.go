package reviewerconfig

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// An admin points an installation at another repository of its account;
// a malformed name or another account's repository is refused with why.
func TestSetReviewersRepo(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		in := db.Installation.Create().SetGithubID(7).SetAccountLogin("acme").SetLastSyncError("old error").SaveX(ctx)
		if got := ReviewersRepo(in); got != "acme/chakshu-reviewers" {
			t.Fatalf("default %s", got)
		}
		got, err := SetReviewersRepo(ctx, db.Client, in.ID, " ACME/review-bots ")
		if err != nil {
			t.Fatal(err)
		}
		if ReviewersRepo(got) != "ACME/review-bots" || got.SyncRequestedAt == nil || got.LastSyncError != "" {
			t.Fatalf("after set: repo %s, sync requested %v, error %q", ReviewersRepo(got), got.SyncRequestedAt, got.LastSyncError)
		}
		long := strings.Repeat("r", 100)
		if _, err := SetReviewersRepo(ctx, db.Client, in.ID, "acme/"+long); err != nil {
			t.Fatalf("a 100-character name: %v", err)
		}
		for _, bad := range []string{"acme", "acme/", "/x", "acme/a/b", "acme/" + long + "r", "acme/..", "acme/with space", "other/reviewers", "-acme/x"} {
			if _, err := SetReviewersRepo(ctx, db.Client, in.ID, bad); !errors.Is(err, ErrBadReviewersRepo) {
				t.Errorf("%q: %v, want ErrBadReviewersRepo", bad, err)
			}
		}
		if _, err := SetReviewersRepo(ctx, db.Client, in.ID, "other/reviewers"); err == nil || !strings.Contains(err.Error(), "installation's account") {
			t.Errorf("another account's repository: %v", err)
		}
		got, err = SetReviewersRepo(ctx, db.Client, in.ID, "")
		if err != nil || got.ReviewersRepo != "" || ReviewersRepo(got) != "acme/chakshu-reviewers" {
			t.Fatalf("reset: %v %+v", err, got)
		}
	})
}
