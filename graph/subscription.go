package graph

import (
	"context"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/server/auth"
)

// runUpdated streams runs the viewer can see as they change: woken by
// wakeup.TopicRunUpdated, with a poll every PollInterval as the safety net
// (writers that do not notify are still seen). A change is a newer updated_at.
func (h *api) runUpdated(ctx context.Context, ids []int) (<-chan *ent.Run, error) {
	if _, err := h.access(ctx); err != nil {
		return nil, err
	}
	if len(ids) > MaxPageSize {
		return nil, invalid("at most %d ids", MaxPageSize)
	}
	wake, cancel := h.cfg.Bus.Subscribe(wakeup.TopicRunUpdated)
	out := make(chan *ent.Run, 16)
	// Start a little in the past: a change made just before subscribing is
	// delivered rather than lost.
	since := time.Now().Add(-2 * time.Second)
	la := liveFrom(ctx)
	go func() {
		defer cancel()
		defer close(out)
		tick := time.NewTicker(h.cfg.PollInterval)
		defer tick.Stop()
		seen := map[int]time.Time{}
		qctx, qv := ctx, (*auth.Viewer)(nil) // qctx reads as qv, its access computed once per check
		for {
			select {
			case <-ctx.Done():
				return
			case <-wake:
			case <-tick.C:
			}
			// Before delivering: is the token or session still valid, and
			// what may it read now (checked at most LiveRecheck ago)? The
			// upgrade request's access may be as old as the session's
			// AccessTTL, so even the first delivery waits for a check.
			if la != nil {
				v := h.liveViewer(ctx, la)
				if v == nil {
					return
				}
				if v != qv {
					qctx, qv = liveContext(ctx, v), v
				}
			}
			q := h.client.Run.Query().Where(run.UpdatedAtGTE(since)).
				Order(ent.Asc(run.FieldUpdatedAt), ent.Asc(run.FieldID)).Limit(MaxPageSize)
			if len(ids) > 0 {
				q.Where(run.IDIn(ids...))
			}
			rs, err := q.All(qctx)
			if err != nil {
				if ctx.Err() == nil {
					h.log.Warn("runUpdated poll", "err", err)
				}
				continue
			}
			for _, r := range rs {
				if t, ok := seen[r.ID]; ok && !r.UpdatedAt.After(t) {
					continue
				}
				seen[r.ID] = r.UpdatedAt
				if r.UpdatedAt.After(since) {
					since = r.UpdatedAt
				}
				select {
				case out <- r:
				case <-ctx.Done():
					return
				}
			}
			for id, t := range seen { // forget what can no longer repeat
				if t.Before(since) {
					delete(seen, id)
				}
			}
		}
	}()
	return out, nil
}
