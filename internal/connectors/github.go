package connectors

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

var (
	repoName   = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$`)
	gitRef     = regexp.MustCompile(`^[A-Za-z0-9_./-]{1,200}$`)
	qualifiers = regexp.MustCompile(`(?i)(^|\s|\()-?(repo|org|user|owner|in:owner)\s*:`)
	// kindQualifier: GitHub's issue search refuses (422) a query that does
	// not say whether it wants issues or pull requests.
	kindQualifier = regexp.MustCompile(`(?i)(^|\s|\()(is|type):(issue|pr|pull-request)(\s|\)|$)`)
)

const (
	maxFileText    = 48 << 10
	maxIssueText   = 8 << 10
	maxCommentText = 2 << 10
	maxComments    = 30
	maxSearchHits  = 20
)

func schema(s string) json.RawMessage { return json.RawMessage(s) }

func (r *Registry) githubTools() []tool {
	return []tool{
		{def: runnerproto.ToolDef{
			Name:        "github.get_file",
			Description: "Read a file (or list a directory) of the reviewed repository, or of a repository the reviewer's github_repos lists, at a ref. Read-only.",
			InputSchema: schema(`{"type":"object","properties":{"repo":{"type":"string","description":"owner/name"},"path":{"type":"string"},"ref":{"type":"string","description":"branch, tag or commit; default branch when empty"}},"required":["repo","path"],"additionalProperties":false}`),
		}, run: r.githubGetFile},
		{def: runnerproto.ToolDef{
			Name:        "github.get_issue",
			Description: "Get an issue or pull request of the reviewed repository (or one the reviewer's github_repos lists), with its first comments. Read-only.",
			InputSchema: schema(`{"type":"object","properties":{"repo":{"type":"string","description":"owner/name"},"number":{"type":"integer","minimum":1}},"required":["repo","number"],"additionalProperties":false}`),
		}, run: r.githubGetIssue},
		{def: runnerproto.ToolDef{
			Name:        "github.search_issues",
			Description: "Search issues and pull requests of the reviewed repository or one the reviewer's github_repos lists (GitHub search syntax without repo/org/user qualifiers; without is:issue or is:pr both are searched).",
			InputSchema: schema(`{"type":"object","properties":{"repo":{"type":"string","description":"owner/name; the reviewed repository when empty"},"query":{"type":"string"}},"required":["query"],"additionalProperties":false}`),
		}, run: r.githubSearchIssues},
	}
}

// sameInstallation checks that the reviewer may read repo and returns its
// owner and name: the reviewed repository always; another repository only
// when it is one of s's installation that Chakshu knows (a public
// repository elsewhere is refused even though an installation token could
// read it), the reviewer's reviewer.yaml lists it under github_repos, and
// it is not private while the reviewed repository is public (its content
// would reach a public review or Actions log). Visibility is asked of
// GitHub, not taken from Chakshu's records.
func (r *Registry) sameInstallation(ctx context.Context, s Scope, repo string) (owner, name string, err error) {
	if repo == "" {
		repo = s.Repo
	}
	if !repoName.MatchString(repo) {
		return "", "", toolErr("repo must be owner/name")
	}
	if !strings.EqualFold(repo, s.Repo) {
		listed := false
		for _, l := range s.Config.GitHubRepos {
			listed = listed || strings.EqualFold(l, repo)
		}
		if !listed {
			return "", "", toolErr("repository %s is not the reviewed repository and the reviewer's github_repos does not list it", repo)
		}
	}
	ok, err := r.cfg.DB.Repository.Query().Where(
		repository.FullNameEqualFold(repo), repository.Removed(false),
		repository.HasInstallationWith(installation.ID(s.InstallationID))).Exist(ctx)
	if err != nil {
		return "", "", err
	}
	if !ok {
		return "", "", toolErr("repository %s is not one of this installation's repositories", repo)
	}
	owner, name, _ = strings.Cut(repo, "/")
	if !strings.EqualFold(repo, s.Repo) {
		if err := r.notPrivateIntoPublic(ctx, s, owner, name); err != nil {
			return "", "", err
		}
	}
	return owner, name, nil
}

// notPrivateIntoPublic refuses owner/name when it is private (or its
// visibility cannot be learnt) and the reviewed repository is public (or
// its visibility cannot be learnt).
func (r *Registry) notPrivateIntoPublic(ctx context.Context, s Scope, owner, name string) error {
	c, err := r.client(s)
	if err != nil {
		return err
	}
	target, _, err := c.Repositories.Get(ctx, owner, name)
	if err != nil {
		return ghErr(err, owner+"/"+name)
	}
	if !target.GetPrivate() && target.GetVisibility() != "internal" {
		return nil
	}
	runOwner, runName, _ := strings.Cut(s.Repo, "/")
	run, _, err := c.Repositories.Get(ctx, runOwner, runName)
	if err != nil {
		return toolErr("Chakshu could not tell whether %s is public, so it reads no private repository for it", s.Repo)
	}
	if !run.GetPrivate() {
		return toolErr("repository %s is private and %s is public: its content may not go into this review", owner+"/"+name, s.Repo)
	}
	return nil
}

// repoClient is what a GitHub tool reads repo with: its owner and name once
// sameInstallation allows it, and the installation's connector client.
func (r *Registry) repoClient(ctx context.Context, s Scope, repo string) (owner, name string, c *github.Client, err error) {
	if owner, name, err = r.sameInstallation(ctx, s, repo); err != nil {
		return "", "", nil, err
	}
	if c, err = r.client(s); err != nil {
		return "", "", nil, err
	}
	return owner, name, c, nil
}

func (r *Registry) client(s Scope) (*github.Client, error) {
	in, err := r.cfg.GitHub.InstallationFor(s.GitHubInstallationID, gh.ScopeConnectors)
	if err != nil {
		return nil, err
	}
	return in.REST, nil
}

// ghErr turns GitHub's 404 and 403 into answers the agent can act on.
func ghErr(err error, what string) error {
	var ge *github.ErrorResponse
	if errors.As(err, &ge) && ge.Response != nil {
		switch ge.Response.StatusCode {
		case http.StatusNotFound:
			return toolErr("%s was not found", what)
		case http.StatusForbidden, http.StatusUnauthorized:
			return toolErr("Chakshu may not read %s", what)
		case http.StatusUnprocessableEntity:
			return toolErr("GitHub refused the request for %s", what)
		}
	}
	return err
}

func (r *Registry) githubGetFile(ctx context.Context, s Scope, input json.RawMessage) (any, error) {
	var in struct{ Repo, Path, Ref string }
	if err := decodeInput(input, &in); err != nil {
		return nil, err
	}
	p := strings.Trim(in.Path, "/")
	if p == "" || strings.Contains(p, "..") || len(p) > 1000 {
		return nil, toolErr("path must be a relative path without ..")
	}
	if in.Ref != "" && !gitRef.MatchString(in.Ref) {
		return nil, toolErr("ref must be a branch, tag or commit")
	}
	owner, name, c, err := r.repoClient(ctx, s, in.Repo)
	if err != nil {
		return nil, err
	}
	f, dir, _, err := c.Repositories.GetContents(ctx, owner, name, p, &github.RepositoryContentGetOptions{Ref: in.Ref})
	if err != nil {
		return nil, ghErr(err, owner+"/"+name+":"+p)
	}
	if f == nil {
		entries := make([]map[string]string, 0, len(dir))
		for _, d := range dir {
			entries = append(entries, map[string]string{"name": d.GetName(), "type": d.GetType()})
		}
		return map[string]any{"repo": owner + "/" + name, "path": p, "ref": in.Ref, "entries": entries}, nil
	}
	text, err := f.GetContent()
	if err != nil {
		return nil, toolErr("the file could not be decoded")
	}
	text, cut := capText(text, maxFileText)
	return map[string]any{"repo": owner + "/" + name, "path": p, "ref": in.Ref, "size": f.GetSize(),
		"content": text, "truncated": cut}, nil
}

func (r *Registry) githubGetIssue(ctx context.Context, s Scope, input json.RawMessage) (any, error) {
	var in struct {
		Repo   string
		Number int
	}
	if err := decodeInput(input, &in); err != nil {
		return nil, err
	}
	if in.Number < 1 {
		return nil, toolErr("number must be 1 or more")
	}
	owner, name, c, err := r.repoClient(ctx, s, in.Repo)
	if err != nil {
		return nil, err
	}
	is, _, err := c.Issues.Get(ctx, owner, name, in.Number)
	if err != nil {
		return nil, ghErr(err, "that issue")
	}
	body, _ := capText(is.GetBody(), maxIssueText)
	out := map[string]any{
		"repo": owner + "/" + name, "number": is.GetNumber(), "title": is.GetTitle(), "state": is.GetState(),
		"author": is.GetUser().GetLogin(), "body": body, "url": is.GetHTMLURL(),
		"pull_request": is.IsPullRequest(), "labels": labelNames(is.Labels),
	}
	if is.IsPullRequest() {
		if pr, _, err := c.PullRequests.Get(ctx, owner, name, in.Number); err == nil {
			out["merged"] = pr.GetMerged()
			out["head_ref"] = pr.GetHead().GetRef()
			out["base_ref"] = pr.GetBase().GetRef()
		}
	}
	cs, _, err := c.Issues.ListComments(ctx, owner, name, in.Number, &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: maxComments}})
	if err != nil {
		return nil, ghErr(err, "the comments of that issue")
	}
	comments := make([]map[string]string, 0, len(cs))
	for _, cm := range cs {
		b, _ := capText(cm.GetBody(), maxCommentText)
		comments = append(comments, map[string]string{"author": cm.GetUser().GetLogin(), "body": b})
	}
	out["comments"] = comments
	return out, nil
}

func labelNames(ls []*github.Label) []string {
	out := make([]string, 0, len(ls))
	for _, l := range ls {
		out = append(out, l.GetName())
	}
	return out
}

func (r *Registry) githubSearchIssues(ctx context.Context, s Scope, input json.RawMessage) (any, error) {
	var in struct{ Repo, Query string }
	if err := decodeInput(input, &in); err != nil {
		return nil, err
	}
	q := strings.TrimSpace(in.Query)
	if q == "" || len(q) > 256 {
		return nil, toolErr("query must be 1 to 256 characters")
	}
	if qualifiers.MatchString(q) {
		return nil, toolErr("query may not name repositories, organisations or users; pass repo instead")
	}
	owner, name, c, err := r.repoClient(ctx, s, in.Repo)
	if err != nil {
		return nil, err
	}
	// A query naming neither issues nor pull requests means both: two
	// searches, issues first, since GitHub answers such a query with 422.
	queries := []string{q}
	if !kindQualifier.MatchString(q) {
		queries = []string{q + " is:issue", q + " is:pull-request"}
	}
	total := 0
	hits := make([]map[string]any, 0, maxSearchHits)
	for _, query := range queries {
		res, _, err := c.Search.Issues(ctx, query+" repo:"+owner+"/"+name, &github.SearchOptions{ListOptions: github.ListOptions{PerPage: maxSearchHits}})
		if err != nil {
			return nil, ghErr(err, "that search")
		}
		total += res.GetTotal()
		for _, is := range res.Issues {
			if len(hits) == maxSearchHits {
				break
			}
			hits = append(hits, map[string]any{"number": is.GetNumber(), "title": is.GetTitle(), "state": is.GetState(),
				"pull_request": is.IsPullRequest(), "url": is.GetHTMLURL()})
		}
	}
	return map[string]any{"repo": owner + "/" + name, "total": total, "items": hits}, nil
}
