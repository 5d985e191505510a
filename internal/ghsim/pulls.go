package ghsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

func pullKey(repoName string, n int) string { return strings.ToLower(repoName) + "#" + strconv.Itoa(n) }

func (s *Sim) mustPull(repoName string, n int) (*repo, *pull) {
	r := s.mustRepo(repoName)
	p := s.pulls[pullKey(r.fullName(), n)]
	if p == nil {
		panic(fmt.Sprintf("ghsim: no pull request %s#%d", repoName, n))
	}
	return r, p
}

func (s *Sim) sortedPulls(r *repo) []*pull {
	var out []*pull
	for _, p := range s.pulls {
		if p.repo == r.fullName() {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].number < out[j].number })
	return out
}

func (s *Sim) baseSHA(r *repo, p *pull) string {
	if sha := r.branches[p.baseRef]; sha != "" {
		return sha
	}
	return p.baseSHA
}

// pullDiff is the PR's diff: merge base of base and head, to head.
func (s *Sim) pullDiff(r *repo, p *pull) []*fileDiff {
	mb := mergeBase(r, s.baseSHA(r, p), p.headSHA)
	var base map[string]string
	if c := r.commits[mb]; c != nil {
		base = c.files
	}
	return diffTrees(base, r.commits[p.headSHA].files)
}

// OpenPR opens a pull request from headBranch into baseBranch by author and
// sends pull_request opened. Returns its number.
func (s *Sim) OpenPR(repoName, headBranch, baseBranch, title, body, author string, draft bool) int {
	s.mu.Lock()
	r := s.mustRepo(repoName)
	head, ok := r.branches[headBranch]
	if !ok {
		s.mu.Unlock()
		panic("ghsim: no branch " + headBranch)
	}
	s.ensureAccount(author, "User")
	r.nextNumber++
	now := s.now()
	p := &pull{number: r.nextNumber, id: s.id(), repo: r.fullName(), title: title, body: body, author: author, headRef: headBranch,
		baseRef: baseBranch, headSHA: head, baseSHA: r.branches[baseBranch], draft: draft, state: "open", created: now, updated: now}
	s.pulls[pullKey(r.fullName(), p.number)] = p
	s.emitPull(r, p, "opened", author, nil)
	s.mu.Unlock()
	s.flush()
	return p.number
}

// ClosePR closes the pull request and sends pull_request closed.
func (s *Sim) ClosePR(repoName string, n int, actor string) {
	s.changePull(repoName, n, actor, "closed", func(_ *repo, p *pull, now time.Time) obj {
		p.state = "closed"
		p.closed = now
		return nil
	})
}

// ReopenPR reopens a pull request closed without merging and sends
// pull_request reopened.
func (s *Sim) ReopenPR(repoName string, n int, actor string) {
	s.changePull(repoName, n, actor, "reopened", func(_ *repo, p *pull, _ time.Time) obj {
		if p.merged {
			s.mu.Unlock()
			panic("ghsim: a merged pull request cannot be reopened")
		}
		p.state = "open"
		p.closed = time.Time{}
		return nil
	})
}

// MergePR merges the pull request as GitHub's merge button does and sends
// pull_request closed with "merged": true (docs.github.com webhook events
// "pull_request" closed: "If merged is false in the webhook payload, the pull
// request was closed with unmerged commits. If merged is true, the pull
// request was merged"). The base branch is not moved.
func (s *Sim) MergePR(repoName string, n int, actor string) {
	s.changePull(repoName, n, actor, "closed", func(_ *repo, p *pull, now time.Time) obj {
		p.state = "closed"
		p.merged = true
		p.closed = now
		return nil
	})
}

// ReadyForReview marks a draft ready and sends pull_request ready_for_review.
func (s *Sim) ReadyForReview(repoName string, n int, actor string) {
	s.changePull(repoName, n, actor, "ready_for_review", func(_ *repo, p *pull, _ time.Time) obj {
		p.draft = false
		return nil
	})
}

