package runstate

import (
	"context"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/hook"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// NotifyLiveUpdates makes every change of a run's status written through client
// (a run queued, or moved by Transition and Fail) wake wakeup.TopicRunUpdated,
// the portal's live updates, once the change is committed: at once outside a
// transaction, on commit inside one (transactions of client share its hooks),
// never for a transaction that rolls back or an update that matched no run.
// The app calls it once, at wiring time; the bus carries topics, not ids, and
// subscribers read what changed since they last looked.
func NotifyLiveUpdates(client *ent.Client, bus wakeup.Bus) {
	if bus == nil {
		return
	}
	client.Run.Use(func(next ent.Mutator) ent.Mutator {
		return hook.RunFunc(func(ctx context.Context, m *ent.RunMutation) (ent.Value, error) {
			if _, set := m.Status(); !set {
				return next.Mutate(ctx, m)
			}
			v, err := next.Mutate(ctx, m)
			if n, ok := v.(int); err != nil || (ok && n == 0) {
				return v, err
			}
			wake := func() {
				bus.Notify(context.WithoutCancel(ctx), wakeup.TopicRunUpdated) //nolint:errcheck // subscribers also poll
			}
			tx, terr := m.Tx()
			if terr != nil { // not in a transaction: committed already
				wake()
				return v, nil
			}
			tx.OnCommit(func(next ent.Committer) ent.Committer {
				return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
					err := next.Commit(ctx, tx)
					if err == nil {
						wake()
					}
					return err
				})
			})
			return v, nil
		})
	})
}
