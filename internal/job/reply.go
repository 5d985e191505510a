package job

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
	"github.com/chakshu-dev/chakshu/internal/textcut"
)

const (
	maxThreadComments = 50
	maxCommentBytes   = 4 << 10
	excerptContext    = 20
	maxThreadPages    = 10
)

// replyParts gathers a reply run's thread, finding and file excerpt (DESIGN §6).
func (b *Builder) replyParts(ctx context.Context, f *runFacts, pr *github.PullRequest) (*runnerproto.Reply, error) {
	rn := f.rn
	root := rn.ThreadRootCommentID
	if root == 0 && rn.ReplyToCommentID != nil {
		c, _, err := f.gh.PullRequests.GetComment(ctx, f.owner, f.name, *rn.ReplyToCommentID)
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
		cs, resp, err := f.gh.PullRequests.ListComments(ctx, f.owner, f.name, rn.PrNumber, opt)
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
		body, _ := CapString(c.GetBody(), maxCommentBytes)
		out.Thread = append(out.Thread, runnerproto.Comment{Author: c.GetUser().GetLogin(), Body: body,
			Bot: c.GetUser().GetType() == "Bot"})
	}

	fd, err := b.cfg.DB.Finding.Query().Where(finding.CommentID(root)).Order(ent.Desc(finding.FieldID)).First(ctx)
	switch {
	case err == nil:
		out.Finding = runnerproto.ReplyFinding{Severity: string(fd.Severity), Category: fd.Category, Title: fd.Title, Body: fd.Body}
		out.Path, out.Line = fd.Path, fd.Line
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
		out.Excerpt, err = b.excerpt(ctx, f, out.Path, pr.GetHead().GetSHA(), out.Line)
		if err != nil {
			return nil, err
		}
	}
	if rn.ReplyToCommentID != nil {
		l, err := b.cfg.DB.ReviewLearning.Query().Where(reviewlearning.CommentID(*rn.ReplyToCommentID)).First(ctx)
		if err == nil {
			out.Remember = l.Directive
		} else if !ent.IsNotFound(err) {
			return nil, fmt.Errorf("load learning: %w", err)
		}
	}
	return out, nil
}

// excerpt is the file at ref around line, line-numbered.
func (b *Builder) excerpt(ctx context.Context, f *runFacts, path, ref string, line int) (string, error) {
	fc, _, resp, err := f.gh.Repositories.GetContents(ctx, f.owner, f.name, path, &github.RepositoryContentGetOptions{Ref: ref})
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
	var out strings.Builder
	for i := from; i <= to; i++ {
		l, _ := CapString(lines[i-1], 500)
		fmt.Fprintf(&out, "%5d | %s\n", i, l)
	}
	return out.String(), nil
}

// CapString cuts s to at most n bytes (whole runes) and marks the cut; ok
// says it was cut.
func CapString(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	return textcut.Bytes(s, n) + " […]", true
}
