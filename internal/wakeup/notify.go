// Package wakeup wakes workers when there is work: in-process on SQLite (one
// process owns the file), LISTEN/NOTIFY on PostgreSQL (any process may store
// work any other process handles). Wake-ups are hints; every consumer also
// polls slowly as a safety net.
package wakeup

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chakshu-dev/chakshu/internal/store"
)

// Topics.
const (
	TopicEvents     = "events"      // a webhook event was stored or requeued
	TopicRuns       = "runs"        // a run was queued or requeued
	TopicPublish    = "publish"     // a run has a result to publish
	TopicSync       = "sync"        // a reviewers sync was requested
	TopicRunUpdated = "run_updated" // a run changed (portal live updates)
	TopicFinish     = "finish"      // a run failed or was cancelled; its check run needs completing
	TopicBacktests  = "backtests"   // a backtest was queued or cancelled
)

// Bus carries wake-ups.
type Bus interface {
	// Notify wakes the subscribers of topic, in this and (on PostgreSQL) other processes.
	Notify(ctx context.Context, topic string) error
	// Subscribe returns a channel that receives (coalesced) wake-ups, and a cancel.
	Subscribe(topic string) (<-chan struct{}, func())
}

// Local is an in-process Bus.
type Local struct {
	mu   sync.Mutex
	subs map[string]map[chan struct{}]struct{}
}

var _ Bus = (*Local)(nil)

// NewLocal returns an in-process Bus.
func NewLocal() *Local { return &Local{subs: map[string]map[chan struct{}]struct{}{}} }

// Notify implements Bus.
func (l *Local) Notify(_ context.Context, topic string) error {
	l.deliver(topic)
	return nil
}

func (l *Local) deliver(topic string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for ch := range l.subs[topic] {
		select {
		case ch <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
}

// Subscribe implements Bus.
func (l *Local) Subscribe(topic string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	l.mu.Lock()
	if l.subs[topic] == nil {
		l.subs[topic] = map[chan struct{}]struct{}{}
	}
	l.subs[topic][ch] = struct{}{}
	l.mu.Unlock()
	return ch, func() {
		l.mu.Lock()
		delete(l.subs[topic], ch)
		l.mu.Unlock()
	}
}

// pgChannel is the one LISTEN channel; the payload is the topic.
const pgChannel = "chakshu_wake"

// Postgres is a Bus over LISTEN/NOTIFY, delivering to local subscribers too.
type Postgres struct {
	*Local
	db  *store.DB
	log *slog.Logger
}

var _ Bus = (*Postgres)(nil)

// NewPostgres starts listening; it reconnects until ctx ends.
func NewPostgres(ctx context.Context, db *store.DB, log *slog.Logger) *Postgres {
	p := &Postgres{Local: NewLocal(), db: db, log: log}
	go p.listen(ctx)
	return p
}

// Notify implements Bus: NOTIFY reaches every listening process, this one included.
func (p *Postgres) Notify(ctx context.Context, topic string) error {
	_, err := p.db.SQL.ExecContext(ctx, "SELECT pg_notify($1, $2)", pgChannel, topic)
	if err != nil {
		p.Local.deliver(topic) // at least wake this process
	}
	return err
}

func (p *Postgres) listen(ctx context.Context) {
	for ctx.Err() == nil {
		if err := p.listenOnce(ctx); err != nil && ctx.Err() == nil {
			p.log.Warn("notify: listen", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

func (p *Postgres) listenOnce(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, p.db.URL)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgChannel); err != nil {
		return err
	}
	// Whatever happened while we were not listening: wake everyone once.
	for _, t := range []string{TopicEvents, TopicRuns, TopicPublish, TopicSync, TopicBacktests} {
		p.Local.deliver(t)
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		p.Local.deliver(n.Payload)
	}
}

// New returns the Bus fitting db.
func New(ctx context.Context, db *store.DB, log *slog.Logger) Bus {
	if db.Postgres() {
		return NewPostgres(ctx, db, log)
	}
	return NewLocal()
}
