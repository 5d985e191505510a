package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/ent/worker"
	"github.com/chakshu-dev/chakshu/graph/model"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/runstate"
)

// status is the Status page: workers, queues, failed webhooks, syncs. Counts
// go through the filtered client, so non-admins see their repositories' share.
func (h *api) status(ctx context.Context) (*model.SystemStatus, error) {
	now := time.Now()
	c := h.client
	out := &model.SystemStatus{Now: now}

	ws, err := c.Worker.Query().Order(ent.Desc(worker.FieldHeartbeatAt)).Limit(100).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("status: workers: %w", err)
	}
	var heldRuns, heldEvents []struct {
		LeaseOwner string `json:"lease_owner"`
		Count      int    `json:"count"`
	}
	if err := c.Run.Query().Where(run.LeaseOwnerNEQ(""), run.StatusIn(runstate.Active...)).
		GroupBy(run.FieldLeaseOwner).Aggregate(ent.Count()).Scan(ctx, &heldRuns); err != nil {
		return nil, fmt.Errorf("status: held runs: %w", err)
	}
	if err := c.WebhookEvent.Query().Where(webhookevent.LeaseOwnerNEQ(""), webhookevent.StatusEQ(webhookevent.StatusProcessing)).
		GroupBy(webhookevent.FieldLeaseOwner).Aggregate(ent.Count()).Scan(ctx, &heldEvents); err != nil {
		return nil, fmt.Errorf("status: held events: %w", err)
	}
	hr, he := map[string]int{}, map[string]int{}
	for _, x := range heldRuns {
		hr[x.LeaseOwner] = x.Count
	}
	for _, x := range heldEvents {
		he[x.LeaseOwner] = x.Count
	}
	dead := h.cfg.Settings.DeadWorkerAfter
	if dead <= 0 {
		dead = config.DefaultDeadWorkerAfter
	}
	for _, w := range ws {
		out.Workers = append(out.Workers, &model.WorkerStatus{
			Worker: w, Alive: !w.Stopped && now.Sub(w.HeartbeatAt) < dead,
			HeldRuns: hr[w.WorkerID], HeldEvents: he[w.WorkerID],
		})
	}

	for _, s := range runstate.Active {
		q := &model.RunQueue{Status: s}
		if q.Count, err = c.Run.Query().Where(run.StatusEQ(s)).Count(ctx); err != nil {
			return nil, fmt.Errorf("status: %s runs: %w", s, err)
		}
		if q.Count > 0 {
			oldest, err := c.Run.Query().Where(run.StatusEQ(s)).Order(ent.Asc(run.FieldCreatedAt)).
				Select(run.FieldCreatedAt).First(ctx)
			if err != nil && !ent.IsNotFound(err) {
				return nil, fmt.Errorf("status: oldest %s run: %w", s, err)
			}
			if oldest != nil {
				age := now.Sub(oldest.CreatedAt).Seconds()
				q.OldestAt, q.OldestAgeSeconds = &oldest.CreatedAt, &age
			}
		}
		out.RunQueues = append(out.RunQueues, q)
	}
	for _, s := range []webhookevent.Status{webhookevent.StatusPending, webhookevent.StatusProcessing} {
		q := &model.WebhookQueue{Status: s}
		if q.Count, err = c.WebhookEvent.Query().Where(webhookevent.StatusEQ(s)).Count(ctx); err != nil {
			return nil, fmt.Errorf("status: %s events: %w", s, err)
		}
		if q.Count > 0 {
			oldest, err := c.WebhookEvent.Query().Where(webhookevent.StatusEQ(s)).Order(ent.Asc(webhookevent.FieldReceivedAt)).
				Select(webhookevent.FieldReceivedAt).First(ctx)
			if err != nil && !ent.IsNotFound(err) {
				return nil, fmt.Errorf("status: oldest %s event: %w", s, err)
			}
			if oldest != nil {
				age := now.Sub(oldest.ReceivedAt).Seconds()
				q.OldestAt, q.OldestAgeSeconds = &oldest.ReceivedAt, &age
			}
		}
		out.WebhookQueues = append(out.WebhookQueues, q)
	}
	if out.FailedWebhooks, err = c.WebhookEvent.Query().Where(webhookevent.StatusEQ(webhookevent.StatusFailed)).Count(ctx); err != nil {
		return nil, fmt.Errorf("status: failed events: %w", err)
	}
	if out.Installations, err = c.Installation.Query().Order(ent.Asc(installation.FieldAccountLogin)).Limit(200).All(ctx); err != nil {
		return nil, fmt.Errorf("status: installations: %w", err)
	}
	out.ContentBudgets = h.contentBudgets(out.Installations, now)
	if out.Workers == nil {
		out.Workers = []*model.WorkerStatus{}
	}
	return out, nil
}

// contentBudgets are the installations' content budgets at now, read from
// the rows as loaded (no query more): the windows the workers pace by.
func (h *api) contentBudgets(ins []*ent.Installation, now time.Time) []*model.ContentBudget {
	budget := ghwrite.NewDBBudget(h.db, ghwrite.Windows(h.cfg.Settings.GitHubWritesPerMinute, h.cfg.Settings.GitHubWritesPerHour))
	out := make([]*model.ContentBudget, 0, len(ins))
	for _, in := range ins {
		st := budget.StandingOf(in, now)
		b := &model.ContentBudget{Installation: in, Windows: []*model.ContentWindow{}}
		for _, w := range st.Windows {
			b.Windows = append(b.Windows, &model.ContentWindow{Seconds: int(w.Per / time.Second), Limit: w.N, Available: w.Left})
		}
		if st.NewReviewIn > 0 {
			at := now.Add(st.NewReviewIn)
			b.NewReviewsAt = &at
		}
		out = append(out, b)
	}
	return out
}