// AddLabel labels the pull request and sends pull_request labeled.
func (s *Sim) AddLabel(repoName string, n int, label, actor string) {
	s.changePull(repoName, n, actor, "labeled", func(r *repo, p *pull, _ time.Time) obj {
		if !slices.Contains(p.labels, label) {
			p.labels = append(p.labels, label)
		}
		return obj{"label": s.labelJSON(r, label)}
	})
}

// changePull is a change by actor to pull request n of repoName, under the
// lock: change makes it (at now, which also stamps the PR updated) and
// returns the payload's extra fields; then pull_request action is sent.
func (s *Sim) changePull(repoName string, n int, actor, action string, change func(r *repo, p *pull, now time.Time) obj) {
	s.mu.Lock()
	r, p := s.mustPull(repoName, n)
	now := s.now()
	extra := change(r, p, now)
	p.updated = now
	s.emitPull(r, p, action, actor, extra)
	s.mu.Unlock()
	s.flush()
}

// RequestReviewers requests reviews from users and teams (slugs of the
// repo owner's teams) and sends one pull_request review_requested each.
func (s *Sim) RequestReviewers(repoName string, n int, actor string, users, teams []string) {
	s.mu.Lock()
	r, p := s.mustPull(repoName, n)
	s.requestReviewers(r, p, actor, users, teams)
	s.mu.Unlock()
	s.flush()
}

func (s *Sim) requestReviewers(r *repo, p *pull, actor string, users, teams []string) {
	for _, u := range users {
		a := s.ensureAccount(u, "User")
		if !slices.Contains(p.reqUsers, a.login) {
			p.reqUsers = append(p.reqUsers, a.login)
		}
		s.emitPull(r, p, "review_requested", actor, obj{"requested_reviewer": s.userJSON(a)})
	}
	for _, t := range teams {
		tm := s.teams[strings.ToLower(r.owner+"/"+t)]
		if tm == nil {
			continue
		}
		if !slices.Contains(p.reqTeams, tm.slug) {
			p.reqTeams = append(p.reqTeams, tm.slug)
		}
		s.emitPull(r, p, "review_requested", actor, obj{"requested_team": s.teamJSON(tm)})
	}
	p.updated = s.now()
}

// Comment posts an issue comment on the pull request (or plain issue) as
// author and sends issue_comment created. Returns the comment id.
func (s *Sim) Comment(repoName string, n int, author, body string) int64 {
	s.mu.Lock()
	r, cv := s.mustConv(repoName, n)
	c := s.addIssueComment(r, cv, author, body)
	s.mu.Unlock()
	s.flush()
	return c.id
}

func (s *Sim) addIssueComment(r *repo, cv conv, author, body string) *issueComment {
	s.ensureAccount(author, "User")
	c := &issueComment{id: s.id(), body: body, author: author, created: s.now(), updated: s.now()}
	list := cv.comments()
	*list = append(*list, c)
	if cv.i != nil {
		cv.i.updated = c.created
	}
	s.emit("issue_comment", s.instID(r), obj{
		"action": "created", "issue": s.convJSON(r, cv), "comment": s.issueCommentJSON(r, cv, c),
		"repository": s.repoJSON(r), "sender": s.userByLogin(author),
	})
	return c
}

// ReplyToReviewComment replies in the thread of review comment commentID as
// author and sends pull_request_review_comment created. Returns the reply id.
func (s *Sim) ReplyToReviewComment(repoName string, n int, commentID int64, author, body string) int64 {
	s.mu.Lock()
	r, p := s.mustPull(repoName, n)
	c, err := s.addReply(r, p, commentID, author, body)
	s.mu.Unlock()
	if err != nil {
		panic(err)
	}
	s.flush()
	return c.id
}

