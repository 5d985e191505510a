package ghsim

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// issue is a plain issue. Issues and pull requests share a repository's
// numbers (repo.nextNumber), as on GitHub; a pull request is also an issue
// (conv covers both).
type issue struct {
	number   int
	id       int64
	repo     string
	title    string
	body     string
	author   string
	state    string // open, closed
	reason   string // state_reason when closed: completed, not_planned
	labels   []string
	created  time.Time
	updated  time.Time
	closed   time.Time
	comments []*issueComment
}

// conv is what GitHub's issues API numbers: a pull request or a plain issue.
type conv struct {
	p *pull
	i *issue
}

func (cv conv) number() int {
	if cv.p != nil {
		return cv.p.number
	}
	return cv.i.number
}

func (cv conv) comments() *[]*issueComment {
	if cv.p != nil {
		return &cv.p.issueComments
	}
	return &cv.i.comments
}

// htmlPath is the page of the conversation below the repository's page.
func (cv conv) htmlPath() string {
	if cv.p != nil {
		return fmt.Sprintf("/pull/%d", cv.p.number)
	}
	return fmt.Sprintf("/issues/%d", cv.i.number)
}

// findConv looks up number n of r; nil fields when there is none.
func (s *Sim) findConv(r *repo, n int) conv {
	key := pullKey(r.fullName(), n)
	return conv{p: s.pulls[key], i: s.issues[key]}
}

func (cv conv) ok() bool { return cv.p != nil || cv.i != nil }

func (s *Sim) mustConv(repoName string, n int) (*repo, conv) {
	r := s.mustRepo(repoName)
	cv := s.findConv(r, n)
	if !cv.ok() {
		panic(fmt.Sprintf("ghsim: no issue or pull request %s#%d", repoName, n))
	}
	return r, cv
}

// CreateIssue opens a plain issue on repo ("owner/name") by author with
// labels and returns its number (shared with pull requests). No webhook is
// sent: GitHub's `issues` event is not one Chakshu's app subscribes to.
func (s *Sim) CreateIssue(repoName, title, body, author string, labels ...string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(repoName)
	s.ensureAccount(author, "User")
	for _, l := range labels {
		s.labelJSON(r, l) // gives the label an id
	}
	r.nextNumber++
	now := s.now()
	is := &issue{number: r.nextNumber, id: s.id(), repo: r.fullName(), title: title, body: body, author: author, state: "open",
		labels: slices.Clone(labels), created: now, updated: now}
	s.issues[pullKey(r.fullName(), is.number)] = is
	return is.number
}

// CloseIssue closes plain issue n as completed (or not_planned).
func (s *Sim) CloseIssue(repoName string, n int, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, cv := s.mustConv(repoName, n)
	if cv.i == nil {
		panic(fmt.Sprintf("ghsim: %s#%d is a pull request; use ClosePR", repoName, n))
	}
	cv.i.state, cv.i.reason = "closed", firstNonEmpty(reason, "completed")
	cv.i.closed = s.now()
	cv.i.updated = cv.i.closed
}

// convJSON is GitHub's issue shape of a pull request or a plain issue.
func (s *Sim) convJSON(r *repo, cv conv) obj {
	var (
		id                        int64
		nid                       string
		title, body, author       string
		state                     string
		reason                    any
		labelNames                []string
		created, updated, closedT time.Time
	)
	if p := cv.p; p != nil {
		id, nid, title, body, author, state = p.id+1, nodeID("PR", p.id), p.title, p.body, p.author, p.state
		labelNames, created, updated, closedT = p.labels, p.created, p.updated, p.closed
	} else {
		i := cv.i
		id, nid, title, body, author, state = i.id, nodeID("I", i.id), i.title, i.body, i.author, i.state
		labelNames, created, updated, closedT = i.labels, i.created, i.updated, i.closed
		reason = nullIfEmpty(i.reason)
	}
	u := s.api("/repos/%s/issues/%d", r.fullName(), cv.number())
	labels := []any{}
	for _, l := range labelNames {
		labels = append(labels, s.labelJSON(r, l))
	}
	htmlURL := s.html("/%s%s", r.fullName(), cv.htmlPath())
	m := obj{
		"url": u, "repository_url": s.api("/repos/%s", r.fullName()), "labels_url": u + "/labels{/name}", "comments_url": u + "/comments",
		"events_url": u + "/events", "html_url": htmlURL, "id": id, "node_id": nid, "number": cv.number(),
		"title": title, "user": s.userByLogin(author), "labels": labels, "state": state, "locked": false, "assignee": nil,
		"assignees": []any{}, "milestone": nil, "comments": len(*cv.comments()), "created_at": ts(created), "updated_at": ts(updated),
		"closed_at": ts(closedT), "author_association": s.association(r, author), "active_lock_reason": nil,
		"body": nullIfEmpty(body), "reactions": s.reactions(u), "timeline_url": u + "/timeline", "performed_via_github_app": nil,
		"state_reason": reason,
	}
	if p := cv.p; p != nil {
		m["draft"] = p.draft
		m["pull_request"] = obj{"url": s.api("/repos/%s/pulls/%d", r.fullName(), p.number), "html_url": htmlURL,
			"diff_url": htmlURL + ".diff", "patch_url": htmlURL + ".patch", "merged_at": nil}
	}
	return m
}

