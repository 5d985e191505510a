package events

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/commands"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/textcut"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// reviewComment handles replies in review threads (DESIGN §6): a person's
// reply in a thread Chakshu started queues a reply run for the reviewer that
// made the finding (if the person may trigger Chakshu and is within the
// reply limits, see mayQueueReply), or, with "@<slug> remember …", stores a review learning.
func (h *handler) reviewComment(ctx context.Context) error {
	var e reviewCommentEvent
	if err := h.decode(&e); err != nil {
		return err
	}
	switch e.Action {
	case "created":
		return h.replyCreated(ctx, &e)
	default:
		return nil
	}
}

func (h *handler) replyCreated(ctx context.Context, e *reviewCommentEvent) error {
	c := &e.Comment
	rootID := c.InReplyTo
	if rootID == 0 || isBot(c.User) { // a new thread, or a bot (Chakshu included): never loop
		return nil
	}
	inst, repo, err := h.repoOf(ctx, &e.common)
	if err != nil {
		return err
	}
	pr := &e.PullRequest
	ctx = logging.Add(ctx, "pr", pr.Number)
	if n, err := h.cfg.DB.Reviewer.Query().Where(reviewer.HasInstallationWith(installation.ID(inst.ID))).Count(ctx); err != nil || n == 0 {
		return err // no reviewers here: no thread can be Chakshu's
	}
	gc, err := h.client(inst.GithubID)
	if err != nil {
		return err
	}
	rv, err := h.threadReviewer(ctx, gc, inst, repo, pr.Number, rootID)
	if err != nil || rv == nil {
		return err // a person's thread: not ours to answer
	}
	ctx = logging.Add(ctx, "reviewer", rv.Name)
	if cmd, ok := commands.Parse(c.Body, h.cfg.AppSlug); ok && cmd.Verb == commands.Remember {
		return h.remember(ctx, gc, inst, repo, e, cmd)
	}
	if ok, err := h.mayQueueReply(ctx, gc, inst, repo, e); err != nil || !ok {
		return err
	}
	return h.queueReply(ctx, inst, repo, rv, pr, c.ID, c.User.Login, rootID)
}

// threadReviewer returns the reviewer whose finding started the thread of
// rootID, or nil when the thread is not Chakshu's.
func (h *handler) threadReviewer(ctx context.Context, gc *github.Client, inst *ent.Installation, repo *ent.Repository, pr int, rootID int64) (*ent.Reviewer, error) {
	f, err := h.cfg.DB.Finding.Query().Where(finding.CommentID(rootID),
		finding.HasRunWith(run.HasRepositoryWith(repository.ID(repo.ID)))).
		WithRun(func(q *ent.RunQuery) { q.WithReviewer() }).First(ctx)
	switch {
	case err == nil:
		return f.Edges.Run.Edges.Reviewer, nil
	case !ent.IsNotFound(err):
		return nil, fmt.Errorf("find the finding of comment %d: %w", rootID, err)
	}
	// Not recorded (posted before a restore, or by another Chakshu database):
	// believe the root comment only if Chakshu wrote it and it carries a finding marker.
	root, resp, err := gc.PullRequests.GetComment(ctx, repo.Owner, repo.Name, rootID)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get review comment %d of %s: %w", rootID, repo.FullName, err)
	}
	if !strings.EqualFold(root.GetUser().GetLogin(), h.botLogin()) {
		return nil, nil
	}
	m := publish.ParseMarkers(root.GetBody())
	if len(m.Findings) == 0 {
		return nil, nil
	}
	if m.Run != 0 {
		r, err := h.cfg.DB.Run.Query().Where(run.ID(m.Run), run.HasRepositoryWith(repository.ID(repo.ID))).WithReviewer().Only(ctx)
		if err == nil {
			return r.Edges.Reviewer, nil
		}
		if !ent.IsNotFound(err) {
			return nil, err
		}
	}
	if m.Reviewer == "" {
		return nil, nil
	}
	rv, err := h.cfg.DB.Reviewer.Query().Where(reviewer.NameEqualFold(m.Reviewer), reviewer.HasInstallationWith(installation.ID(inst.ID))).First(ctx)
	if ent.IsNotFound(err) {
		logging.From(ctx).Info("reply in a thread of a reviewer that no longer exists", "reviewer", m.Reviewer)
		return nil, nil
	}
	return rv, err
}

// queueReply queues the reply run answering comment c (once per comment),
// if the reply limits leave room (checked and inserted as one step:
// reserveReply); otherwise it says in the thread when to try again.
func (h *handler) queueReply(ctx context.Context, inst *ent.Installation, repo *ent.Repository, rv *ent.Reviewer, pr *prPayload, commentID int64, login string, rootID int64) error {
	var r *ent.Run
	refused, err := reserveReply(ctx, h.cfg.DB, inst, repo, pr.Number, login, commentID, [2]int{h.cfg.ReplyLimitPerPR, h.cfg.ReplyLimitPerUser}, h.cfg.Now(),
		func(tx *ent.Tx) error {
			r = nil
			cr := tx.Run.Create().SetKind(run.KindReply).SetTrigger(run.TriggerReply).
				SetRepositoryID(repo.ID).SetReviewerID(rv.ID).SetPrNumber(pr.Number).SetPrTitle(textcut.Bytes(pr.Title, 500)).
				SetPrURL(pr.HTMLURL).SetHeadSha(pr.Head.SHA).SetHeadRef(pr.Head.Ref).
				SetBaseSha(pr.Base.SHA).SetBaseRef(pr.Base.Ref).
				SetRequester(login).SetReplyToCommentID(commentID).SetThreadRootCommentID(rootID)
			cfg := reviewerconfig.FromEnt(rv)
			cr.SetModel(cfg.Model).SetMaxCostUsd(min(cfg.MaxCostUSD, replyMaxCostUSD))
			created, err := cr.Save(ctx)
			if err != nil {
				return fmt.Errorf("queue reply run: %w", err)
			}
			if err := tx.RunEvent.Create().SetRunID(created.ID).SetToStatus(string(run.StatusQueued)).
				SetMessage(fmt.Sprintf("Queued by %s (reply in a review thread).", login)).Exec(ctx); err != nil {
				return fmt.Errorf("queue reply run: timeline: %w", err)
			}
			r = created
			return nil
		})
	if err != nil {
		return err
	}
	if refused != nil {
		return h.refuseReply(ctx, repo, pr.Number, rootID, login, refused)
	}
	if r == nil {
		return nil
	}
	logging.From(ctx).Info("reply run queued", "run_id", r.ID, "comment_id", commentID)
	if h.cfg.Bus != nil {
		h.cfg.Bus.Notify(ctx, wakeup.TopicRuns) //nolint:errcheck // the dispatcher also polls
	}
	return nil
}

// replyMaxCostUSD caps a reply run's model spend below a review's.
const replyMaxCostUSD = 0.5

// learningGlob is the glob a learning from a thread on file p covers.
func learningGlob(p string, directory bool) string {
	if !directory {
		return p
	}
	if d := path.Dir(p); d != "." && d != "/" {
		return d + "/**"
	}
	return "**"
}
