package ghsim

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"sort"
	"strings"
	"time"
)

// CreateUser adds a user account and returns its id. Creating an existing
// login returns the existing id.
func (s *Sim) CreateUser(login string) int64 { return s.createAccount(login, "User") }

// CreateOrg adds an organization and returns its id.
func (s *Sim) CreateOrg(login string) int64 { return s.createAccount(login, "Organization") }

// CreateBot adds a bot account (type Bot) such as "dependabot[bot]".
func (s *Sim) CreateBot(login string) int64 { return s.createAccount(login, "Bot") }

func (s *Sim) createAccount(login, typ string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ensureAccount(login, typ).id
}

func (s *Sim) ensureAccount(login, typ string) *account {
	if a := s.accounts[strings.ToLower(login)]; a != nil {
		return a
	}
	a := &account{id: s.id(), login: login, typ: typ, name: login, email: login + "@users.noreply.sim"}
	s.accounts[strings.ToLower(login)] = a
	return a
}

// UserID returns the id of login, or 0.
func (s *Sim) UserID(login string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.accounts[strings.ToLower(login)]; a != nil {
		return a.id
	}
	return 0
}

// CreateTeam adds team org/slug with members (users are created as needed)
// and returns its id.
func (s *Sim) CreateTeam(org, slug string, members ...string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ensureAccount(org, "Organization")
	key := strings.ToLower(org + "/" + slug)
	t := s.teams[key]
	if t == nil {
		t = &team{id: s.id(), org: org, slug: slug, name: slug, members: map[string]bool{}, perms: map[string]string{}}
		s.teams[key] = t
	}
	for _, m := range members {
		s.ensureAccount(m, "User")
		t.members[strings.ToLower(m)] = true
	}
	return t.id
}

// SetPermission gives login a permission on repo ("owner/name"): admin,
// maintain, write, triage, read or none.
func (s *Sim) SetPermission(repoName, login, perm string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(repoName)
	s.ensureAccount(login, "User")
	r.perms[strings.ToLower(login)] = perm
}

// SetTeamPermission gives team org/slug a permission on repo.
func (s *Sim) SetTeamPermission(org, slug, repoName, perm string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.teams[strings.ToLower(org+"/"+slug)]
	if t == nil {
		panic("ghsim: no team " + org + "/" + slug)
	}
	t.perms[strings.ToLower(repoName)] = perm
}