func (s *Sim) addReply(r *repo, p *pull, commentID int64, author, body string) (*reviewComment, error) {
	var parent *reviewComment
	for _, c := range p.reviewComments {
		if c.id == commentID {
			parent = c
		}
	}
	if parent == nil {
		return nil, fmt.Errorf("ghsim: no review comment %d on %s#%d", commentID, r.fullName(), p.number)
	}
	root := parent
	if parent.inReplyTo != 0 {
		for _, c := range p.reviewComments {
			if c.id == parent.inReplyTo {
				root = c
			}
		}
	}
	s.ensureAccount(author, "User")
	rv := &review{id: s.id(), author: author, state: "COMMENTED", event: "COMMENT", commitID: p.headSHA, at: s.now()}
	p.reviews = append(p.reviews, rv)
	c := &reviewComment{id: s.id(), reviewID: rv.id, author: author, body: body, path: root.path, line: root.line,
		originalLine: root.originalLine, startLine: root.startLine, originalStart: root.originalStart, side: root.side,
		startSide: root.startSide, commitID: root.commitID, originalCommit: root.originalCommit, diffHunk: root.diffHunk,
		inReplyTo: root.id, threadID: root.threadID, created: s.now(), updated: s.now()}
	p.reviewComments = append(p.reviewComments, c)
	for _, t := range p.threads {
		if t.id == root.threadID {
			t.comments = append(t.comments, c.id)
		}
	}
	s.emit("pull_request_review_comment", s.instID(r), obj{
		"action": "created", "comment": s.reviewCommentJSON(r, p, c), "pull_request": s.pullJSON(r, p, false),
		"repository": s.repoJSON(r), "sender": s.userByLogin(author),
	})
	return c, nil
}

// AddReview posts a COMMENT review by author with inline comments on the
// PR's head, as a person (or another bot) does; it panics when GitHub would
// refuse it.
func (s *Sim) AddReview(repoName string, n int, author, body string, comments []ReviewCommentInput) int64 {
	s.mu.Lock()
	r, p := s.mustPull(repoName, n)
	s.ensureAccount(author, "User")
	rv, msg := s.createReview(r, p, author, body, "COMMENT", "", comments)
	s.mu.Unlock()
	if rv == nil {
		panic("ghsim: review refused: " + msg)
	}
	s.flush()
	return rv.id
}

// ReviewCommentInput is one inline comment of a review (REST field names).
type ReviewCommentInput struct {
	Path      string `json:"path"`
	Line      int    `json:"line,omitempty"`
	Side      string `json:"side,omitempty"`
	StartLine int    `json:"start_line,omitempty"`
	StartSide string `json:"start_side,omitempty"`
	Position  int    `json:"position,omitempty"`
	Body      string `json:"body"`
}

