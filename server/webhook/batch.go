package webhook

import (
	"context"
	"sync"
	"time"

	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// waker tells the bus that events were stored, off the request path: wake-ups
// coalesce, so a burst of deliveries costs one NOTIFY, not one each.
type waker struct {
	bus  wakeup.Bus
	kick chan struct{}
	quit chan struct{}
	done chan struct{}
	once sync.Once
}

func newWaker(bus wakeup.Bus) *waker {
	w := &waker{bus: bus, kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go w.loop()
	return w
}

func (w *waker) poke() {
	select {
	case w.kick <- struct{}{}:
	default: // a wake-up is already pending
	}
}

func (w *waker) loop() {
	defer close(w.done)
	for {
		select {
		case <-w.quit:
			return
		case <-w.kick:
			if w.bus != nil {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				w.bus.Notify(ctx, wakeup.TopicEvents) //nolint:errcheck // the worker also polls
				cancel()
			}
		}
	}
}

func (w *waker) close() {
	w.once.Do(func() { close(w.quit) })
	<-w.done
}
