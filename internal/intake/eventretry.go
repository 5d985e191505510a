package intake

import (
	"context"
	"errors"
	"fmt"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
)

// ErrEventNotFailed is returned by RetryWebhookEvent for an event that is not failed.
var ErrEventNotFailed = errors.New("the webhook event is not failed")

// RetryWebhookEvent puts failed webhook event id back to pending with fresh
// attempts (an admin's retry from the portal), through c (the store's client
// or a transaction's, so the caller can record the retry in the audit log in
// the same transaction). The caller wakes the event workers
// (wakeup.TopicEvents).
func RetryWebhookEvent(ctx context.Context, c *ent.Client, id int) error {
	n, err := c.WebhookEvent.Update().Where(webhookevent.ID(id), webhookevent.StatusEQ(webhookevent.StatusFailed)).
		SetStatus(webhookevent.StatusPending).SetAttempts(0).SetLeaseOwner("").ClearNextAttemptAt().
		ClearHandledAt().Save(ctx)
	if err != nil {
		return fmt.Errorf("retry webhook event %d: %w", id, err)
	}
	if n == 0 {
		return ErrEventNotFailed
	}
	return nil
}
