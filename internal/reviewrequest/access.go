// Package reviewrequest is the "request a review" use case that webhook handling
// (worker/events) and the portal (graph's requestReview) share: who may ask,
// the repository's .github/chakshu.yml read from its default branch, which
// reviewers run, and queueing one run per reviewer. Edges translate payloads
// into its inputs and its outcomes into PR comments or GraphQL errors.
package reviewrequest

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
)

// Access is the one rule for who may ask Chakshu for a review, a reply or a
// learning in a repository (DESIGN §2.1): a login on the allow-list
// (CHAKSHU_REVIEW_ALLOWLIST), the repository's owner, or a person whose
// permission on the repository is write, maintain or admin.
type Access struct {
	allow map[string]bool
}

// NewAccess returns the rule with its allow-list of GitHub logins.
func NewAccess(allowList []string) Access {
	a := Access{allow: map[string]bool{}}
	for _, l := range allowList {
		if l = strings.ToLower(strings.TrimSpace(l)); l != "" {
			a.allow[l] = true
		}
	}
	return a
}

// CanWrite says whether login may ask in repo. association is GitHub's
// author_association of the comment that asks ("" when there is none, as in
// the portal): contributors, first-timers and strangers cannot have write
// access, so only owners, members and collaborators are looked up.
func (a Access) CanWrite(ctx context.Context, gc *github.Client, repo *ent.Repository, login, association string) (bool, error) {
	if login == "" {
		return false, nil
	}
	if a.allow[strings.ToLower(login)] || strings.EqualFold(login, repo.Owner) {
		return true, nil
	}
	switch association {
	case "OWNER":
		return true, nil
	case "MEMBER", "COLLABORATOR", "":
	default:
		return false, nil
	}
	// GET /repos/{owner}/{repo}/collaborators/{username}/permission answers
	// 404 for an unknown login. "permission" is the legacy level (admin,
	// write, read, none: maintain reports as write, and a custom role as the
	// level of its base role); role_name names the role itself.
	p, resp, err := gc.Repositories.GetPermissionLevel(ctx, repo.Owner, repo.Name, login)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("permission of %s on %s: %w", login, repo.FullName, err)
	}
	switch p.GetPermission() {
	case "admin", "maintain", "write":
		return true, nil
	}
	switch p.GetRoleName() {
	case "admin", "maintain", "write":
		return true, nil
	}
	return false, nil
}
