package webhook

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/notify"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// BatchConfig shapes group commit: concurrent deliveries are stored in one
// transaction, and each request is answered only after its batch commits.
// SQLite serialises writers, so one transaction for many events keeps the
// intake's tail latency low under load.
type BatchConfig struct {
	// Mode is "auto" (or empty: on for SQLite, off for PostgreSQL), "on" or "off".
	Mode string
	// MaxSize caps a batch; 0 means 128.
	MaxSize int
}

// enabled resolves Mode for db.
func (b BatchConfig) enabled(db *store.DB) bool {
	switch b.Mode {
	case "on":
		return true
	case "off":
		return false
	default:
		return !db.Postgres()
	}
}

type storeReq struct {
	ctx  context.Context
	e    *Event
	done chan storeRes
}

type storeRes struct {
	stored bool
	err    error
}

// batcher is the one goroutine that writes deliveries, a batch per transaction.
type batcher struct {
	db   *store.DB
	max  int
	reqs chan *storeReq
	quit chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

var errClosed = errors.New("webhook intake is shutting down")

func newBatcher(db *store.DB, max int) *batcher {
	if max <= 0 {
		max = 128
	}
	b := &batcher{db: db, max: max, reqs: make(chan *storeReq, max*4), quit: make(chan struct{})}
	b.wg.Add(1)
	go b.loop()
	return b
}

func (b *batcher) close() {
	b.once.Do(func() { close(b.quit) })
	b.wg.Wait()
}

// store queues e for the next batch and waits for its commit.
func (b *batcher) store(ctx context.Context, e *Event) (bool, error) {
	r := &storeReq{ctx: ctx, e: e, done: make(chan storeRes, 1)}
	select {
	case b.reqs <- r:
	case <-b.quit:
		return false, errClosed
	case <-ctx.Done():
		return false, ctx.Err()
	}
	select {
	case res := <-r.done:
		return res.stored, res.err
	case <-ctx.Done():
		return false, ctx.Err() // it may still commit; a redelivery is then a duplicate
	}
}

func (b *batcher) loop() {
	defer b.wg.Done()
	batch := make([]*storeReq, 0, b.max)
	for {
		var first *storeReq
		select {
		case first = <-b.reqs:
		case <-b.quit:
			b.drain()
			return
		}
		batch = append(batch[:0], first)
	fill:
		for len(batch) < b.max {
			select {
			case r := <-b.reqs:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		b.commit(batch)
	}
}

// drain answers what is still queued at shutdown.
func (b *batcher) drain() {
	for {
		select {
		case r := <-b.reqs:
			b.commit([]*storeReq{r})
		default:
			return
		}
	}
}

func (b *batcher) commit(batch []*storeReq) {
	ctx := context.Background()
	res := make([]storeRes, len(batch))
	err := b.db.WithTx(ctx, func(tx *ent.Tx) error {
		for i, r := range batch {
			stored, err := insertWith(ctx, tx.WebhookEvent, r.e)
			if err != nil {
				return err
			}
			res[i] = storeRes{stored: stored}
		}
		return nil
	})
	if err != nil {
		// One bad row must not fail its neighbours: store each on its own.
		for i, r := range batch {
			stored, err := insertWith(ctx, b.db.WebhookEvent, r.e)
			res[i] = storeRes{stored: stored, err: err}
		}
	}
	for i, r := range batch {
		r.done <- res[i]
	}
}

// waker tells the bus that events were stored, off the request path: wake-ups
// coalesce, so a burst of deliveries costs one NOTIFY, not one each.
type waker struct {
	bus  notify.Bus
	kick chan struct{}
	quit chan struct{}
	done chan struct{}
	once sync.Once
}

func newWaker(bus notify.Bus) *waker {
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
				w.bus.Notify(ctx, notify.TopicEvents) //nolint:errcheck // the worker also polls
				cancel()
			}
		}
	}
}

func (w *waker) close() {
	w.once.Do(func() { close(w.quit) })
	<-w.done
}
