package auth

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent/installation"
)

// maxOwnerChecks caps how many organisations a login asks GitHub about.
const maxOwnerChecks = 100

// ownsInstalledOrg reports whether the token's user is an active owner
// (membership role "admin", state "active") of an organisation the App is
// installed on: such a user is a Chakshu admin (DESIGN §11's "org owners").
// It asks GET /user/memberships/orgs/{org} with the user's own token for each
// organisation Chakshu has an installation for; not being a member (404) or
// not being allowed to see the membership (403) means not an owner.
func (a *Auth) ownsInstalledOrg(ctx context.Context, c *github.Client) (bool, error) {
	orgs, err := a.db.Installation.Query().
		Where(installation.AccountType("Organization"), installation.Suspended(false)).
		Order(installation.ByID()).Limit(maxOwnerChecks).
		Select(installation.FieldAccountLogin).Strings(ctx)
	if err != nil {
		return false, fmt.Errorf("list installed organisations: %w", err)
	}
	seen := map[string]bool{}
	for _, org := range orgs {
		if seen[strings.ToLower(org)] {
			continue
		}
		seen[strings.ToLower(org)] = true
		m, resp, err := c.Organizations.GetOrgMembership(ctx, "", org)
		if err != nil {
			if resp != nil && slices.Contains([]int{http.StatusNotFound, http.StatusForbidden}, resp.StatusCode) {
				continue
			}
			if resp != nil && resp.StatusCode == http.StatusUnauthorized {
				return false, errTokenRevoked
			}
			return false, fmt.Errorf("membership in %s: %w", org, err)
		}
		if m.GetRole() == "admin" && m.GetState() == "active" {
			return true, nil
		}
	}
	return false, nil
}
