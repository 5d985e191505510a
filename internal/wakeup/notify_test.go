package wakeup

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

func TestWakeUps(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			db := storetest.Open(t, d)
			a := New(ctx, db, slog.New(slog.NewTextHandler(io.Discard, nil)))
			b := a
			if db.Postgres() { // a second "process" on the same database
				b = New(ctx, db, slog.New(slog.NewTextHandler(io.Discard, nil)))
			}
			ch, stop := b.Subscribe(TopicRuns)
			defer stop()
			other, stopOther := b.Subscribe(TopicEvents)
			defer stopOther()
			deadline := time.After(10 * time.Second)
			for {
				if err := a.Notify(ctx, TopicRuns); err != nil {
					t.Fatal(err)
				}
				select {
				case <-ch:
					select {
					case <-other:
						if !db.Postgres() { // postgres wakes all topics once at (re)connect
							t.Fatal("a runs notification woke the events topic")
						}
					default:
					}
					return
				case <-time.After(100 * time.Millisecond): // the listener may still be connecting
				case <-deadline:
					t.Fatal("no wake-up within 10s")
				}
			}
		})
	}
}