// createReview validates and records a review. It returns a GitHub error
// message when the review is rejected (every comment must be on the diff).
func (s *Sim) createReview(r *repo, p *pull, author, body, event, commitID string, comments []ReviewCommentInput) (*review, string) {
	if commitID == "" {
		commitID = p.headSHA
	}
	if _, ok := r.commits[commitID]; !ok {
		return nil, "No commit found for SHA: " + commitID
	}
	state := map[string]string{"COMMENT": "COMMENTED", "APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "": "PENDING"}[event]
	if state == "" {
		return nil, "Unprocessable Entity"
	}
	if (event == "COMMENT" || event == "REQUEST_CHANGES") && body == "" && len(comments) == 0 {
		return nil, "Review Comment is missing"
	}
	// Diff of the commit the review is on.
	pc := *p
	pc.headSHA = commitID
	files := map[string]*fileDiff{}
	for _, fd := range s.pullDiff(r, &pc) {
		files[fd.path] = fd
	}
	for _, c := range comments {
		fd := files[c.Path]
		if fd == nil {
			return nil, "Path could not be resolved"
		}
		side := firstNonEmpty(c.Side, "RIGHT")
		lines := fd.right
		if side == "LEFT" {
			lines = fd.left
		}
		if c.Line == 0 && c.Position == 0 {
			return nil, "Pull request review thread line must be part of the diff"
		}
		if c.Line != 0 && !lines[c.Line] {
			return nil, "Pull request review thread line must be part of the diff and Pull request review thread diff hunk can't be blank"
		}
		if c.StartLine != 0 {
			sl := fd.right
			if firstNonEmpty(c.StartSide, side) == "LEFT" {
				sl = fd.left
			}
			if !sl[c.StartLine] || c.StartLine >= c.Line && side == firstNonEmpty(c.StartSide, side) {
				return nil, "Pull request review thread start line must be part of the same hunk as the line."
			}
		}
	}
	rv := &review{id: s.id(), author: author, body: body, state: state, event: event, commitID: commitID, at: s.now()}
	p.reviews = append(p.reviews, rv)
	for _, c := range comments {
		side := firstNonEmpty(c.Side, "RIGHT")
		line := c.Line
		fd := files[c.Path]
		if line == 0 { // legacy position: the n-th line of the patch
			line = positionToLine(fd, c.Position)
		}
		key := [2]int{1, line}
		if side == "LEFT" {
			key = [2]int{0, line}
		}
		rc := &reviewComment{id: s.id(), reviewID: rv.id, author: author, body: c.Body, path: c.Path, line: line, originalLine: line,
			startLine: c.StartLine, originalStart: c.StartLine, side: side, commitID: commitID, originalCommit: commitID,
			diffHunk: fd.hunkOf[key], created: s.now(), updated: s.now()}
		if c.StartLine != 0 {
			rc.startSide = firstNonEmpty(c.StartSide, side)
		}
		t := &thread{id: s.id(), rootID: rc.id, comments: []int64{rc.id}, path: c.Path}
		rc.threadID = t.id
		p.threads = append(p.threads, t)
		p.reviewComments = append(p.reviewComments, rc)
	}
	if state != "PENDING" {
		// GitHub sends one pull_request_review_comment created per inline
		// comment of a submitted review, then the review itself.
		for _, rc := range p.reviewComments {
			if rc.reviewID == rv.id {
				s.emit("pull_request_review_comment", s.instID(r), obj{
					"action": "created", "comment": s.reviewCommentJSON(r, p, rc), "pull_request": s.pullJSON(r, p, false),
					"repository": s.repoJSON(r), "sender": s.userByLogin(author),
				})
			}
		}
		s.emit("pull_request_review", s.instID(r), obj{
			"action": "submitted", "review": s.reviewJSON(r, p, rv), "pull_request": s.pullJSON(r, p, false),
			"repository": s.repoJSON(r), "sender": s.userByLogin(author),
		})
		// Reviewing clears the author's pending request.
		p.reqUsers = slices.DeleteFunc(p.reqUsers, func(u string) bool { return strings.EqualFold(u, author) })
	}
	return rv, ""
}

func positionToLine(fd *fileDiff, pos int) int {
	lines := strings.Split(fd.patch, "\n")
	newLine := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "@@") {
			var a, b, c, d int
			if n, _ := fmt.Sscanf(l, "@@ -%d,%d +%d,%d @@", &a, &b, &c, &d); n == 4 {
				newLine = c - 1
			} else if n, _ := fmt.Sscanf(l, "@@ -%d +%d,%d @@", &a, &c, &d); n == 3 {
				newLine = c - 1
			}
			continue
		}
		if !strings.HasPrefix(l, "-") {
			newLine++
		}
		if i == pos {
			return newLine
		}
	}
	return newLine
}

// pullMoved handles a push to a PR's head: synchronize webhook and thread
// positions (isOutdated).
func (s *Sim) pullMoved(r *repo, p *pull, before, after string) {
	oldHead := p.headSHA
	p.headSHA = after
	p.updated = s.now()
	s.emitPull(r, p, "synchronize", p.author, obj{"before": before, "after": after})
	files := map[string]*fileDiff{}
	for _, fd := range s.pullDiff(r, p) {
		files[fd.path] = fd
	}
	_ = oldHead
	byID := map[int64]*reviewComment{}
	for _, c := range p.reviewComments {
		byID[c.id] = c
	}
	newFiles := r.commits[after].files
	for _, t := range p.threads {
		root := byID[t.rootID]
		if t.outdated || root == nil || root.line == 0 {
			continue
		}
		oldFiles := r.commits[root.commitID].files
		outdated := false
		newLine, newStart := root.line, root.startLine
		if root.side == "LEFT" {
			outdated = files[root.path] == nil || !files[root.path].left[root.line]
		} else {
			var ok bool
			newLine, ok = mapLine(oldFiles[root.path], newFiles[root.path], root.line)
			if _, exists := newFiles[root.path]; !exists || !ok {
				outdated = true
			}
			if !outdated && root.startLine != 0 {
				newStart, ok = mapLine(oldFiles[root.path], newFiles[root.path], root.startLine)
				outdated = !ok
			}
			if fd := files[root.path]; !outdated && (fd == nil || !fd.right[newLine]) {
				outdated = true
			}
		}
		for _, id := range t.comments {
			c := byID[id]
			if outdated {
				c.line, c.startLine = 0, 0
			} else {
				c.line, c.startLine, c.commitID = newLine, newStart, after
			}
		}
		t.outdated = outdated
	}
}

