package reviewerconfig

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/audit"
)

// ErrBadReviewersRepo is a reviewers repository an installation cannot use.
var ErrBadReviewersRepo = errors.New("bad reviewers repository")

// GitHub's account names: letters, digits and single hyphens, at most 39;
// repository names: letters, digits, '.', '_' and '-', at most 100.
var (
	ownerName = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`)
	repoName  = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
)

// SetReviewersRepo points an installation at another reviewers repository
// ("owner/name"; "" goes back to <account>/chakshu-reviewers) and asks the
// workers to sync it at once. The repository must belong to the
// installation's account: the installation's token reaches no other. The
// one use case behind `chakshu installation set-reviewers-repo` and the
// setReviewersRepository mutation; callers check the caller is an admin.
func SetReviewersRepo(ctx context.Context, c *ent.Client, installationID int, repo string) (*ent.Installation, error) {
	in, err := c.Installation.Get(ctx, installationID)
	if err != nil {
		return nil, fmt.Errorf("set reviewers repository: %w", err)
	}
	repo = strings.TrimSpace(repo)
	if repo != "" {
		owner, name, ok := strings.Cut(repo, "/")
		switch {
		case !ok || !ownerName.MatchString(owner) || !repoName.MatchString(name) || name == "." || name == "..":
			return nil, fmt.Errorf("%w: want owner/name, got %q", ErrBadReviewersRepo, repo)
		case !strings.EqualFold(owner, in.AccountLogin):
			return nil, fmt.Errorf("%w: %s is not in %s, the installation's account (its token reaches only that account's repositories)",
				ErrBadReviewersRepo, repo, in.AccountLogin)
		}
		if strings.EqualFold(repo, in.AccountLogin+"/"+DefaultReviewersRepoName) {
			repo = "" // the default, said the default way
		}
	}
	in, err = in.Update().SetReviewersRepo(repo).SetSyncRequestedAt(time.Now().UTC()).SetLastSyncError("").Save(ctx)
	if err != nil {
		return nil, fmt.Errorf("set reviewers repository: %w", err)
	}
	return in, nil
}

// SetReviewersRepoAs is SetReviewersRepo recorded in the audit log as actor's
// action, both written with c: pass a transaction's client so the change and
// its record commit or roll back together. A refused repository records nothing.
func SetReviewersRepoAs(ctx context.Context, c *ent.Client, actor string, installationID int, repo string) (*ent.Installation, error) {
	before, err := c.Installation.Get(ctx, installationID)
	if err != nil {
		return nil, fmt.Errorf("set reviewers repository: %w", err)
	}
	in, err := SetReviewersRepo(ctx, c, installationID, repo)
	if err != nil {
		return nil, err
	}
	err = audit.Record(ctx, c, audit.Entry{Actor: actor, Action: audit.InstallationReviewersRepo, InstallationID: in.ID,
		Target: "installation " + in.AccountLogin, Detail: ReviewersRepo(before) + " → " + ReviewersRepo(in)})
	if err != nil {
		return nil, err
	}
	return in, nil
}
