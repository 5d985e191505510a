package worker

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/chakshu-dev/chakshu/internal/store"
)

// NewID returns a worker id unique to this process.
func NewID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d-%x", host, os.Getpid(), time.Now().UnixNano()&0xffffff)
}

// HeartbeatLeases refreshes every lease a worker holds (runs and webhook
// events); it is the Config.Heartbeaters entry of a worker process.
func HeartbeatLeases(db *store.DB) func(ctx context.Context, owner string, now time.Time) error {
	return func(ctx context.Context, owner string, now time.Time) error {
		return queue.Heartbeat(ctx, db, owner, now)
	}
}

// Wait blocks until a wake-up, the poll interval, or the end of ctx; false on the end.
func Wait(ctx context.Context, wake <-chan struct{}, poll time.Duration) bool {
	t := time.NewTimer(poll)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-wake:
		return true
	case <-t.C:
		return true
	}
}