var permRank = map[string]int{"none": 0, "read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}

// permission is login's effective permission on r.
func (s *Sim) permission(r *repo, login string) string {
	login = strings.ToLower(login)
	best := "none"
	up := func(p string) {
		if permRank[p] > permRank[best] {
			best = p
		}
	}
	if strings.EqualFold(r.owner, login) || s.orgRole(r.owner, login) == "admin" {
		up("admin")
	}
	up(r.perms[login])
	for _, t := range s.teams {
		if t.members[login] && strings.EqualFold(t.org, r.owner) {
			up(t.perms[strings.ToLower(r.fullName())])
		}
	}
	if best == "none" && !r.private {
		best = "read"
	}
	return best
}

// Permission returns login's effective permission on repo.
func (s *Sim) Permission(repoName, login string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.permission(s.mustRepo(repoName), login)
}

// CreateApp registers a GitHub App and returns its id and PEM private key
// (PKCS#1, as GitHub hands it out). The app's bot user is "<slug>[bot]".
func (s *Sim) CreateApp(slug string) (appID int64, privateKeyPEM []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := sharedKey(1 + len(s.apps))
	a := &app{id: s.id(), slug: slug, name: slug, key: key, clientID: "Iv1." + randHex(8), secret: randHex(20), owner: ""}
	s.apps[a.id] = a
	s.ensureAccount(slug+"[bot]", "Bot")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return a.id, pemBytes
}

// AppClientCredentials returns the OAuth client id and secret of the app.
func (s *Sim) AppClientCredentials(appID int64) (clientID, clientSecret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.apps[appID]
	if a == nil {
		panic(fmt.Sprintf("ghsim: no app %d", appID))
	}
	return a.clientID, a.secret
}

func (s *Sim) botOf(appID int64) *account {
	a := s.apps[appID]
	if a == nil {
		return nil
	}
	return s.ensureAccount(a.slug+"[bot]", "Bot")
}

// DefaultPermissions are the installation permissions Chakshu asks for
// (contents: write only because GitHub gates resolveReviewThread on it).
func DefaultPermissions() map[string]string {
	return map[string]string{
		"metadata": "read", "contents": "write", "pull_requests": "write", "issues": "write",
		"checks": "write", "actions": "write", "members": "read",
	}
}

// Install installs app on account (an org or user) for the given repos
// ("owner/name"; none means all of the account's repos) with perms (nil
// means DefaultPermissions). It sends the installation created webhook and
// returns the installation id.
func (s *Sim) Install(appID int64, accountLogin string, repos []string, perms map[string]string) int64 {
	s.mu.Lock()
	if s.apps[appID] == nil {
		s.mu.Unlock()
		panic(fmt.Sprintf("ghsim: no app %d", appID))
	}
	acct := s.ensureAccount(accountLogin, "Organization")
	if perms == nil {
		perms = DefaultPermissions()
	}
	in := &installation{id: s.id(), appID: appID, account: acct.login, repos: map[string]bool{}, all: len(repos) == 0, perms: copyPerms(perms), created: s.now()}
	for _, r := range repos {
		in.repos[strings.ToLower(r)] = true
	}
	s.installs[in.id] = in
	var list []any
	for _, r := range s.instRepos(in) {
		list = append(list, s.repoShort(r))
	}
	s.emit("installation", in.id, map[string]any{
		"action": "created", "installation": s.installationJSON(in), "repositories": list,
		"sender": s.userJSON(s.firstAdmin(acct)),
	})
	s.mu.Unlock()
	s.flush()
	return in.id
}

func (s *Sim) firstAdmin(acct *account) *account {
	if acct.typ == "User" {
		return acct
	}
	// The org's first owner, else its first team member, else the org itself.
	var logins []string
	for m, role := range s.orgRoles[strings.ToLower(acct.login)] {
		if role == "admin" {
			logins = append(logins, m)
		}
	}
	sort.Strings(logins)
	if len(logins) > 0 {
		return s.accounts[logins[0]]
	}
	for _, t := range s.teams {
		if strings.EqualFold(t.org, acct.login) {
			for m := range t.members {
				logins = append(logins, m)
			}
		}
	}
	sort.Strings(logins)
	if len(logins) > 0 {
		return s.accounts[logins[0]]
	}
	return acct
}

func copyPerms(p map[string]string) map[string]string {
	out := make(map[string]string, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}

// SetInstallationPermissions replaces an installation's permissions (e.g.
// drop "actions" to make workflow dispatch answer 403).
func (s *Sim) SetInstallationPermissions(instID int64, perms map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustInstall(instID).perms = copyPerms(perms)
}

// AddInstallationRepos adds repos to a selected-repositories installation
// and sends installation_repositories added.
func (s *Sim) AddInstallationRepos(instID int64, repos ...string) {
	s.changeInstallationRepos(instID, "added", repos)
}

// RemoveInstallationRepos removes repos and sends installation_repositories removed.
func (s *Sim) RemoveInstallationRepos(instID int64, repos ...string) {
	s.changeInstallationRepos(instID, "removed", repos)
}

func (s *Sim) changeInstallationRepos(instID int64, action string, repos []string) {
	s.mu.Lock()
	in := s.mustInstall(instID)
	var list []any
	for _, name := range repos {
		r := s.mustRepo(name)
		if action == "added" {
			in.repos[strings.ToLower(name)] = true
		} else {
			delete(in.repos, strings.ToLower(name))
		}
		list = append(list, s.repoShort(r))
	}
	in.all = false
	added, removed := []any{}, []any{}
	if action == "added" {
		added = list
	} else {
		removed = list
	}
	s.emit("installation_repositories", in.id, map[string]any{
		"action": action, "installation": s.installationJSON(in), "repository_selection": "selected",
		"repositories_added": added, "repositories_removed": removed, "requester": nil,
		"sender": s.userJSON(s.firstAdmin(s.accounts[strings.ToLower(in.account)])),
	})
	s.mu.Unlock()
	s.flush()
}

func (s *Sim) mustInstall(id int64) *installation {
	in := s.installs[id]
	if in == nil {
		panic(fmt.Sprintf("ghsim: no installation %d", id))
	}
	return in
}

func (s *Sim) instRepos(in *installation) []*repo {
	var out []*repo
	for _, r := range s.repos {
		if s.instCovers(in, r) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// installationFor finds the installation of appID (any app when 0) that covers r.
func (s *Sim) installationFor(r *repo) *installation {
	var best *installation
	for _, in := range s.installs {
		if s.instCovers(in, r) && (best == nil || in.id < best.id) {
			best = in
		}
	}
	return best
}

// InstallationToken mints an installation token directly (for tests that
// want to call the API without the JWT dance).
func (s *Sim) InstallationToken(instID int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustInstall(instID)
	return s.mintToken(instID, "", "ghs_").token
}

func (s *Sim) mintToken(inst int64, user, prefix string) *accessToken {
	t := &accessToken{token: prefix + randAlnum(36), inst: inst, user: user, expires: s.now().Add(time.Hour)}
	s.tokens[t.token] = t
	return t
}

// UserToken mints an OAuth user token (gho_) for login, as the OAuth flow does.
func (s *Sim) UserToken(login string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ensureAccount(login, "User")
	return s.mintToken(0, login, "gho_").token
}

// ExpireTokens makes every token issued so far expire now.
func (s *Sim) ExpireTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tokens {
		t.expires = s.now().Add(-time.Second)
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func randAlnum(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return string(b)
}