// instID is the installation (of the webhook app) covering r, or 0.
func (s *Sim) instID(r *repo) int64 {
	if in := s.installationFor(r); in != nil {
		return in.id
	}
	return 0
}

func (s *Sim) emitPull(r *repo, p *pull, action, actor string, extra obj) {
	payload := obj{"action": action, "number": p.number, "pull_request": s.pullJSON(r, p, true), "repository": s.repoJSON(r),
		"sender": s.userByLogin(firstNonEmpty(actor, p.author))}
	for k, v := range extra {
		payload[k] = v
	}
	s.emit("pull_request", s.instID(r), payload)
}

// ---- REST handlers ----

func (c *reqCtx) pull() (*repo, *pull) {
	r := c.repo()
	if r == nil {
		return nil, nil
	}
	n, _ := strconv.Atoi(firstNonEmpty(c.v("pull_number"), c.v("issue_number")))
	p := c.s.pulls[pullKey(r.fullName(), n)]
	if p == nil {
		c.notFound()
		return nil, nil
	}
	return r, p
}

func hGetPull(c *reqCtx) {
	r, p := c.pull()
	if p == nil {
		return
	}
	accept := c.r.Header.Get("Accept")
	switch {
	case strings.Contains(accept, "diff"), strings.Contains(accept, "patch"):
		fds := c.s.pullDiff(r, p)
		if len(fds) > maxDiffFiles {
			c.json(http.StatusNotAcceptable, diffTooLarge(fmt.Sprintf("Sorry, the diff exceeded the maximum number of files (%d). "+
				"Consider using 'List pull requests files' API or locally cloning the repository instead.", maxDiffFiles)))
			return
		}
		diff := unifiedDiff(fds)
		if strings.Count(diff, "\n") > maxDiffLines {
			c.json(http.StatusNotAcceptable, diffTooLarge(fmt.Sprintf("Sorry, the diff exceeded the maximum number of lines (%d)", maxDiffLines)))
			return
		}
		c.w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		c.w.WriteHeader(http.StatusOK)
		_, _ = c.w.Write([]byte(diff))
	default:
		c.json(http.StatusOK, c.s.pullJSON(r, p, true))
	}
}

func hListPulls(c *reqCtx) {
	r := c.repo()
	if r == nil {
		return
	}
	state := firstNonEmpty(c.r.URL.Query().Get("state"), "open")
	var items []any
	for _, p := range c.s.sortedPulls(r) {
		if state == "all" || p.state == state {
			if h := c.r.URL.Query().Get("head"); h != "" && !strings.HasSuffix(h, ":"+p.headRef) && h != p.headRef {
				continue
			}
			items = append(items, c.s.pullJSON(r, p, false))
		}
	}
	slices.Reverse(items)
	c.json(http.StatusOK, c.paginate(items))
}

func hPullFiles(c *reqCtx) {
	r, p := c.pull()
	if p == nil {
		return
	}
	fds := c.s.pullDiff(r, p)
	if len(fds) > maxListedFiles {
		fds = fds[:maxListedFiles]
	}
	c.json(http.StatusOK, c.paginate(c.s.filesJSON(r, p.headSHA, fds)))
}

// GitHub refuses a pull request's whole diff (the diff and patch media types)
// past 300 files or 20,000 lines with 406 and diffTooLarge's body ("Repository
// limits" on docs.github.com: at most 300 files, 20,000 lines in a diff); its
// files list has no such cap but stops at 3,000 files ("List pull requests
// files": "Responses include a maximum of 3000 files").
const (
	maxDiffFiles   = 300
	maxDiffLines   = 20_000
	maxListedFiles = 3000
)

