package events

import (
	"context"
	"fmt"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/reviewers"
	"github.com/chakshu-dev/chakshu/internal/runs"
)

// queued is what queue did.
type queued struct {
	Created []*ent.Run
	Skipped int
}

// queue asks for one review run per reviewer on the PR's head; a reviewer
// that already has one queued or in flight for that head is skipped.
func (h *handler) queue(ctx context.Context, repo *ent.Repository, pr *prPayload, rs []*ent.Reviewer,
	trigger run.Trigger, requester, note, target string) (queued, error) {
	if len(rs) == 0 {
		return queued{}, nil
	}
	cfgs := map[int]reviewers.Config{}
	ids := make([]int, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
		if c, err := reviewers.FromEnt(r); err == nil {
			cfgs[r.ID] = c
		}
	}
	created, skipped, err := runs.Enqueue(ctx, h.cfg.DB, h.cfg.Bus, runs.Request{
		RepositoryID: repo.ID, ReviewerIDs: ids, PRNumber: pr.Number, PRTitle: clip(pr.Title, 500),
		PRURL: pr.HTMLURL, HeadSHA: pr.Head.SHA, HeadRef: pr.Head.Ref,
		BaseSHA: pr.Base.SHA, BaseRef: pr.Base.Ref, Trigger: trigger,
		Requester: requester, Note: note, RequestTarget: target,
		Configure: func(id int, c *ent.RunCreate) {
			if cfg, ok := cfgs[id]; ok {
				c.SetModel(cfg.Model).SetMaxCostUsd(cfg.MaxCostUSD)
			}
		},
	})
	if err != nil {
		return queued{}, fmt.Errorf("queue runs on %s#%d: %w", repo.FullName, pr.Number, err)
	}
	h.log.Info("runs queued", "pr", pr.Number, "trigger", trigger, "created", len(created), "skipped", len(skipped))
	return queued{Created: created, Skipped: len(skipped)}, nil
}

// getPR reads the PR (for triggers whose payload lacks its head).
func getPR(ctx context.Context, gc *github.Client, repo *ent.Repository, n int) (*prPayload, error) {
	pr, _, err := gc.PullRequests.Get(ctx, repo.Owner, repo.Name, n)
	if err != nil {
		return nil, fmt.Errorf("get %s#%d: %w", repo.FullName, n, err)
	}
	return fromREST(pr), nil
}

// prFiles lists the files the PR changes.
func prFiles(gc *github.Client, repo *ent.Repository, n int) func(ctx context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		var out []string
		opt := &github.ListOptions{PerPage: 100}
		for {
			fs, resp, err := gc.PullRequests.ListFiles(ctx, repo.Owner, repo.Name, n, opt)
			if err != nil {
				return nil, fmt.Errorf("list files of %s#%d: %w", repo.FullName, n, err)
			}
			for _, f := range fs {
				out = append(out, f.GetFilename())
			}
			if resp.NextPage == 0 || len(out) >= 3000 {
				return out, nil
			}
			opt.Page = resp.NextPage
		}
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
