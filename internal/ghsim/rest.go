package ghsim

import (
	"encoding/base64"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

func (s *Sim) registerRoutes() {
	// Apps.
	s.handle("GET", "/app", authApp, hGetApp)
	s.handle("GET", "/app/installations", authApp, hListInstallations)
	s.handle("GET", "/app/installations/{installation_id}", authApp, hGetInstallation)
	s.handle("POST", "/app/installations/{installation_id}/access_tokens", authApp, hCreateAccessToken)
	s.handle("GET", "/app/hook/deliveries", authApp, hListHookDeliveries)
	s.handle("POST", "/app/hook/deliveries/{delivery_id}/attempts", authApp, hRedeliverHookDelivery)
	s.handle("GET", "/meta", authNone, hMeta)
	s.handle("GET", "/repos/{owner}/{repo}/installation", authApp, hRepoInstallation)
	s.handle("GET", "/installation/repositories", authInstallation, hInstallationRepos)
	s.handle("POST", "/app-manifests/{code}/conversions", authNone, hManifestConversion)
	s.handle("GET", "/rate_limit", authInstallation, hRateLimit)
	// Users and orgs.
	s.handle("GET", "/user", authInstallation, hGetAuthUser)
	s.handle("GET", "/user/installations", authInstallation, hUserInstallations)
	s.handle("GET", "/user/installations/{installation_id}/repositories", authInstallation, hUserInstallationRepos)
	s.handle("GET", "/user/repos", authInstallation, hUserRepos)
	s.handle("GET", "/users/{username}", authInstallation, hGetUser)
	s.handle("GET", "/orgs/{org}/teams/{team_slug}/memberships/{username}", authInstallation, hTeamMembership)
	s.handle("GET", "/user/memberships/orgs/{org}", authInstallation, hUserOrgMembership)
	s.handle("GET", "/orgs/{org}/memberships/{username}", authInstallation, hOrgMembership)
	s.handle("GET", "/orgs/{org}/teams/{team_slug}/members", authInstallation, hTeamMembers)
	// Repositories and content.
	s.handle("GET", "/repos/{owner}/{repo}", authInstallation, hGetRepo)
	s.handle("GET", "/repos/{owner}/{repo}/collaborators/{username}/permission", authInstallation, hCollaboratorPermission)
	s.handle("GET", "/repos/{owner}/{repo}/contents/{path...}", authInstallation, hGetContents)
	s.handle("GET", "/repos/{owner}/{repo}/git/trees/{tree_sha}", authInstallation, hGetTree)
	s.handle("GET", "/repos/{owner}/{repo}/git/blobs/{file_sha}", authInstallation, hGetBlob)
	s.handle("GET", "/repos/{owner}/{repo}/commits/{ref}", authInstallation, hGetCommit)
	s.handle("GET", "/repos/{owner}/{repo}/compare/{basehead}", authInstallation, hCompare)
	s.handle("GET", "/repos/{owner}/{repo}/branches/{branch}", authInstallation, hGetBranch)
	s.handle("PUT", "/repos/{owner}/{repo}/contents/{path...}", authInstallation, hPutContents) // writes.go
	s.handle("POST", "/repos/{owner}/{repo}/git/refs", authInstallation, hCreateRef)
	s.handle("DELETE", "/repos/{owner}/{repo}/git/refs/{ref...}", authInstallation, hDeleteRef)
	// Pull requests.
	s.handle("GET", "/repos/{owner}/{repo}/pulls", authInstallation, hListPulls)
	s.handle("POST", "/repos/{owner}/{repo}/pulls", authInstallation, hCreatePull) // writes.go
	s.handle("GET", "/repos/{owner}/{repo}/pulls/{pull_number}", authInstallation, hGetPull)
	s.handle("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files", authInstallation, hPullFiles)
	s.handle("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/commits", authInstallation, hPullCommits)
	s.handle("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", authInstallation, hListReviews)
	s.handle("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", authInstallation, hCreateReview)
	s.handle("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/comments", authInstallation, hListReviewComments)
	s.handle("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/comments", authInstallation, hCreateReviewComment)
	s.handle("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies", authInstallation, hReplyReviewComment)
	s.handle("GET", "/repos/{owner}/{repo}/pulls/comments/{comment_id}", authInstallation, hGetReviewComment)
	s.handle("POST", "/repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions", authInstallation, hReactReviewComment)
	s.handle("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", authInstallation, hListRequestedReviewers)
	s.handle("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", authInstallation, hRequestReviewers)
	s.handle("DELETE", "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", authInstallation, hRemoveRequestedReviewers)
	// Issues (PR conversation).
	s.handle("GET", "/repos/{owner}/{repo}/issues/{issue_number}", authInstallation, hGetIssue)
	s.handle("GET", "/search/issues", authInstallation, hSearchIssues)
	s.handle("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments", authInstallation, hListIssueComments)
	s.handle("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments", authInstallation, hCreateIssueComment)
	s.handle("GET", "/repos/{owner}/{repo}/issues/comments/{comment_id}", authInstallation, hGetIssueComment)
	s.handle("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}", authInstallation, hUpdateIssueComment)
	s.handle("POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels", authInstallation, hAddLabels)
	s.handle("DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", authInstallation, hRemoveLabel)
	s.handle("POST", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", authInstallation, hCreateReaction)
	// Checks.
	s.handle("POST", "/repos/{owner}/{repo}/check-runs", authInstallation, hCreateCheckRun)
	s.handle("PATCH", "/repos/{owner}/{repo}/check-runs/{check_run_id}", authInstallation, hUpdateCheckRun)
	s.handle("GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}", authInstallation, hGetCheckRun)
	s.handle("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", authInstallation, hListCheckRuns)
	// Actions.
	s.handle("POST", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", authInstallation, hDispatch)
	s.handle("GET", "/repos/{owner}/{repo}/actions/runs/{run_id}", authInstallation, hGetRun)
	s.handle("POST", "/repos/{owner}/{repo}/actions/runs/{run_id}/cancel", authInstallation, hCancelRun)
}

// ---- apps ----

func hGetApp(c *reqCtx) { c.json(http.StatusOK, c.s.appJSON(c.app)) }

func hListInstallations(c *reqCtx) {
	var items []any
	for _, in := range c.s.sortedInstalls() {
		if in.appID == c.app.id {
			items = append(items, c.s.installationJSON(in))
		}
	}
	c.json(http.StatusOK, c.paginate(items))
}

func (s *Sim) sortedInstalls() []*installation {
	var out []*installation
	for _, in := range s.installs {
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

func (c *reqCtx) installation() *installation {
	id, _ := strconv.ParseInt(c.v("installation_id"), 10, 64)
	in := c.s.installs[id]
	if in == nil || c.app != nil && in.appID != c.app.id {
		c.notFound()
		return nil
	}
	return in
}

func hGetInstallation(c *reqCtx) {
	if in := c.installation(); in != nil {
		c.json(http.StatusOK, c.s.installationJSON(in))
	}
}

func hRepoInstallation(c *reqCtx) {
	r := c.s.repos[strings.ToLower(c.v("owner")+"/"+c.v("repo"))]
	if r != nil {
		for _, in := range c.s.sortedInstalls() {
			if in.appID == c.app.id && c.s.instCovers(in, r) {
				c.json(http.StatusOK, c.s.installationJSON(in))
				return
			}
		}
	}
	c.notFound()
}

func hCreateAccessToken(c *reqCtx) {
	in := c.installation()
	if in == nil {
		return
	}
	var body struct {
		Repositories []string          `json:"repositories"`
		Permissions  map[string]string `json:"permissions"`
	}
	if !c.decode(&body) {
		return
	}
	// A token may be narrowed to fewer permissions than the installation
	// has, never widened: asking for one the installation was not granted
	// (or a higher level) is refused with 422 (docs "Create an installation
	// access token for an app"; peter-murray/workflow-application-token-action#48).
	perms := in.perms
	if body.Permissions != nil {
		for k, v := range body.Permissions {
			if v != "read" && v != "write" && v != "admin" || !permAtLeast(in.perms[k], v) {
				c.fail(http.StatusUnprocessableEntity, "The permissions requested are not granted to this installation.")
				return
			}
		}
		perms = copyPerms(body.Permissions)
		if _, ok := perms["metadata"]; !ok && in.perms["metadata"] != "" {
			perms["metadata"] = "read" // every token can read metadata
		}
	}
	t := c.s.mintToken(in.id, "", "ghs_")
	if body.Permissions != nil {
		t.perms = perms
	}
	repos := []any{}
	for _, r := range c.s.instRepos(in) {
		repos = append(repos, c.s.repoJSON(r))
	}
	sel := "selected"
	if in.all {
		sel = "all"
	}
	c.json(http.StatusCreated, obj{"token": t.token, "expires_at": t.expires.Format(time.RFC3339), "permissions": perms,
		"repository_selection": sel, "repositories": repos})
}

func hInstallationRepos(c *reqCtx) {
	if c.tok.inst == 0 {
		c.fail(http.StatusForbidden, "You must authenticate with an installation access token in order to list repositories for an installation.")
		return
	}
	in := c.s.installs[c.tok.inst]
	var items []any
	for _, r := range c.s.instRepos(in) {
		items = append(items, c.s.repoJSON(r))
	}
	total := len(items)
	c.json(http.StatusOK, obj{"total_count": total, "repositories": c.paginate(items)})
}

// ---- users ----

func hGetUser(c *reqCtx) {
	a := c.s.accounts[strings.ToLower(c.v("username"))]
	if a == nil {
		c.notFound()
		return
	}
	c.json(http.StatusOK, c.s.publicUserJSON(a))
}

func (s *Sim) publicUserJSON(a *account) obj {
	m := s.userJSON(a).(obj)
	for k, v := range (obj{"name": a.name, "company": nil, "blog": "", "location": nil, "email": a.email, "hireable": nil, "bio": nil,
		"public_repos": 0, "public_gists": 0, "followers": 0, "following": 0, "created_at": ts(time.Unix(1600000000, 0)),
		"updated_at": ts(time.Unix(1600000000, 0)), "twitter_username": nil, "user_view_type": "public"}) {
		m[k] = v
	}
	return m
}

func hTeamMembership(c *reqCtx) {
	t := c.s.teams[strings.ToLower(c.v("org")+"/"+c.v("team_slug"))]
	if t == nil || !t.members[strings.ToLower(c.v("username"))] {
		c.notFound()
		return
	}
	c.json(http.StatusOK, obj{"url": c.s.api("/orgs/%s/teams/%s/memberships/%s", t.org, t.slug, c.v("username")), "role": "member", "state": "active"})
}

func hTeamMembers(c *reqCtx) {
	t := c.s.teams[strings.ToLower(c.v("org")+"/"+c.v("team_slug"))]
	if t == nil {
		c.notFound()
		return
	}
	var items []any
	for _, m := range sortedKeys(t.members) {
		items = append(items, c.s.userJSON(c.s.accounts[m]))
	}
	c.json(http.StatusOK, c.paginate(items))
}

// ---- repositories ----

func hGetRepo(c *reqCtx) {
	r := c.repo()
	if r == nil {
		return
	}
	m := c.s.repoJSON(r)
	m["network_count"], m["subscribers_count"] = 0, 0
	c.json(http.StatusOK, m)
}

func hCollaboratorPermission(c *reqCtx) {
	r := c.repo()
	if r == nil {
		return
	}
	a := c.s.accounts[strings.ToLower(c.v("username"))]
	if a == nil {
		c.notFound()
		return
	}
	role := c.s.permission(r, a.login)
	legacy := map[string]string{"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read", "none": "none"}[role]
	u := c.s.userJSON(a).(obj)
	u["role_name"] = role
	u["permissions"] = obj{"admin": role == "admin", "maintain": permRank[role] >= 4, "push": permRank[role] >= 3, "triage": permRank[role] >= 2, "pull": permRank[role] >= 1}
	c.json(http.StatusOK, obj{"permission": legacy, "role_name": role, "user": u})
}

func (c *reqCtx) commitAt(r *repo, ref string) *commit {
	if ref == "" {
		ref = r.defaultBranch
	}
	cm := r.commits[c.s.resolve(r, ref)]
	if cm == nil {
		c.fail(http.StatusNotFound, "No commit found for the ref "+ref)
	}
	return cm
}

func hGetContents(c *reqCtx) {
	r := c.repo()
	if r == nil {
		return
	}
	cm := c.commitAt(r, c.r.URL.Query().Get("ref"))
	if cm == nil {
		return
	}
	path := strings.Trim(c.v("path"), "/")
	ref := firstNonEmpty(c.r.URL.Query().Get("ref"), r.defaultBranch)
	entry := func(p, typ, sha string, size int) obj {
		u := c.s.api("/repos/%s/contents/%s?ref=%s", r.fullName(), p, ref)
		_, name := splitPath(p)
		gitURL := c.s.api("/repos/%s/git/blobs/%s", r.fullName(), sha)
		var dl any = c.s.html("/%s/raw/%s/%s", r.fullName(), ref, p)
		htmlURL := c.s.html("/%s/blob/%s/%s", r.fullName(), ref, p)
		if typ == "dir" {
			gitURL = c.s.api("/repos/%s/git/trees/%s", r.fullName(), sha)
			dl = nil
			htmlURL = c.s.html("/%s/tree/%s/%s", r.fullName(), ref, p)
		}
		return obj{"type": typ, "size": size, "name": name, "path": p, "sha": sha, "url": u, "git_url": gitURL,
			"html_url": htmlURL, "download_url": dl, "_links": obj{"self": u, "git": gitURL, "html": htmlURL}}
	}
	if content, ok := cm.files[path]; ok {
		if strings.Contains(c.r.Header.Get("Accept"), "raw") {
			c.w.Header().Set("Content-Type", "application/vnd.github.raw")
			c.w.WriteHeader(http.StatusOK)
			_, _ = c.w.Write([]byte(content))
			return
		}
		e := entry(path, "file", gitBlobSHA(content), len(content))
		e["encoding"] = "base64"
		e["content"] = wrap76(base64.StdEncoding.EncodeToString([]byte(content)))
		if len(content) > maxContentsJSON {
			// Above 1 MB only the raw media type carries the text; the JSON
			// object has encoding "none" and empty content (GitHub changelog
			// 2022-05-03 "Increased file size limit when retrieving file
			// contents via REST API"; google/go-github#2924).
			e["encoding"], e["content"] = "none", ""
		}
		c.json(http.StatusOK, e)
		return
	}
	shas, entries := trees(cm.files)
	es, ok := entries[path]
	if !ok || (path != "" && shas[path] == "") {
		c.notFound()
		return
	}
	items := []any{}
	for _, te := range es {
		typ := "file"
		if te.typ == "tree" {
			typ = "dir"
		}
		items = append(items, entry(te.path, typ, te.sha, te.size))
	}
	c.json(http.StatusOK, items)
}

// maxContentsJSON is the largest file the contents API returns inside its
// JSON object (1 MB); larger files need Accept: application/vnd.github.raw.
const maxContentsJSON = 1 << 20

func wrap76(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60] + "\n")
		s = s[60:]
	}
	b.WriteString(s)
	return b.String()
}

func hGetTree(c *reqCtx) {
	r := c.repo()
	if r == nil {
		return
	}
	want := c.v("tree_sha")
	recursive := c.r.URL.Query().Get("recursive") != ""
	// The sha may be a commit, a branch or a tree sha of any commit.
	var files map[string]string
	dir := ""
	if cm := r.commits[c.s.resolve(r, want)]; cm != nil {
		files = cm.files
	} else {
		for _, cm := range r.commits {
			shas, _ := trees(cm.files)
			for d, sha := range shas {
				if sha == want {
					files, dir = cm.files, d
				}
			}
			if files != nil {
				break
			}
		}
	}
	if files == nil {
		c.notFound()
		return
	}
	shas, entries := trees(files)
	var out []any
	var walk func(d string)
	walk = func(d string) {
		for _, te := range entries[d] {
			rel := te.path
			if dir != "" {
				rel = strings.TrimPrefix(te.path, dir+"/")
			}
			e := obj{"path": rel, "mode": "100644", "type": te.typ, "sha": te.sha, "url": c.s.api("/repos/%s/git/blobs/%s", r.fullName(), te.sha)}
			if te.typ == "tree" {
				e["mode"] = "040000"
				e["url"] = c.s.api("/repos/%s/git/trees/%s", r.fullName(), te.sha)
			} else {
				e["size"] = te.size
			}
			out = append(out, e)
			if te.typ == "tree" && recursive {
				walk(te.path)
			}
		}
	}
	walk(dir)
	c.json(http.StatusOK, obj{"sha": shas[dir], "url": c.s.api("/repos/%s/git/trees/%s", r.fullName(), shas[dir]), "tree": out, "truncated": false})
}

func hGetCommit(c *reqCtx) {
	r := c.repo()
	if r == nil {
		return
	}
	cm := r.commits[c.s.resolve(r, c.v("ref"))]
	if cm == nil {
		c.fail(http.StatusUnprocessableEntity, "No commit found for SHA: "+c.v("ref"))
		return
	}
	c.json(http.StatusOK, c.s.commitJSON(r, cm, true))
}

func hGetBranch(c *reqCtx) {
	r := c.repo()
	if r == nil {
		return
	}
	sha, ok := r.branches[c.v("branch")]
	if !ok {
		c.fail(http.StatusNotFound, "Branch not found")
		return
	}
	c.json(http.StatusOK, obj{"name": c.v("branch"), "commit": c.s.commitJSON(r, r.commits[sha], false), "protected": r.protected[c.v("branch")],
		"protection":     obj{"enabled": r.protected[c.v("branch")]},
		"protection_url": c.s.api("/repos/%s/branches/%s/protection", r.fullName(), c.v("branch")),
		"_links":         obj{"self": c.s.api("/repos/%s/branches/%s", r.fullName(), c.v("branch")), "html": c.s.html("/%s/tree/%s", r.fullName(), c.v("branch"))}})
}

func hCompare(c *reqCtx) {
	r := c.repo()
	if r == nil {
		return
	}
	bh := c.v("basehead")
	i := strings.Index(bh, "...")
	if i < 0 {
		c.notFound()
		return
	}
	baseRef, headRef := bh[:i], bh[i+3:]
	base, head := c.s.resolve(r, baseRef), c.s.resolve(r, headRef)
	if base == "" || head == "" {
		c.notFound()
		return
	}
	mb := mergeBase(r, base, head)
	ahead := commitsBetween(r, base, head)
	behind := commitsBetween(r, head, base)
	status := "identical"
	switch {
	case len(ahead) > 0 && len(behind) > 0:
		status = "diverged"
	case len(ahead) > 0:
		status = "ahead"
	case len(behind) > 0:
		status = "behind"
	}
	var mbFiles map[string]string
	if mc := r.commits[mb]; mc != nil {
		mbFiles = mc.files
	}
	commits := []any{}
	for _, cm := range ahead {
		commits = append(commits, c.s.commitJSON(r, cm, false))
	}
	var mbJSON any = nil
	if mc := r.commits[mb]; mc != nil {
		mbJSON = c.s.commitJSON(r, mc, false)
	} else {
		mbJSON = c.s.commitJSON(r, r.commits[base], false)
	}
	u := c.s.html("/%s/compare/%s", r.fullName(), bh)
	c.json(http.StatusOK, obj{
		"url": c.s.api("/repos/%s/compare/%s", r.fullName(), bh), "html_url": u, "permalink_url": u, "diff_url": u + ".diff", "patch_url": u + ".patch",
		"base_commit": c.s.commitJSON(r, r.commits[base], false), "merge_base_commit": mbJSON, "status": status,
		"ahead_by": len(ahead), "behind_by": len(behind), "total_commits": len(ahead), "commits": commits,
		"files": c.s.filesJSON(r, head, diffTrees(mbFiles, r.commits[head].files)),
	})
}

func hCreateReaction(c *reqCtx) {
	r, _, ic := c.findIssueComment()
	if ic == nil {
		return
	}
	var in struct {
		Content string `json:"content"`
	}
	if !c.decode(&in) {
		return
	}
	_ = r
	id := c.s.id()
	c.json(http.StatusCreated, obj{"id": id, "node_id": nodeID("REA", id), "user": c.s.userJSON(c.actor()), "content": in.Content, "created_at": ts(c.s.now())})
}

func hGetBlob(c *reqCtx) {
	r := c.repo()
	if r == nil {
		return
	}
	want := c.v("file_sha")
	for _, cm := range r.commits {
		for _, content := range cm.files {
			if gitBlobSHA(content) == want {
				c.json(http.StatusOK, obj{"sha": want, "node_id": nodeID("B", int64(len(content))), "size": len(content),
					"url": c.s.api("/repos/%s/git/blobs/%s", r.fullName(), want), "encoding": "base64",
					"content": wrap76(base64.StdEncoding.EncodeToString([]byte(content)))})
				return
			}
		}
	}
	c.notFound()
}

func hRateLimit(c *reqCtx) {
	reset := c.s.now().Add(time.Hour).Unix()
	core := obj{"limit": 5000, "remaining": 4999, "used": 1, "reset": reset}
	c.json(http.StatusOK, obj{"resources": obj{"core": core, "graphql": core, "search": core}, "rate": core})
}