func diffTooLarge(msg string) obj {
	return obj{
		"message":           msg,
		"errors":            []any{obj{"resource": "PullRequest", "field": "diff", "code": "too_large"}},
		"documentation_url": "https://docs.github.com/rest/pulls/pulls#list-pull-requests-files", "status": "406",
	}
}

func hPullCommits(c *reqCtx) {
	r, p := c.pull()
	if p == nil {
		return
	}
	var items []any
	for _, cm := range commitsBetween(r, mergeBase(r, c.s.baseSHA(r, p), p.headSHA), p.headSHA) {
		items = append(items, c.s.commitJSON(r, cm, false))
	}
	c.json(http.StatusOK, c.paginate(items))
}

func hListIssueComments(c *reqCtx) {
	r, cv := c.conv()
	if !cv.ok() {
		return
	}
	var items []any
	for _, ic := range *cv.comments() {
		items = append(items, c.s.issueCommentJSON(r, cv, ic))
	}
	c.json(http.StatusOK, c.paginate(items))
}

func hCreateIssueComment(c *reqCtx) {
	r, cv := c.conv()
	if !cv.ok() {
		return
	}
	if !c.s.hasPerm(c.tok, r, "issues", "write") && !c.need(r, "pull_requests", "write") {
		return
	}
	var in struct {
		Body string `json:"body"`
	}
	if !c.decode(&in) {
		return
	}
	if in.Body == "" {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed", obj{"resource": "IssueComment", "code": "missing_field", "field": "body"})
		return
	}
	if tooLong(in.Body) {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed", bodyTooLong("IssueComment"))
		return
	}
	ic := c.s.addIssueComment(r, cv, c.actor().login, in.Body)
	c.json(http.StatusCreated, c.s.issueCommentJSON(r, cv, ic))
}

func (c *reqCtx) findIssueComment() (*repo, conv, *issueComment) {
	r := c.repo()
	if r == nil {
		return nil, conv{}, nil
	}
	id, _ := strconv.ParseInt(c.v("comment_id"), 10, 64)
	for n := 1; n <= r.nextNumber; n++ {
		cv := c.s.findConv(r, n)
		if !cv.ok() {
			continue
		}
		for _, ic := range *cv.comments() {
			if ic.id == id {
				return r, cv, ic
			}
		}
	}
	c.notFound()
	return nil, conv{}, nil
}

func hGetIssueComment(c *reqCtx) {
	r, cv, ic := c.findIssueComment()
	if ic != nil {
		c.json(http.StatusOK, c.s.issueCommentJSON(r, cv, ic))
	}
}

func hUpdateIssueComment(c *reqCtx) {
	r, cv, ic := c.findIssueComment()
	if ic == nil || !c.need(r, "issues", "write") {
		return
	}
	var in struct {
		Body string `json:"body"`
	}
	if !c.decode(&in) {
		return
	}
	ic.body = in.Body
	ic.updated = c.s.now()
	c.json(http.StatusOK, c.s.issueCommentJSON(r, cv, ic))
}

func hCreateReview(c *reqCtx) {
	var in struct {
		CommitID string               `json:"commit_id"`
		Body     string               `json:"body"`
		Event    string               `json:"event"`
		Comments []ReviewCommentInput `json:"comments"`
	}
	r, p := c.writePull(&in)
	if p == nil {
		return
	}
	// This operation's 422 lists errors as strings.
	if tooLong(in.Body) {
		c.fail(http.StatusUnprocessableEntity, "Unprocessable Entity", "Body is too long (maximum is 65536 characters)")
		return
	}
	for _, cm := range in.Comments {
		if tooLong(cm.Body) {
			c.fail(http.StatusUnprocessableEntity, "Unprocessable Entity", "Body is too long (maximum is 65536 characters)")
			return
		}
	}
	rv, msg := c.s.createReview(r, p, c.actor().login, in.Body, in.Event, in.CommitID, in.Comments)
	if rv == nil {
		c.fail(http.StatusUnprocessableEntity, "Unprocessable Entity", msg)
		return
	}
	c.json(http.StatusOK, c.s.reviewJSON(r, p, rv))
}

