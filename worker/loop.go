package worker

import (
	"context"
	"time"

	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/redact"
)

// DeadAfter is how long a lease may go without a heartbeat before its holder
// counts as dead and another worker takes the work over (DESIGN §3;
// CHAKSHU_DEAD_WORKER_AFTER's default). The loops that lease work default to it.
const DeadAfter = config.DefaultDeadWorkerAfter

// Repeat is the skeleton of a background loop: it runs pass, then waits for a
// wake-up on wake (nil: none) or the next tick of every, until ctx ends. A
// failed pass is logged as what (with the logger in ctx) and tried again at
// the next wake-up. It returns nil, so a Loop's Run can return it: a loop's
// work ends with its context.
func Repeat(ctx context.Context, what string, wake <-chan struct{}, every time.Duration, pass func(context.Context) error) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := pass(ctx); err != nil && ctx.Err() == nil {
			logging.From(ctx).Warn(what, "err", redact.Error(err))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-t.C:
		}
	}
}
