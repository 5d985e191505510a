package publish

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/go-github/v88/github"
	"github.com/shurcooL/githubv4"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/outcomes"
	"github.com/chakshu-dev/chakshu/internal/runstate"
)

// publishReply posts a reply run's answer in its thread, once: the answer
// carries the run's reply marker, and the thread is read first. When the
// agent says the finding was wrong or is fixed and the thread is Chakshu's,
// the thread is resolved.
func (p *Publisher) publishReply(ctx context.Context, r *ent.Run) error {
	log := logging.From(ctx)
	repo := r.Edges.Repository
	st, err := runstate.Result(r)
	if err == nil && st.Reply == nil {
		err = errors.New("the stored result is not a reply's")
	}
	if err != nil {
		return resultError(fmt.Errorf("stored reply: %w", err))
	}
	res := st.Reply
	// GitHub's replies endpoint takes the thread's first comment.
	root := r.ThreadRootCommentID
	if root == 0 && r.ReplyToCommentID != nil {
		root = *r.ReplyToCommentID
	}
	if root == 0 {
		return resultError(fmt.Errorf("reply run %d names no comment to answer", r.ID))
	}
	inst, err := p.cfg.GitHub.Installation(repo.Edges.Installation.GithubID)
	if err != nil {
		return fmt.Errorf("installation client: %w", err)
	}
	pr := repoRef{owner: repo.Owner, name: repo.Name, number: r.PrNumber}

	comments, err := listReviewComments(ctx, inst.REST, pr)
	if err != nil {
		return err
	}
	byID := make(map[int64]*github.PullRequestComment, len(comments))
	for _, c := range comments {
		byID[c.GetID()] = c
	}
	if c := byID[root]; c != nil && c.GetInReplyTo() != 0 {
		root = c.GetInReplyTo() // a reply was named: answer in its thread
	}
	rootC := byID[root]
	var answer *github.PullRequestComment
	for _, c := range comments {
		if c.GetInReplyTo() == root && p.isChakshu(c.GetUser().GetLogin(), c.GetUser().GetType() == "Bot") &&
			ParseMarkers(c.GetBody()).Reply == r.ID {
			answer = c
		}
	}
	if rootC == nil {
		return fmt.Errorf("thread comment %d is not on the PR any more", root)
	}
	ours := p.isChakshu(rootC.GetUser().GetLogin(), rootC.GetUser().GetType() == "Bot") &&
		len(ParseMarkers(rootC.GetBody()).Findings) > 0
	resolve := ours && (res.Verdict == findings.VerdictWrong || res.Verdict == findings.VerdictFixed)

	// Resolve before answering, so the answer never promises a resolve
	// GitHub refused (FORBIDDEN without Contents: write).
	resolvedThread := ""
	if resolve && answer == nil {
		tid, done, err := p.threadOf(ctx, inst.GraphQL, pr, root)
		if err != nil {
			return err
		}
		if tid != "" && !done {
			if err := p.resolve(ctx, repo, tid); err != nil {
				if _, ok := err.(errResolveForbidden); !ok {
					return err
				}
				p.resolveRefused(ctx, r, err)
				tid = ""
			} else {
				p.resolveWorked(ctx, r)
			}
		}
		resolvedThread = tid
	} else if resolve {
		// An earlier attempt answered: its answer says whether it resolved.
		if tid, done, err := p.threadOf(ctx, inst.GraphQL, pr, root); err != nil {
			return err
		} else if done {
			resolvedThread = tid
		}
	}

	if answer == nil {
		body := RenderReply(ReplyInput{RunID: r.ID, Reply: res.Reply, Verdict: res.Verdict, Resolved: resolvedThread != ""})
		mine := func(body string) bool { return ParseMarkers(body).Reply == r.ID }
		if answer, err = p.cfg.Write.Reply(ctx, ghwrite.RepoOf(repo), pr.number, root, body, mine, false); err != nil {
			return err
		}
	} else {
		log.Info("answer already posted by an earlier attempt", "comment_id", answer.GetID())
	}
	if err := p.cfg.DB.Run.UpdateOneID(r.ID).SetReplyCommentID(answer.GetID()).SetThreadRootCommentID(root).Exec(ctx); err != nil {
		return fmt.Errorf("record reply comment: %w", err)
	}

	if r.CheckRunID != 0 {
		summary := fmt.Sprintf("Answered in [the thread](%s).", answer.GetHTMLURL())
		if resolvedThread != "" {
			summary += " The thread was resolved."
		}
		summary += fmt.Sprintf("\n\nCost $%.2f · [run #%d in Chakshu](%s)", r.CostUsd, r.ID, p.runURL(r.ID))
		err := p.cfg.Write.CompleteCheck(ctx, ghwrite.CheckOf(r), "success", p.cfg.Now(),
			ghwrite.Text{Title: "Answered: the finding " + verdictWords(res.Verdict), Summary: summary})
		if err != nil {
			return fmt.Errorf("complete check run: %w", err)
		}
	}

	// The person's reply and the reviewer's verdict are on GitHub now.
	if err := p.outcomes.Replied(ctx, repo.ID, r.PrNumber, root, outcomes.Verdict{Verdict: res.Verdict, By: r.Requester}); err != nil {
		log.Warn("outcomes: record reply verdict", "err", err)
	}
	return p.cfg.DB.WithTx(ctx, func(tx *ent.Tx) error {
		if resolvedThread != "" {
			err := tx.Finding.Update().Where(finding.ThreadID(resolvedThread),
				finding.HasRunWith(run.HasRepositoryWith(repository.ID(repo.ID)))).SetResolved(true).Exec(ctx)
			if err != nil {
				return fmt.Errorf("record resolved thread: %w", err)
			}
		}
		err := runstate.Transition(ctx, tx.Client(), r.ID, runstate.Change{
			From: []run.Status{run.StatusPublishing}, To: run.StatusSucceeded,
			Message: "Answered in the thread; the finding " + verdictWords(res.Verdict) + ".",
			Set: func(u *ent.RunUpdate) {
				u.SetSummary(capBytes(res.Reply, maxReply)).SetCheckCompleted(r.CheckRunID != 0)
				if r.DurationMs == 0 {
					u.SetDurationMs(durationOf(r, p.cfg.Now()).Milliseconds())
				}
			},
		})
		if err == runstate.ErrConflict {
			return nil
		}
		return err
	})
}

func verdictWords(v findings.Verdict) string {
	switch v {
	case findings.VerdictWrong:
		return "was wrong"
	case findings.VerdictFixed:
		return "is fixed"
	}
	return "stands"
}

// threadOf finds the review thread whose first comment is root. done
// reports it already resolved.
func (p *Publisher) threadOf(ctx context.Context, gq *githubv4.Client, pr repoRef, root int64) (id string, done bool, err error) {
	threads, err := listThreads(ctx, gq, pr)
	if err != nil {
		return "", false, err
	}
	for _, t := range threads {
		if t.RootID == root {
			return t.ID, t.IsResolved, nil
		}
	}
	return "", false, nil
}