// writePull finds the request's pull request, checks that the caller may
// write pull requests, then decodes the body into in; a nil pull request
// says it has answered.
func (c *reqCtx) writePull(in any) (*repo, *pull) {
	r, p := c.pull()
	if p == nil || !c.need(r, "pull_requests", "write") || !c.decode(in) {
		return nil, nil
	}
	return r, p
}

func hListReviews(c *reqCtx) {
	listOfPull(c, func(p *pull) []*review { return p.reviews }, c.s.reviewJSON)
}

func hListReviewComments(c *reqCtx) {
	listOfPull(c, func(p *pull) []*reviewComment { return p.reviewComments }, c.s.reviewCommentJSON)
}

// listOfPull answers a page of what of picks from the request's pull
// request, each as toJSON writes it.
func listOfPull[T any](c *reqCtx, of func(*pull) []T, toJSON func(*repo, *pull, T) obj) {
	r, p := c.pull()
	if p == nil {
		return
	}
	var items []any
	for _, v := range of(p) {
		items = append(items, toJSON(r, p, v))
	}
	c.json(http.StatusOK, c.paginate(items))
}

func hReplyReviewComment(c *reqCtx) {
	var in struct {
		Body string `json:"body"`
	}
	r, p := c.writePull(&in)
	if p == nil {
		return
	}
	if tooLong(in.Body) {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed", bodyTooLong("PullRequestReviewComment"))
		return
	}
	id, _ := strconv.ParseInt(c.v("comment_id"), 10, 64)
	rc, err := c.s.addReply(r, p, id, c.actor().login, in.Body)
	if err != nil {
		c.notFound()
		return
	}
	c.json(http.StatusCreated, c.s.reviewCommentJSON(r, p, rc))
}

// hCreateReviewComment is the single-comment endpoint: a reply when
// in_reply_to is set, else a one-comment review.
func hCreateReviewComment(c *reqCtx) {
	var in struct {
		ReviewCommentInput
		CommitID  string `json:"commit_id"`
		InReplyTo int64  `json:"in_reply_to"`
	}
	r, p := c.writePull(&in)
	if p == nil {
		return
	}
	if in.InReplyTo != 0 {
		rc, err := c.s.addReply(r, p, in.InReplyTo, c.actor().login, in.Body)
		if err != nil {
			c.notFound()
			return
		}
		c.json(http.StatusCreated, c.s.reviewCommentJSON(r, p, rc))
		return
	}
	rv, msg := c.s.createReview(r, p, c.actor().login, "", "COMMENT", in.CommitID, []ReviewCommentInput{in.ReviewCommentInput})
	if rv == nil {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed", obj{"resource": "PullRequestReviewComment", "code": "custom", "field": "pull_request_review_thread.line", "message": msg})
		return
	}
	last := p.reviewComments[len(p.reviewComments)-1]
	c.json(http.StatusCreated, c.s.reviewCommentJSON(r, p, last))
}

func hGetReviewComment(c *reqCtx) {
	r := c.repo()
	if r == nil {
		return
	}
	id, _ := strconv.ParseInt(c.v("comment_id"), 10, 64)
	for _, p := range c.s.sortedPulls(r) {
		for _, rc := range p.reviewComments {
			if rc.id == id {
				c.json(http.StatusOK, c.s.reviewCommentJSON(r, p, rc))
				return
			}
		}
	}
	c.notFound()
}

// reviewersInput is the body of the requested_reviewers endpoints.
type reviewersInput struct {
	Reviewers     []string `json:"reviewers"`
	TeamReviewers []string `json:"team_reviewers"`
}

func hRequestReviewers(c *reqCtx) {
	var in reviewersInput
	r, p := c.writePull(&in)
	if p == nil {
		return
	}
	c.s.requestReviewers(r, p, c.actor().login, in.Reviewers, in.TeamReviewers)
	c.json(http.StatusCreated, c.s.pullJSON(r, p, false))
}

