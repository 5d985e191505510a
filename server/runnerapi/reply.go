package runnerapi

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/reviewlearning"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

const (
	maxThreadComments = 50
	maxCommentBytes   = 4 << 10
	excerptContext    = 20
	maxThreadPages    = 10
)

// replyParts gathers a reply run's thread, finding and file excerpt (DESIGN §6).
func (a *API) replyParts(ctx context.Context, jc *jobCtx, pr *github.PullRequest) (*runnerproto.Reply, error) {
	rn := jc.rn
	root := rn.ThreadRootCommentID
	if root == 0 && rn.ReplyToCommentID != nil {
		c, _, err := jc.gh.PullRequests.GetComment(ctx, jc.owner, jc.name, *rn.ReplyToCommentID)
		if err != nil {
			return nil, ghUnavailable(fmt.Errorf("get reply comment: %w", err))
		}
		root = c.GetID()
		if c.GetInReplyTo() != 0 {
			root = c.GetInReplyTo()
		}
	}
	if root == 0 {
		return nil, fmt.Errorf("reply run %d has no thread", rn.ID)
	}
	var thread []*github.PullRequestComment
	opt := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for page := 0; page < maxThreadPages; page++ {
		cs, resp, err := jc.gh.PullRequests.ListComments(ctx, jc.owner, jc.name, rn.PrNumber, opt)
		if err != nil {
			return nil, ghUnavailable(fmt.Errorf("list review comments: %w", err))
		}
		for _, c := range cs {
			if c.GetID() == root || c.GetInReplyTo() == root {
				thread = append(thread, c)
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	sort.Slice(thread, func(i, j int) bool { return thread[i].GetID() < thread[j].GetID() })
	if len(thread) > maxThreadComments {
		thread = append(thread[:1], thread[len(thread)-maxThreadComments+1:]...)
	}
	out := &runnerproto.Reply{Thread: []runnerproto.Comment{}}
	for _, c := range thread {
		body, _ := capString(c.GetBody(), maxCommentBytes)
		out.Thread = append(out.Thread, runnerproto.Comment{Author: c.GetUser().GetLogin(), Body: body,
			Bot: c.GetUser().GetType() == "Bot"})
	}

	f, err := a.cfg.DB.Finding.Query().Where(finding.CommentID(root)).Order(ent.Desc(finding.FieldID)).First(ctx)
	switch {
	case err == nil:
		out.Finding = runnerproto.ReplyFinding{Severity: string(f.Severity), Category: f.Category, Title: f.Title, Body: f.Body}
		out.Path, out.Line = f.Path, f.Line
	case ent.IsNotFound(err):
		if len(thread) > 0 {
			first, rest, _ := strings.Cut(strings.TrimSpace(thread[0].GetBody()), "\n")
			out.Finding = runnerproto.ReplyFinding{Title: first, Body: rest}
		}
	default:
		return nil, fmt.Errorf("load finding: %w", err)
	}
	if out.Path == "" && len(thread) > 0 {
		out.Path = thread[0].GetPath()
		out.Line = thread[0].GetLine()
		if out.Line == 0 {
			out.Line = thread[0].GetOriginalLine()
		}
	}
	if out.Path != "" {
		out.Excerpt, err = a.excerpt(ctx, jc, out.Path, pr.GetHead().GetSHA(), out.Line)
		if err != nil {
			return nil, err
		}
	}
	if rn.ReplyToCommentID != nil {
		l, err := a.cfg.DB.ReviewLearning.Query().Where(reviewlearning.CommentID(*rn.ReplyToCommentID)).First(ctx)
		if err == nil {
			out.Remember = l.Directive
		} else if !ent.IsNotFound(err) {
			return nil, fmt.Errorf("load learning: %w", err)
		}
	}
	return out, nil
}

// excerpt is the file at ref around line, line-numbered.
func (a *API) excerpt(ctx context.Context, jc *jobCtx, path, ref string, line int) (string, error) {
	fc, _, resp, err := jc.gh.Repositories.GetContents(ctx, jc.owner, jc.name, path, &github.RepositoryContentGetOptions{Ref: ref})
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return "(the file no longer exists at the head of the pull request)", nil
	}
	if err != nil {
		return "", ghUnavailable(fmt.Errorf("get %s: %w", path, err))
	}
	if fc == nil {
		return "(the path is a directory)", nil
	}
	text, err := fc.GetContent()
	if err != nil {
		return "(the file could not be decoded)", nil
	}
	lines := strings.Split(text, "\n")
	from, to := max(1, line-excerptContext), min(len(lines), line+excerptContext)
	if line <= 0 {
		from, to = 1, min(len(lines), 2*excerptContext)
	}
	var b strings.Builder
	for i := from; i <= to; i++ {
		l, _ := capString(lines[i-1], 500)
		fmt.Fprintf(&b, "%5d | %s\n", i, l)
	}
	return b.String(), nil
}

func capString(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	return truncateUTF8(s, n) + " […]", true
}
