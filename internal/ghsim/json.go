package ghsim

import (
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
	"time"
)

// JSON shapes of GitHub's REST objects. Built as maps so every field the
// OpenAPI description requires is present, null where GitHub sends null.

type obj = map[string]any

func (s *Sim) api(format string, args ...any) string {
	return s.base + APIPrefix + fmt.Sprintf(format, args...)
}

func (s *Sim) html(format string, args ...any) string {
	return s.pagesBase + "/sim" + fmt.Sprintf(format, args...)
}

func ts(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

func nodeID(prefix string, id int64) string {
	return prefix + "_" + base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("sim:%d", id)))
}

// parseNodeID reverses nodeID.
func parseNodeID(s string) (prefix string, id int64, ok bool) {
	i := strings.Index(s, "_")
	if i < 0 {
		return "", 0, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(s[i+1:])
	if err != nil {
		return "", 0, false
	}
	if _, err := fmt.Sscanf(string(raw), "sim:%d", &id); err != nil {
		return "", 0, false
	}
	return s[:i], id, true
}

func (s *Sim) userJSON(a *account) any {
	if a == nil {
		return nil
	}
	u := s.api("/users/%s", a.login)
	prefix := "U"
	switch a.typ {
	case "Organization":
		prefix = "O"
	case "Bot":
		prefix = "BOT"
	}
	return obj{
		"login": a.login, "id": a.id, "node_id": nodeID(prefix, a.id), "type": a.typ, "site_admin": false,
		"avatar_url": s.base + "/avatars/" + a.login, "gravatar_id": "", "url": u, "html_url": s.html("/%s", a.login),
		"followers_url": u + "/followers", "following_url": u + "/following{/other_user}", "gists_url": u + "/gists{/gist_id}",
		"starred_url": u + "/starred{/owner}{/repo}", "subscriptions_url": u + "/subscriptions", "organizations_url": u + "/orgs",
		"repos_url": u + "/repos", "events_url": u + "/events{/privacy}", "received_events_url": u + "/received_events",
	}
}

func (s *Sim) userByLogin(login string) any {
	if login == "" {
		return nil
	}
	return s.userJSON(s.ensureAccount(login, "User"))
}

// repoShort is the repository shape of installation payloads.
func (s *Sim) repoShort(r *repo) obj {
	return obj{"id": r.id, "node_id": nodeID("R", r.id), "name": r.name, "full_name": r.fullName(), "private": r.private}
}

// repoJSON is the full repository shape.
func (s *Sim) repoJSON(r *repo) obj {
	m := s.minimalRepoJSON(r)
	u := s.api("/repos/%s", r.fullName())
	m["clone_url"] = s.base + "/git/" + r.fullName() + ".git"
	m["git_url"] = "git://127.0.0.1/" + r.fullName() + ".git"
	m["ssh_url"] = "git@127.0.0.1:" + r.fullName() + ".git"
	m["svn_url"] = s.html("/%s", r.fullName())
	m["mirror_url"] = nil
	m["homepage"] = nil
	m["language"] = "Go"
	m["forks"], m["forks_count"], m["stargazers_count"], m["watchers"], m["watchers_count"] = 0, 0, 0, 0, 0
	m["size"] = 1
	m["default_branch"] = r.defaultBranch
	m["open_issues"], m["open_issues_count"] = s.openPulls(r), s.openPulls(r)
	m["is_template"] = false
	m["topics"] = []string{}
	m["has_issues"], m["has_projects"], m["has_wiki"], m["has_pages"], m["has_downloads"], m["has_discussions"] = true, false, false, false, true, false
	m["archived"], m["disabled"] = false, false
	m["visibility"] = map[bool]string{true: "private", false: "public"}[r.private]
	m["pushed_at"], m["created_at"], m["updated_at"] = ts(r.pushed), ts(r.created), ts(r.pushed)
	m["allow_forking"] = true
	m["web_commit_signoff_required"] = false
	m["license"] = nil
	_ = u
	return m
}

func (s *Sim) openPulls(r *repo) int {
	n := 0
	for _, p := range s.pulls {
		if p.repo == r.fullName() && p.state == "open" {
			n++
		}
	}
	for _, i := range s.issues {
		if i.repo == r.fullName() && i.state == "open" {
			n++
		}
	}
	return n
}

func (s *Sim) minimalRepoJSON(r *repo) obj {
	u := s.api("/repos/%s", r.fullName())
	owner := s.accounts[strings.ToLower(r.owner)]
	m := obj{
		"id": r.id, "node_id": nodeID("R", r.id), "name": r.name, "full_name": r.fullName(), "private": r.private,
		"owner": s.userJSON(owner), "html_url": s.html("/%s", r.fullName()), "description": nil, "fork": false, "url": u,
	}
	for k, v := range map[string]string{
		"archive_url": "/{archive_format}{/ref}", "assignees_url": "/assignees{/user}", "blobs_url": "/git/blobs{/sha}",
		"branches_url": "/branches{/branch}", "collaborators_url": "/collaborators{/collaborator}", "comments_url": "/comments{/number}",
		"commits_url": "/commits{/sha}", "compare_url": "/compare/{base}...{head}", "contents_url": "/contents/{+path}",
		"contributors_url": "/contributors", "deployments_url": "/deployments", "downloads_url": "/downloads", "events_url": "/events",
		"forks_url": "/forks", "git_commits_url": "/git/commits{/sha}", "git_refs_url": "/git/refs{/sha}", "git_tags_url": "/git/tags{/sha}",
		"hooks_url": "/hooks", "issue_comment_url": "/issues/comments{/number}", "issue_events_url": "/issues/events{/number}",
		"issues_url": "/issues{/number}", "keys_url": "/keys{/key_id}", "labels_url": "/labels{/name}", "languages_url": "/languages",
		"merges_url": "/merges", "milestones_url": "/milestones{/number}", "notifications_url": "/notifications{?since,all,participating}",
		"pulls_url": "/pulls{/number}", "releases_url": "/releases{/id}", "stargazers_url": "/stargazers", "statuses_url": "/statuses/{sha}",
		"subscribers_url": "/subscribers", "subscription_url": "/subscription", "tags_url": "/tags", "teams_url": "/teams",
		"trees_url": "/git/trees{/sha}",
	} {
		m[k] = u + v
	}
	return m
}

func (s *Sim) installationJSON(in *installation) obj {
	a := s.apps[in.appID]
	acct := s.accounts[strings.ToLower(in.account)]
	sel := "selected"
	if in.all {
		sel = "all"
	}
	return obj{
		"id": in.id, "node_id": nodeID("MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u", in.id), "app_id": in.appID, "app_slug": a.slug, "client_id": a.clientID,
		"target_id": acct.id, "target_type": acct.typ, "account": s.installAccountJSON(acct), "repository_selection": sel,
		"access_tokens_url": s.api("/app/installations/%d/access_tokens", in.id), "repositories_url": s.api("/installation/repositories"),
		"html_url": s.html("/organizations/%s/settings/installations/%d", acct.login, in.id), "events": appEvents(),
		"permissions": in.perms, "created_at": ts(in.created), "updated_at": ts(in.created), "single_file_name": nil,
		"has_multiple_single_files": false, "single_file_paths": []string{}, "suspended_by": nil, "suspended_at": nil,
	}
}

// installAccountJSON: GitHub's description of installations says the
// account is allOf(simple-user, enterprise), so it carries both sets of fields.
func (s *Sim) installAccountJSON(a *account) obj {
	m := s.userJSON(a).(obj)
	m["name"], m["slug"], m["created_at"], m["updated_at"] = a.name, a.login, ts(time.Unix(1600000000, 0)), ts(time.Unix(1600000000, 0))
	return m
}

func appEvents() []string {
	return []string{"check_run", "issue_comment", "pull_request", "pull_request_review", "pull_request_review_comment", "push", "workflow_run"}
}

func (s *Sim) appJSON(a *app) obj {
	return obj{
		"id": a.id, "slug": a.slug, "node_id": nodeID("A", a.id), "client_id": a.clientID, "owner": s.userJSON(s.ensureAccount(firstNonEmpty(a.owner, "sim-apps"), "Organization")),
		"name": a.name, "description": "", "external_url": s.base, "html_url": s.html("/apps/%s", a.slug),
		"created_at": ts(time.Unix(1700000000, 0)), "updated_at": ts(time.Unix(1700000000, 0)),
		"permissions": DefaultPermissions(), "events": appEvents(), "installations_count": s.countInstalls(a.id),
	}
}

func (s *Sim) countInstalls(appID int64) int {
	n := 0
	for _, in := range s.installs {
		if in.appID == appID {
			n++
		}
	}
	return n
}

func firstNonEmpty(a ...string) string {
	for _, x := range a {
		if x != "" {
			return x
		}
	}
	return ""
}

func (s *Sim) teamJSON(t *team) obj {
	u := s.api("/orgs/%s/teams/%s", t.org, t.slug)
	return obj{
		"id": t.id, "node_id": nodeID("T", t.id), "url": u, "html_url": s.html("/orgs/%s/teams/%s", t.org, t.slug), "name": t.name,
		"slug": t.slug, "description": nil, "privacy": "closed", "notification_setting": "notifications_enabled", "permission": "pull",
		"members_url": u + "/members{/member}", "repositories_url": u + "/repos", "parent": nil, "type": "organization",
	}
}

func (s *Sim) labelJSON(r *repo, name string) obj {
	id, ok := r.labels[name]
	if !ok {
		id = s.id()
		r.labels[name] = id
	}
	return obj{"id": id, "node_id": nodeID("LA", id), "url": s.api("/repos/%s/labels/%s", r.fullName(), name), "name": name,
		"description": "", "color": "ededed", "default": false}
}

func (s *Sim) commitRefJSON(r *repo, ref, sha string) obj {
	return obj{"label": r.owner + ":" + ref, "ref": ref, "sha": sha, "user": s.userJSON(s.accounts[strings.ToLower(r.owner)]), "repo": s.repoJSON(r)}
}

func (s *Sim) pullJSON(r *repo, p *pull, full bool) obj {
	u := s.api("/repos/%s/pulls/%d", r.fullName(), p.number)
	iu := s.api("/repos/%s/issues/%d", r.fullName(), p.number)
	labels := []any{}
	for _, l := range p.labels {
		labels = append(labels, s.labelJSON(r, l))
	}
	users := []any{}
	for _, l := range p.reqUsers {
		users = append(users, s.userByLogin(l))
	}
	teams := []any{}
	for _, t := range p.reqTeams {
		if tm := s.teams[strings.ToLower(r.owner+"/"+t)]; tm != nil {
			teams = append(teams, s.teamJSON(tm))
		}
	}
	htmlURL := s.html("/%s/pull/%d", r.fullName(), p.number)
	m := obj{
		"url": u, "id": p.id, "node_id": nodeID("PR", p.id), "html_url": htmlURL, "diff_url": htmlURL + ".diff", "patch_url": htmlURL + ".patch",
		"issue_url": iu, "commits_url": u + "/commits", "review_comments_url": u + "/comments",
		"review_comment_url": s.api("/repos/%s/pulls/comments{/number}", r.fullName()), "comments_url": iu + "/comments",
		"statuses_url": s.api("/repos/%s/statuses/%s", r.fullName(), p.headSHA), "number": p.number, "state": p.state, "locked": false,
		"title": p.title, "user": s.userByLogin(p.author), "body": nullIfEmpty(p.body), "labels": labels, "milestone": nil,
		"active_lock_reason": nil, "created_at": ts(p.created), "updated_at": ts(p.updated), "closed_at": ts(p.closed), "merged_at": nil,
		"merge_commit_sha": nil, "assignee": nil, "assignees": []any{}, "requested_reviewers": users, "requested_teams": teams,
		"head": s.commitRefJSON(r, p.headRef, p.headSHA), "base": s.commitRefJSON(r, p.baseRef, s.baseSHA(r, p)),
		"_links": obj{
			"self": obj{"href": u}, "html": obj{"href": htmlURL}, "issue": obj{"href": iu}, "comments": obj{"href": iu + "/comments"},
			"review_comments": obj{"href": u + "/comments"}, "review_comment": obj{"href": s.api("/repos/%s/pulls/comments{/number}", r.fullName())},
			"commits": obj{"href": u + "/commits"}, "statuses": obj{"href": s.api("/repos/%s/statuses/%s", r.fullName(), p.headSHA)},
		},
		"author_association": s.association(r, p.author), "auto_merge": nil, "draft": p.draft,
	}
	if p.merged {
		m["merged_at"] = ts(p.closed) // lists carry it too (pull-request-simple): how a merge is told from a close
	}
	if full {
		fds := s.pullDiff(r, p)
		add, del := 0, 0
		for _, fd := range fds {
			add += fd.additions
			del += fd.deletions
		}
		m["merged"] = p.merged
		m["mergeable"] = true
		m["rebaseable"] = true
		m["mergeable_state"] = "clean"
		m["merged_by"] = nil
		m["comments"] = len(p.issueComments)
		m["review_comments"] = len(p.reviewComments)
		m["maintainer_can_modify"] = false
		m["commits"] = len(commitsBetween(r, s.baseSHA(r, p), p.headSHA))
		m["additions"] = add
		m["deletions"] = del
		m["changed_files"] = len(fds)
	}
	return m
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// association is GitHub's author_association of login on r.
func (s *Sim) association(r *repo, login string) string {
	if strings.EqualFold(login, r.owner) {
		return "OWNER"
	}
	if s.orgRole(r.owner, login) != "" {
		return "MEMBER"
	}
	for _, t := range s.teams {
		if t.members[strings.ToLower(login)] && strings.EqualFold(t.org, r.owner) {
			return "MEMBER"
		}
	}
	if p := r.perms[strings.ToLower(login)]; p != "" && p != "none" {
		return "COLLABORATOR"
	}
	for _, p := range s.pulls {
		if p.repo == r.fullName() && strings.EqualFold(p.author, login) {
			return "CONTRIBUTOR"
		}
	}
	return "NONE"
}

func (s *Sim) issueCommentJSON(r *repo, cv conv, c *issueComment) obj {
	u := s.api("/repos/%s/issues/comments/%d", r.fullName(), c.id)
	return obj{
		"id": c.id, "node_id": nodeID("IC", c.id), "url": u, "html_url": s.html("/%s%s#issuecomment-%d", r.fullName(), cv.htmlPath(), c.id),
		"body": c.body, "user": s.userByLogin(c.author), "created_at": ts(c.created), "updated_at": ts(c.updated),
		"issue_url": s.api("/repos/%s/issues/%d", r.fullName(), cv.number()), "author_association": s.association(r, c.author),
		"performed_via_github_app": nil, "reactions": s.reactions(u),
	}
}

func (s *Sim) reactions(u string) obj {
	return obj{"url": u + "/reactions", "total_count": 0, "+1": 0, "-1": 0, "laugh": 0, "confused": 0, "heart": 0, "hooray": 0, "eyes": 0, "rocket": 0}
}

func (s *Sim) reviewJSON(r *repo, p *pull, rv *review) obj {
	htmlURL := s.html("/%s/pull/%d#pullrequestreview-%d", r.fullName(), p.number, rv.id)
	pu := s.api("/repos/%s/pulls/%d", r.fullName(), p.number)
	return obj{
		"id": rv.id, "node_id": nodeID("PRR", rv.id), "user": s.userByLogin(rv.author), "body": rv.body, "state": rv.state,
		"html_url": htmlURL, "pull_request_url": pu, "commit_id": rv.commitID, "submitted_at": ts(rv.at),
		"author_association": s.association(r, rv.author),
		"_links":             obj{"html": obj{"href": htmlURL}, "pull_request": obj{"href": pu}},
	}
}

func (s *Sim) reviewCommentJSON(r *repo, p *pull, c *reviewComment) obj {
	u := s.api("/repos/%s/pulls/comments/%d", r.fullName(), c.id)
	htmlURL := s.html("/%s/pull/%d#discussion_r%d", r.fullName(), p.number, c.id)
	pu := s.api("/repos/%s/pulls/%d", r.fullName(), p.number)
	m := obj{
		"url": u, "id": c.id, "node_id": nodeID("PRRC", c.id), "pull_request_review_id": c.reviewID, "diff_hunk": c.diffHunk,
		"path": c.path, "commit_id": c.commitID, "original_commit_id": c.originalCommit, "user": s.userByLogin(c.author),
		"body": c.body, "created_at": ts(c.created), "updated_at": ts(c.updated), "html_url": htmlURL, "pull_request_url": pu,
		"author_association": s.association(r, c.author), "side": c.side, "original_line": c.originalLine,
		"subject_type": "line", "reactions": s.reviewCommentReactions(u, c),
		"_links":   obj{"self": obj{"href": u}, "html": obj{"href": htmlURL}, "pull_request": obj{"href": pu}},
		"position": nil, "original_position": 1,
	}
	if c.line != 0 {
		m["line"] = c.line
		m["position"] = 1
	} else {
		m["line"] = nil
	}
	if c.inReplyTo != 0 {
		m["in_reply_to_id"] = c.inReplyTo
	}
	if c.originalStart != 0 {
		m["original_start_line"] = c.originalStart
		m["start_side"] = c.startSide
		if c.line != 0 {
			m["start_line"] = c.startLine
		} else {
			m["start_line"] = nil
		}
	} else {
		m["start_line"], m["original_start_line"], m["start_side"] = nil, nil, nil
	}
	return m
}

func (s *Sim) checkRunJSON(r *repo, c *checkRun) obj {
	u := s.api("/repos/%s/check-runs/%d", r.fullName(), c.id)
	prs := []any{}
	for _, p := range s.sortedPulls(r) {
		if p.state == "open" && p.headSHA == c.headSHA {
			prs = append(prs, obj{"id": p.id, "number": p.number, "url": s.api("/repos/%s/pulls/%d", r.fullName(), p.number),
				"head": obj{"ref": p.headRef, "sha": p.headSHA, "repo": obj{"id": r.id, "name": r.name, "url": s.api("/repos/%s", r.fullName())}},
				"base": obj{"ref": p.baseRef, "sha": s.baseSHA(r, p), "repo": obj{"id": r.id, "name": r.name, "url": s.api("/repos/%s", r.fullName())}}})
		}
	}
	var a any
	if ap := s.apps[c.appID]; ap != nil {
		a = s.appJSON(ap)
	}
	return obj{
		"id": c.id, "node_id": nodeID("CR", c.id), "head_sha": c.headSHA, "name": c.name, "url": u,
		"html_url": s.html("/%s/runs/%d", r.fullName(), c.id), "details_url": nullIfEmpty(c.detailsURL), "status": c.status,
		"conclusion": nullIfEmpty(c.conclusion), "started_at": ts(c.started), "completed_at": ts(c.completed),
		"external_id": c.externalID, "check_suite": obj{"id": c.id + 500000}, "app": a, "pull_requests": prs,
		"output": obj{"title": nullIfEmpty(c.title), "summary": nullIfEmpty(c.summary), "text": nullIfEmpty(c.text),
			"annotations_count": c.annotations, "annotations_url": u + "/annotations"},
	}
}

func (s *Sim) commitJSON(r *repo, c *commit, withFiles bool) obj {
	u := s.api("/repos/%s/commits/%s", r.fullName(), c.sha)
	shas, _ := trees(c.files)
	author := s.ensureAccount(firstNonEmpty(c.author, r.owner), "User")
	sig := obj{"name": author.name, "email": author.email, "date": ts(c.at)}
	parents := []any{}
	for _, p := range c.parents {
		parents = append(parents, obj{"sha": p, "url": s.api("/repos/%s/commits/%s", r.fullName(), p), "html_url": s.html("/%s/commit/%s", r.fullName(), p)})
	}
	m := obj{
		"sha": c.sha, "node_id": "C_sim" + c.sha, "url": u, "html_url": s.html("/%s/commit/%s", r.fullName(), c.sha),
		"comments_url": u + "/comments", "author": s.userJSON(author), "committer": s.userJSON(author), "parents": parents,
		"commit": obj{
			"url": s.api("/repos/%s/git/commits/%s", r.fullName(), c.sha), "author": sig, "committer": sig, "message": c.message,
			"comment_count": 0, "tree": obj{"sha": shas[""], "url": s.api("/repos/%s/git/trees/%s", r.fullName(), shas[""])},
			"verification": obj{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil, "verified_at": nil},
		},
	}
	if withFiles {
		var base map[string]string
		if len(c.parents) > 0 {
			base = r.commits[c.parents[0]].files
		}
		fds := diffTrees(base, c.files)
		add, del := 0, 0
		for _, fd := range fds {
			add += fd.additions
			del += fd.deletions
		}
		m["files"] = s.filesJSON(r, c.sha, fds)
		m["stats"] = obj{"additions": add, "deletions": del, "total": add + del}
	}
	return m
}

func (s *Sim) filesJSON(r *repo, sha string, fds []*fileDiff) []any {
	out := []any{}
	for _, fd := range fds {
		out = append(out, s.diffEntryJSON(r, sha, fd))
	}
	return out
}

func (s *Sim) diffEntryJSON(r *repo, sha string, fd *fileDiff) obj {
	m := obj{
		"sha": fd.sha, "filename": fd.path, "status": fd.status, "additions": fd.additions, "deletions": fd.deletions,
		"changes": fd.additions + fd.deletions, "blob_url": s.html("/%s/blob/%s/%s", r.fullName(), sha, fd.path),
		"raw_url": s.html("/%s/raw/%s/%s", r.fullName(), sha, fd.path), "contents_url": s.api("/repos/%s/contents/%s?ref=%s", r.fullName(), fd.path, sha),
	}
	if fd.patch != "" && !patchTooLarge(fd.patch) {
		m["patch"] = fd.patch
	}
	return m
}

// GitHub's limits on one file's diff ("Repository limits", docs.github.com:
// no single file's diff may exceed 20,000 lines or 500 KB of raw diff data).
// Past them, and for binary files, a diff entry has no patch.
const (
	maxFilePatchLines = 20_000
	maxFilePatchBytes = 500 << 10
)

func patchTooLarge(patch string) bool {
	return len(patch) > maxFilePatchBytes || strings.Count(patch, "\n")+1 > maxFilePatchLines
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