func hRemoveRequestedReviewers(c *reqCtx) {
	var in reviewersInput
	r, p := c.writePull(&in)
	if p == nil {
		return
	}
	for _, u := range in.Reviewers {
		p.reqUsers = slices.DeleteFunc(p.reqUsers, func(x string) bool { return strings.EqualFold(x, u) })
		c.s.emitPull(r, p, "review_request_removed", c.actor().login, obj{"requested_reviewer": c.s.userByLogin(u)})
	}
	for _, t := range in.TeamReviewers {
		p.reqTeams = slices.DeleteFunc(p.reqTeams, func(x string) bool { return strings.EqualFold(x, t) })
		if tm := c.s.teams[strings.ToLower(r.owner+"/"+t)]; tm != nil {
			c.s.emitPull(r, p, "review_request_removed", c.actor().login, obj{"requested_team": c.s.teamJSON(tm)})
		}
	}
	c.json(http.StatusOK, c.s.pullJSON(r, p, false))
}

func hListRequestedReviewers(c *reqCtx) {
	r, p := c.pull()
	if p == nil {
		return
	}
	m := c.s.pullJSON(r, p, false)
	c.json(http.StatusOK, obj{"users": m["requested_reviewers"], "teams": m["requested_teams"]})
}

func hAddLabels(c *reqCtx) {
	r, p := c.pull()
	if p == nil || !c.need(r, "issues", "write") {
		return
	}
	// GitHub documents {"labels": [...]} and still accepts a bare array.
	var raw json.RawMessage
	if !c.decode(&raw) {
		return
	}
	var in struct {
		Labels []string `json:"labels"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		if err := json.Unmarshal(raw, &in.Labels); err != nil {
			c.fail(http.StatusUnprocessableEntity, "Invalid request.")
			return
		}
	}
	var out []any
	for _, l := range in.Labels {
		if !slices.Contains(p.labels, l) {
			p.labels = append(p.labels, l)
			c.s.emitPull(r, p, "labeled", c.actor().login, obj{"label": c.s.labelJSON(r, l)})
		}
	}
	for _, l := range p.labels {
		out = append(out, c.s.labelJSON(r, l))
	}
	c.json(http.StatusOK, out)
}

func hRemoveLabel(c *reqCtx) {
	r, p := c.pull()
	if p == nil || !c.need(r, "issues", "write") {
		return
	}
	name := c.v("name")
	if !slices.Contains(p.labels, name) {
		c.fail(http.StatusNotFound, "Label does not exist")
		return
	}
	p.labels = slices.DeleteFunc(p.labels, func(x string) bool { return x == name })
	c.s.emitPull(r, p, "unlabeled", c.actor().login, obj{"label": c.s.labelJSON(r, name)})
	out := []any{}
	for _, l := range p.labels {
		out = append(out, c.s.labelJSON(r, l))
	}
	c.json(http.StatusOK, out)
}

// maxBody is GitHub's limit on comment and review bodies, in characters.
const maxBody = 65536

func tooLong(body string) bool { return utf8.RuneCountInString(body) > maxBody }

func bodyTooLong(resource string) obj {
	return obj{"resource": resource, "code": "custom", "field": "body", "message": "body is too long (maximum is 65536 characters)"}
}

// perPage is the request's per_page: GitHub's default 30, at most 100.
func (c *reqCtx) perPage() int {
	per, _ := strconv.Atoi(c.r.URL.Query().Get("per_page"))
	if per <= 0 {
		return 30
	}
	return min(per, 100)
}

// paginate cuts items to the requested page and sets GitHub's Link header.
func (c *reqCtx) paginate(items []any) []any {
	q := c.r.URL.Query()
	per := c.perPage()
	page, _ := strconv.Atoi(q.Get("page"))
	if page <= 0 {
		page = 1
	}
	last := (len(items) + per - 1) / per
	if last == 0 {
		last = 1
	}
	link := func(n int, rel string) string {
		u := *c.r.URL
		qq := u.Query()
		qq.Set("page", strconv.Itoa(n))
		qq.Set("per_page", strconv.Itoa(per))
		u.RawQuery = qq.Encode()
		return fmt.Sprintf("<%s%s>; rel=%q", c.s.base, u.RequestURI(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(page-1, "prev"), link(1, "first"))
	}
	if len(links) > 0 {
		c.w.Header().Set("Link", strings.Join(links, ", "))
	}
	from := (page - 1) * per
	if from >= len(items) {
		return []any{}
	}
	return items[from:min(len(items), from+per)]
}
