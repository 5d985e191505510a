package ghsim

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
)

// Writes to a repository's content through the API: a file committed with
// the Contents API, a branch created with the Git refs API, a pull request
// opened. Chakshu's enrolment (internal/enrol) uses them; API.md cites what
// each refusal is modelled on.

// ProtectBranch puts branch of repoName under branch protection requiring
// a pull request: the API refuses commits to it (409, as PUT contents does
// for "Changes must be made through a pull request").
func (s *Sim) ProtectBranch(repoName, branch string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(repoName)
	if r.protected == nil {
		r.protected = map[string]bool{}
	}
	r.protected[branch] = true
}

// PersonalToken mints a classic personal access token (ghp_) for login
// holding only scopes (e.g. "repo", or "repo", "workflow"): a write under
// .github/workflows/ needs the workflow scope.
func (s *Sim) PersonalToken(login string, scopes ...string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ensureAccount(login, "User")
	t := s.mintToken(0, login, "ghp_")
	t.scopes = append([]string{}, scopes...)
	return t.token
}

// workflowFile reports whether path is a workflow GitHub guards with the
// workflows permission.
func workflowFile(path string) bool { return strings.HasPrefix(path, ".github/workflows/") }

// mayWriteWorkflows: an App token needs the workflows permission, a classic
// PAT the workflow scope (octokit/octokit.rb#1184; peter-evans/create-pull-request#1713).
func (s *Sim) mayWriteWorkflows(t *accessToken, r *repo) bool {
	if t.inst != 0 {
		return s.hasPerm(t, r, "workflows", "write")
	}
	return t.scopes == nil || slices.Contains(t.scopes, "workflow")
}

func hPutContents(c *reqCtx) {
	r := c.repo()
	if r == nil || !c.need(r, "contents", "write") {
		return
	}
	var in struct {
		Message string `json:"message"`
		Content string `json:"content"`
		Branch  string `json:"branch"`
		SHA     string `json:"sha"`
	}
	if !c.decode(&in) {
		return
	}
	path := strings.Trim(c.v("path"), "/")
	if workflowFile(path) && !c.s.mayWriteWorkflows(c.tok, r) {
		if c.tok.inst != 0 {
			c.fail(http.StatusForbidden, "refusing to allow a GitHub App to create or update workflow `"+path+"` without `workflows` permission")
		} else {
			c.fail(http.StatusNotFound, "Not Found") // a PAT without the workflow scope (octokit/octokit.rb#1184)
		}
		return
	}
	content, err := base64.StdEncoding.DecodeString(in.Content)
	if err != nil || in.Message == "" {
		c.fail(http.StatusUnprocessableEntity, "Invalid request.\n\n\"content\" and \"message\" are required; content is base64.")
		return
	}
	branch := firstNonEmpty(in.Branch, r.defaultBranch)
	old, ok := r.branches[branch]
	if !ok {
		c.fail(http.StatusNotFound, "Branch "+branch+" not found")
		return
	}
	if r.protected[branch] {
		c.fail(http.StatusConflict, "Changes must be made through a pull request.")
		return
	}
	prev, exists := r.commits[old].files[path]
	switch {
	case exists && in.SHA == "":
		c.fail(http.StatusUnprocessableEntity, "Invalid request.\n\n\"sha\" wasn't supplied.")
		return
	case exists && in.SHA != gitBlobSHA(prev), !exists && in.SHA != "":
		c.fail(http.StatusConflict, path+" does not match "+in.SHA)
		return
	}
	author := ""
	if a := c.actor(); a != nil {
		author = a.login
	}
	cm := c.s.newCommit(r, []string{old}, r.commits[old].files, map[string]string{path: string(content)}, in.Message, author)
	c.s.advance(r, branch, old, cm, false, false)
	_, name := splitPath(path)
	sha := gitBlobSHA(string(content))
	u := c.s.api("/repos/%s/contents/%s?ref=%s", r.fullName(), path, branch)
	gitURL := c.s.api("/repos/%s/git/blobs/%s", r.fullName(), sha)
	htmlURL := c.s.html("/%s/blob/%s/%s", r.fullName(), branch, path)
	full := c.s.commitJSON(r, cm, false)
	inner := full["commit"].(obj)
	status := http.StatusCreated
	if exists {
		status = http.StatusOK
	}
	c.json(status, obj{
		"content": obj{"type": "file", "name": name, "path": path, "sha": sha, "size": len(content), "url": u, "git_url": gitURL,
			"html_url": htmlURL, "download_url": c.s.html("/%s/raw/%s/%s", r.fullName(), branch, path),
			"_links": obj{"self": u, "git": gitURL, "html": htmlURL}},
		"commit": obj{"sha": cm.sha, "node_id": full["node_id"], "url": inner["url"], "html_url": full["html_url"],
			"author": inner["author"], "committer": inner["committer"], "message": cm.message, "tree": inner["tree"],
			"parents": full["parents"], "verification": inner["verification"]},
	})
}

