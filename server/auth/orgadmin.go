package auth

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent/installation"
)

// maxOwnerChecks caps how many organisations a login asks GitHub about.
const maxOwnerChecks = 100

// ownedInstallations returns the ids of the installations on organisations
// the token's user is an active owner of (membership role "admin", state
// "active"): such a user is admin of those installations only (DESIGN §9).
// It asks GET /user/memberships/orgs/{org} with the user's own token for each
// organisation installation whose account id Chakshu knows, and counts the
// answer only when the membership's organisation has that id: a login names
// whoever holds it now (a renamed organisation's old login can be registered by
// someone else), the id does not change. Not being a member (404) or not being
// allowed to see the membership (403) means not an owner.
func (a *Auth) ownedInstallations(ctx context.Context, c *github.Client) ([]int, error) {
	insts, err := a.db.Installation.Query().
		Where(installation.AccountType("Organization"), installation.Suspended(false), installation.AccountIDNEQ(0)).
		Order(installation.ByID()).Limit(maxOwnerChecks).
		Select(installation.FieldID, installation.FieldAccountLogin, installation.FieldAccountID).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("list installed organisations: %w", err)
	}
	owned := []int{}
	asked := map[int64]*github.Membership{}
	for _, in := range insts {
		m, seen := asked[in.AccountID]
		if !seen {
			var resp *github.Response
			m, resp, err = c.Organizations.GetOrgMembership(ctx, "", in.AccountLogin)
			if err != nil {
				if resp != nil && resp.StatusCode == http.StatusUnauthorized {
					return nil, errTokenRevoked
				}
				if resp == nil || !slices.Contains([]int{http.StatusNotFound, http.StatusForbidden}, resp.StatusCode) {
					return nil, fmt.Errorf("membership in %s: %w", in.AccountLogin, err)
				}
				m = nil
			}
			asked[in.AccountID] = m
		}
		if m != nil && m.GetOrganization().GetID() == in.AccountID && m.GetRole() == "admin" && m.GetState() == "active" {
			owned = append(owned, in.ID)
		}
	}
	return owned, nil
}
