package ghsim

import "time"

// Read-only snapshots of the simulator's state, for assertions.

// PullRequest is a snapshot of a pull request.
type PullRequest struct {
	Number             int
	ID                 int64
	Title, Body        string
	Author             string
	HeadRef, BaseRef   string
	HeadSHA, BaseSHA   string
	Draft              bool
	State              string // open, closed
	Labels             []string
	RequestedReviewers []string
	RequestedTeams     []string
}

// Review is a snapshot of a submitted review.
type Review struct {
	ID       int64
	Author   string
	Body     string
	State    string // COMMENTED, APPROVED, CHANGES_REQUESTED, PENDING
	Event    string // as sent: COMMENT, APPROVE, REQUEST_CHANGES, ""
	CommitID string
	At       time.Time
}

// ReviewComment is a snapshot of an inline review comment.
type ReviewComment struct {
	ID, ReviewID, InReplyTo int64
	Author, Body, Path      string
	// Line is 0 once the thread is outdated; OriginalLine keeps the line it was posted on.
	Line, OriginalLine, StartLine int
	Side, StartSide               string
	CommitID, OriginalCommitID    string
	ThreadID                      int64
}

// Thread is a snapshot of a review thread.
type Thread struct {
	ID, NodeID       string
	Path             string
	Resolved         bool
	ResolvedBy       string
	Outdated         bool
	CommentIDs       []int64
	RootAuthor       string
	DatabaseThreadID int64
}

// IssueComment is a snapshot of a PR conversation comment.
type IssueComment struct {
	ID           int64
	Author, Body string
}

// CheckRun is a snapshot of a check run.
type CheckRun struct {
	ID                     int64
	Repo, Name, HeadSHA    string
	Status, Conclusion     string
	DetailsURL, ExternalID string
	Title, Summary, Text   string
	StartedAt, CompletedAt time.Time
	AppID                  int64
}

// PR returns a snapshot of pull request n of repo.
func (s *Sim) PR(repoName string, n int) PullRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, p := s.mustPull(repoName, n)
	return PullRequest{Number: p.number, ID: p.id, Title: p.title, Body: p.body, Author: p.author, HeadRef: p.headRef, BaseRef: p.baseRef,
		HeadSHA: p.headSHA, BaseSHA: s.baseSHA(r, p), Draft: p.draft, State: p.state, Labels: append([]string(nil), p.labels...),
		RequestedReviewers: append([]string(nil), p.reqUsers...), RequestedTeams: append([]string(nil), p.reqTeams...)}
}

// Reviews returns the reviews of pull request n, oldest first.
func (s *Sim) Reviews(repoName string, n int) []Review {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, p := s.mustPull(repoName, n)
	var out []Review
	for _, rv := range p.reviews {
		out = append(out, Review{ID: rv.id, Author: rv.author, Body: rv.body, State: rv.state, Event: rv.event, CommitID: rv.commitID, At: rv.at})
	}
	return out
}

// ReviewComments returns the inline comments of pull request n, oldest first.
func (s *Sim) ReviewComments(repoName string, n int) []ReviewComment {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, p := s.mustPull(repoName, n)
	var out []ReviewComment
	for _, c := range p.reviewComments {
		out = append(out, ReviewComment{ID: c.id, ReviewID: c.reviewID, InReplyTo: c.inReplyTo, Author: c.author, Body: c.body, Path: c.path,
			Line: c.line, OriginalLine: c.originalLine, StartLine: c.startLine, Side: c.side, StartSide: c.startSide,
			CommitID: c.commitID, OriginalCommitID: c.originalCommit, ThreadID: c.threadID})
	}
	return out
}

// Threads returns the review threads of pull request n.
func (s *Sim) Threads(repoName string, n int) []Thread {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, p := s.mustPull(repoName, n)
	var out []Thread
	for _, t := range p.threads {
		out = append(out, s.threadSnapshot(p, t))
	}
	return out
}

func (s *Sim) threadSnapshot(p *pull, t *thread) Thread {
	author := ""
	for _, c := range p.reviewComments {
		if c.id == t.rootID {
			author = c.author
		}
	}
	return Thread{ID: nodeID("PRRT", t.id), NodeID: nodeID("PRRT", t.id), Path: t.path, Resolved: t.resolved, ResolvedBy: t.resolvedBy,
		Outdated: t.outdated, CommentIDs: append([]int64(nil), t.comments...), RootAuthor: author, DatabaseThreadID: t.id}
}

// ResolveThread resolves (or unresolves) a thread by its node id as login.
func (s *Sim) ResolveThread(threadNodeID, login string, resolved bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, id, _ := parseNodeID(threadNodeID)
	for _, p := range s.pulls {
		for _, t := range p.threads {
			if t.id == id {
				t.resolved = resolved
				t.resolvedBy = login
			}
		}
	}
}

// IssueComments returns the conversation comments of pull request (or issue) n.
func (s *Sim) IssueComments(repoName string, n int) []IssueComment {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, cv := s.mustConv(repoName, n)
	var out []IssueComment
	for _, c := range *cv.comments() {
		out = append(out, IssueComment{ID: c.id, Author: c.author, Body: c.body})
	}
	return out
}

// CheckRuns returns every check run of repo, newest first.
func (s *Sim) CheckRuns(repoName string) []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(repoName)
	var out []CheckRun
	for _, c := range s.sortedChecks() {
		if c.repo == r.fullName() {
			out = append(out, CheckRun{ID: c.id, Repo: c.repo, Name: c.name, HeadSHA: c.headSHA, Status: c.status, Conclusion: c.conclusion,
				DetailsURL: c.detailsURL, ExternalID: c.externalID, Title: c.title, Summary: c.summary, Text: c.text,
				StartedAt: c.started, CompletedAt: c.completed, AppID: c.appID})
		}
	}
	return out
}