// conv resolves {owner}/{repo} and {issue_number}; on failure it has written the 404.
func (c *reqCtx) conv() (*repo, conv) {
	r := c.repo()
	if r == nil {
		return nil, conv{}
	}
	n, _ := strconv.Atoi(c.v("issue_number"))
	cv := c.s.findConv(r, n)
	if !cv.ok() {
		c.notFound()
	}
	return r, cv
}

func hGetIssue(c *reqCtx) {
	r, cv := c.conv()
	if cv.ok() {
		c.json(http.StatusOK, c.s.convJSON(r, cv))
	}
}

// ---- search ----

// searchQuery is a parsed `q` of GET /search/issues: the qualifiers the
// simulator understands (others are refused with GitHub's 422) and free
// words matched, case-insensitively, against title, body and comments.
type searchQuery struct {
	repos, orgs, labels, notLabels, authors, notAuthors []string
	kind                                                string // "", "issue", "pr"
	state                                               string // "", "open", "closed"
	words                                               []string
}

// splitQuery splits q on spaces outside double quotes and drops the quotes.
func splitQuery(q string) []string {
	var out []string
	var b strings.Builder
	quoted := false
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range q {
		switch {
		case r == '"':
			quoted = !quoted
		case (r == ' ' || r == '\t' || r == '\n') && !quoted:
			flush()
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return out
}

// unsimulated are GitHub's issue-search qualifiers the simulator does not
// evaluate: a query using one is refused (422) so a test notices.
var unsimulated = map[string]bool{
	"in": true, "created": true, "updated": true, "closed": true, "merged": true, "comments": true, "milestone": true,
	"assignee": true, "mentions": true, "commenter": true, "involves": true, "team": true, "no": true, "linked": true,
	"review": true, "reviewed-by": true, "review-requested": true, "draft": true, "base": true, "head": true, "status": true,
	"language": true, "project": true, "reason": true, "interactions": true, "reactions": true, "archived": true,
	"sort": true, "is": true, "state": true, "type": true, "repo": true, "org": true, "user": true,
}

func parseSearch(q string) (searchQuery, string) {
	var sq searchQuery
	for _, term := range splitQuery(q) {
		neg := strings.HasPrefix(term, "-")
		key, val, isQual := strings.Cut(strings.TrimPrefix(term, "-"), ":")
		key, val = strings.ToLower(key), strings.ToLower(val)
		switch {
		case !isQual || key == "" || !unsimulated[key] && key != "label" && key != "author":
			sq.words = append(sq.words, strings.ToLower(term)) // GitHub reads unknown qualifiers as text
		case key == "repo" && !neg:
			sq.repos = append(sq.repos, val)
		case (key == "org" || key == "user") && !neg:
			sq.orgs = append(sq.orgs, val)
		case key == "label" && !neg:
			sq.labels = append(sq.labels, val)
		case key == "label":
			sq.notLabels = append(sq.notLabels, val)
		case key == "author" && !neg:
			sq.authors = append(sq.authors, val)
		case key == "author":
			sq.notAuthors = append(sq.notAuthors, val)
		case (key == "is" || key == "type") && !neg && (val == "issue" || val == "pr" || val == "pull-request"):
			sq.kind = map[string]string{"issue": "issue", "pr": "pr", "pull-request": "pr"}[val]
		case (key == "is" || key == "state") && !neg && (val == "open" || val == "closed"):
			sq.state = val
		default:
			return sq, term
		}
	}
	return sq, ""
}

// match reports whether cv of r satisfies the query.
func (sq searchQuery) match(r *repo, cv conv) bool {
	full, owner := strings.ToLower(r.fullName()), strings.ToLower(r.owner)
	if len(sq.repos) > 0 && !slices.Contains(sq.repos, full) || len(sq.orgs) > 0 && !slices.Contains(sq.orgs, owner) {
		return false
	}
	var title, body, author, state string
	var labels []string
	if cv.p != nil {
		title, body, author, state, labels = cv.p.title, cv.p.body, cv.p.author, cv.p.state, cv.p.labels
	} else {
		title, body, author, state, labels = cv.i.title, cv.i.body, cv.i.author, cv.i.state, cv.i.labels
	}
	if sq.kind == "issue" && cv.p != nil || sq.kind == "pr" && cv.p == nil || sq.state != "" && sq.state != state {
		return false
	}
	author = strings.ToLower(author)
	if len(sq.authors) > 0 && !slices.Contains(sq.authors, author) || slices.Contains(sq.notAuthors, author) {
		return false
	}
	has := func(l string) bool {
		return slices.ContainsFunc(labels, func(x string) bool { return strings.EqualFold(x, l) })
	}
	for _, l := range sq.labels {
		if !has(l) {
			return false
		}
	}
	if slices.ContainsFunc(sq.notLabels, has) {
		return false
	}
	text := []string{strings.ToLower(title), strings.ToLower(body)}
	for _, c := range *cv.comments() {
		text = append(text, strings.ToLower(c.body))
	}
	all := strings.Join(text, "\n")
	for _, w := range sq.words {
		if !strings.Contains(all, w) {
			return false
		}
	}
	return true
}

func (cv conv) times() (created, updated time.Time) {
	if cv.p != nil {
		return cv.p.created, cv.p.updated
	}
	return cv.i.created, cv.i.updated
}

// hSearchIssues serves GET /search/issues over the repositories the caller
// can see (an installation token: its installation's repositories).
func hSearchIssues(c *reqCtx) {
	q := c.r.URL.Query()
	if strings.TrimSpace(q.Get("q")) == "" {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed", obj{"resource": "Search", "field": "q", "code": "missing"})
		return
	}
	sq, bad := parseSearch(q.Get("q"))
	if bad != "" {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed", obj{"resource": "Search", "field": "q", "code": "invalid",
			"message": "The simulator does not understand the qualifier " + strconv.Quote(bad)})
		return
	}
	// GitHub (since the 2026 issue search): every query must say is:issue or
	// is:pull-request, whatever the token.
	if sq.kind == "" {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed", obj{"resource": "Search", "field": "q", "code": "invalid",
			"message": "Query must include 'is:issue' or 'is:pull-request'"})
		return
	}
	type hit struct {
		r  *repo
		cv conv
	}
	var hits []hit
	for _, r := range c.s.sortedRepos() {
		if !c.s.canSee(c.tok, r) {
			continue
		}
		for n := 1; n <= r.nextNumber; n++ {
			if cv := c.s.findConv(r, n); cv.ok() && sq.match(r, cv) {
				hits = append(hits, hit{r, cv})
			}
		}
	}
	key := func(h hit) time.Time { _, u := h.cv.times(); return u } // best match: most recently updated first
	switch q.Get("sort") {
	case "created":
		key = func(h hit) time.Time { cr, _ := h.cv.times(); return cr }
	case "comments":
		key = func(h hit) time.Time { return time.Unix(int64(len(*h.cv.comments())), 0) }
	}
	asc := q.Get("sort") != "" && q.Get("order") == "asc"
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := key(hits[i]), key(hits[j])
		if a.Equal(b) {
			return hits[i].cv.number() < hits[j].cv.number() == asc
		}
		return a.Before(b) == asc
	})
	items := make([]any, 0, len(hits))
	for _, h := range hits {
		m := c.s.convJSON(h.r, h.cv)
		m["score"] = 1.0
		if m["body"] == nil {
			delete(m, "body") // search items' body is optional but not nullable
		}
		items = append(items, m)
	}
	c.json(http.StatusOK, obj{"total_count": len(items), "incomplete_results": false, "items": c.paginate(items), "search_type": "lexical"})
}

func (s *Sim) sortedRepos() []*repo {
	out := make([]*repo, 0, len(s.repos))
	for _, r := range s.repos {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}
