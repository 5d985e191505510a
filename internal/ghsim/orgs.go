package ghsim

import (
	"fmt"
	"net/http"
	"strings"
)

// SetOrgRole makes login a member of org with role "admin" (an owner) or
// "member"; "" removes the membership. An owner has admin permission on
// every repository of the org, as on GitHub.
func (s *Sim) SetOrgRole(org, login, role string) {
	if role != "" && role != "admin" && role != "member" {
		panic("ghsim: org role must be admin, member or empty, not " + role)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.ensureAccount(org, "Organization")
	if o.typ != "Organization" {
		panic(fmt.Sprintf("ghsim: %s is not an organization", org))
	}
	s.ensureAccount(login, "User")
	key := strings.ToLower(org)
	if s.orgRoles[key] == nil {
		s.orgRoles[key] = map[string]string{}
	}
	if role == "" {
		delete(s.orgRoles[key], strings.ToLower(login))
	} else {
		s.orgRoles[key][strings.ToLower(login)] = role
	}
}

// OrgRole returns login's role in org: "admin", "member" or "".
func (s *Sim) OrgRole(org, login string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.orgRole(org, login)
}

func (s *Sim) orgRole(org, login string) string {
	return s.orgRoles[strings.ToLower(org)][strings.ToLower(login)]
}

// orgMembershipJSON is GitHub's org-membership shape.
func (s *Sim) orgMembershipJSON(org, user *account, role string) obj {
	ou := s.api("/orgs/%s", org.login)
	return obj{
		"url": s.api("/orgs/%s/memberships/%s", org.login, user.login), "state": "active", "role": role,
		"organization_url": ou, "user": s.userJSON(user),
		"permissions": obj{"can_create_repository": role == "admin"},
		"organization": obj{
			"login": org.login, "id": org.id, "node_id": nodeID("O", org.id), "url": ou, "repos_url": ou + "/repos",
			"events_url": ou + "/events", "hooks_url": ou + "/hooks", "issues_url": ou + "/issues",
			"members_url": ou + "/members{/member}", "public_members_url": ou + "/public_members{/member}",
			"avatar_url": s.base + "/avatars/" + org.login, "description": nil,
		},
	}
}

// hUserOrgMembership serves GET /user/memberships/orgs/{org}: the signed-in
// user's own membership (user tokens only); 404 when not a member.
func hUserOrgMembership(c *reqCtx) {
	if !c.userOnly() {
		return
	}
	c.orgMembership(c.tok.user)
}

// hOrgMembership serves GET /orgs/{org}/memberships/{username}: for an
// installation of the org with members permission, or a member of the org.
func hOrgMembership(c *reqCtx) {
	org := c.s.accounts[strings.ToLower(c.v("org"))]
	if org == nil || org.typ != "Organization" {
		c.notFound()
		return
	}
	switch {
	case c.tok.inst != 0:
		in := c.s.installs[c.tok.inst]
		if in == nil || !strings.EqualFold(in.account, org.login) || in.perms["members"] == "" {
			c.fail(http.StatusForbidden, "Resource not accessible by integration")
			return
		}
	case c.s.orgRole(org.login, c.tok.user) == "":
		c.notFound()
		return
	}
	c.orgMembership(c.v("username"))
}

func (c *reqCtx) orgMembership(login string) {
	org := c.s.accounts[strings.ToLower(c.v("org"))]
	user := c.s.accounts[strings.ToLower(login)]
	if org == nil || org.typ != "Organization" || user == nil {
		c.notFound()
		return
	}
	role := c.s.orgRole(org.login, user.login)
	if role == "" {
		c.notFound()
		return
	}
	c.json(http.StatusOK, c.s.orgMembershipJSON(org, user, role))
}