func hCreateRef(c *reqCtx) {
	r := c.repo()
	if r == nil || !c.need(r, "contents", "write") {
		return
	}
	var in struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if !c.decode(&in) {
		return
	}
	branch, ok := strings.CutPrefix(in.Ref, "refs/heads/")
	if !ok || branch == "" {
		c.fail(http.StatusUnprocessableEntity, "Reference name must start with 'refs/' and have at least two slashes.")
		return
	}
	if _, exists := r.branches[branch]; exists {
		c.fail(http.StatusUnprocessableEntity, "Reference already exists")
		return
	}
	if r.commits[in.SHA] == nil {
		c.fail(http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	r.branches[branch] = in.SHA
	c.s.emitPush(r, branch, strings.Repeat("0", 40), r.commits[in.SHA], false, true)
	c.json(http.StatusCreated, obj{"ref": in.Ref, "node_id": "REF_sim" + in.SHA[:12], "url": c.s.api("/repos/%s/git/%s", r.fullName(), in.Ref),
		"object": obj{"type": "commit", "sha": in.SHA, "url": c.s.api("/repos/%s/git/commits/%s", r.fullName(), in.SHA)}})
}

// hDeleteRef deletes a branch (refs/heads/…): 204, or 422 "Reference does
// not exist" for one that does not (API.md). The push and delete webhooks
// GitHub sends for a deleted branch are not simulated.
func hDeleteRef(c *reqCtx) {
	r := c.repo()
	if r == nil || !c.need(r, "contents", "write") {
		return
	}
	branch, ok := strings.CutPrefix(c.v("ref"), "heads/")
	if _, exists := r.branches[branch]; !ok || !exists {
		c.fail(http.StatusUnprocessableEntity, "Reference does not exist")
		return
	}
	delete(r.branches, branch)
	c.w.WriteHeader(http.StatusNoContent)
}

func hCreatePull(c *reqCtx) {
	r := c.repo()
	if r == nil || !c.need(r, "pull_requests", "write") {
		return
	}
	var in struct {
		Title string `json:"title"`
		Head  string `json:"head"`
		Base  string `json:"base"`
		Body  string `json:"body"`
		Draft bool   `json:"draft"`
	}
	if !c.decode(&in) {
		return
	}
	head := in.Head
	if o, b, ok := strings.Cut(in.Head, ":"); ok && strings.EqualFold(o, r.owner) {
		head = b
	}
	headSHA, okH := r.branches[head]
	baseSHA, okB := r.branches[in.Base]
	if !okH || !okB || in.Title == "" {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed", obj{"resource": "PullRequest", "code": "invalid", "field": "head"})
		return
	}
	for _, p := range c.s.sortedPulls(r) {
		if p.state == "open" && p.headRef == head && p.baseRef == in.Base {
			// GitHub allows one open pull request per head and base
			// (the 422 quoted in peter-evans/create-pull-request's handling).
			c.fail(http.StatusUnprocessableEntity, "Validation Failed",
				obj{"resource": "PullRequest", "code": "custom", "message": "A pull request already exists for " + r.owner + ":" + head + "."})
			return
		}
	}
	if headSHA == baseSHA {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed",
			obj{"resource": "PullRequest", "code": "custom", "message": "No commits between " + in.Base + " and " + head})
		return
	}
	author := c.actor()
	r.nextNumber++
	now := c.s.now()
	p := &pull{number: r.nextNumber, id: c.s.id(), repo: r.fullName(), title: in.Title, body: in.Body, author: author.login, headRef: head,
		baseRef: in.Base, headSHA: headSHA, baseSHA: baseSHA, draft: in.Draft, state: "open", created: now, updated: now}
	c.s.pulls[pullKey(r.fullName(), p.number)] = p
	c.s.emitPull(r, p, "opened", author.login, nil)
	c.json(http.StatusCreated, c.s.pullJSON(r, p, true))
}
