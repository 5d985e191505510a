// Package events handles stored webhook events (DESIGN §2.1–§2.2, §3, §6, §7):
// a worker loop claims them oldest first under a lease, runs the handler of
// the event type, and retries a failing handler with backoff (3 attempts in
// all) before marking the event failed with its redacted error.
//
// Handlers are idempotent, so an event handled again after a crash has no
// second visible effect: runs are deduplicated by unique indexes, and comments
// carry hidden markers that are checked before posting again.
package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/chakshu-dev/chakshu/internal/intake"
	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/fault"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/metrics"
	"github.com/chakshu-dev/chakshu/internal/outcomes"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/reviewrequest"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/worker"
)

// GitHub hands out installation clients; *gh.Apps satisfies it.
type GitHub interface {
	Installation(id int64) (*gh.Installation, error)
	// InstallationFor is a token narrowed to scope (the write port resolves
	// threads with gh.ScopeResolve).
	InstallationFor(id int64, scope gh.Scope) (*gh.Installation, error)
}

var _ GitHub = (*gh.Apps)(nil)

// Writer is what event handling writes to GitHub: answers on the PR.
type Writer interface {
	Comment(ctx context.Context, r ghwrite.Repo, pr int, body string, mine ghwrite.Mine, lookFirst bool) (*github.IssueComment, error)
	Reply(ctx context.Context, r ghwrite.Repo, pr int, root int64, body string, mine ghwrite.Mine, lookFirst bool) (*github.PullRequestComment, error)
}

var _ Writer = (*ghwrite.Port)(nil)

// Outcomes counts how each attempt at an event ended (metrics.Outcome*);
// *metrics.WebhookOutcomes satisfies it.
type Outcomes interface {
	Processed(event, outcome string)
}

var _ Outcomes = (*metrics.WebhookOutcomes)(nil)

// Config builds a Loop.
type Config struct {
	DB     *store.DB
	Bus    wakeup.Bus
	Log    *slog.Logger
	GitHub GitHub
	// Write is the GitHub write port; nil builds one on GitHub.
	Write Writer
	// AppSlug is the App's slug: commands are "@<slug> …" and its comments are by "<slug>[bot]".
	AppSlug string
	// WorkerID is the lease owner: the id of the worker.Worker this loop runs in.
	WorkerID string
	// AllowList are GitHub logins who may trigger reviews whatever their repository permission.
	AllowList []string
	// ReplyLimitPerPR and ReplyLimitPerUser cap the reply runs queued per
	// pull request and per person (in the installation) in any hour; 0 means
	// config.DefaultReplyLimitPerPR and config.DefaultReplyLimitPerUser.
	ReplyLimitPerPR, ReplyLimitPerUser int
	// Now is the clock the reply limits are counted by; nil means time.Now.
	Now func() time.Time

	// PollInterval is the safety-net poll (≤ 1 s); 0 means 1 s.
	PollInterval time.Duration
	// Backoff is the wait before each retry; nil means 5 s then 30 s.
	Backoff []time.Duration
	// MaxAttempts is the number of attempts before an event fails; 0 means 3.
	MaxAttempts int
	// StaleAfter is how long an event's lease may go without a heartbeat before
	// another worker takes it over; 0 means 90 s.
	StaleAfter time.Duration
	// Concurrency is how many events this loop handles at once; 0 means 2.
	Concurrency int
	// Outcomes counts each attempt's outcome; nil counts nothing.
	Outcomes Outcomes
}

// Loop handles stored webhook events. It implements worker.Loop.
type Loop struct {
	cfg      Config
	requests *reviewrequest.Requests
	outcomes *outcomes.Reader
}

var _ worker.Loop = (*Loop)(nil)

// New validates cfg.
func New(cfg Config) (*Loop, error) {
	if cfg.DB == nil || cfg.Log == nil || cfg.GitHub == nil {
		return nil, errors.New("events: DB, Log and GitHub are required")
	}
	if cfg.WorkerID == "" || cfg.AppSlug == "" {
		return nil, errors.New("events: WorkerID and AppSlug are required")
	}
	if cfg.Write == nil {
		cfg.Write = ghwrite.New(cfg.GitHub, cfg.AppSlug)
	}
	if cfg.PollInterval <= 0 || cfg.PollInterval > time.Second {
		cfg.PollInterval = time.Second
	}
	if cfg.Backoff == nil {
		cfg.Backoff = []time.Duration{5 * time.Second, 30 * time.Second}
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 3
	}
	if cfg.StaleAfter <= 0 {
		cfg.StaleAfter = worker.DeadAfter
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 2
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ReplyLimitPerPR <= 0 {
		cfg.ReplyLimitPerPR = config.DefaultReplyLimitPerPR
	}
	if cfg.ReplyLimitPerUser <= 0 {
		cfg.ReplyLimitPerUser = config.DefaultReplyLimitPerUser
	}
	oc, err := outcomes.New(outcomes.Config{DB: cfg.DB, AppSlug: cfg.AppSlug, Log: cfg.Log, Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	return &Loop{cfg: cfg, requests: &reviewrequest.Requests{DB: cfg.DB, Bus: cfg.Bus, Access: reviewrequest.NewAccess(cfg.AllowList)}, outcomes: oc}, nil
}

// Name implements worker.Loop.
func (l *Loop) Name() string { return "events" }

// Run handles events until ctx ends, woken by wakeup.TopicEvents and a poll.
func (l *Loop) Run(ctx context.Context) error {
	var wake <-chan struct{}
	if l.cfg.Bus != nil {
		ch, stop := l.cfg.Bus.Subscribe(wakeup.TopicEvents)
		defer stop()
		wake = ch
	}
	ctx = logging.With(ctx, l.cfg.Log)
	// Concurrency drainers, each on the loop skeleton with its own poll; a
	// wake-up on the bus kicks them all.
	drain := func(ctx context.Context) error {
		_, err := l.Drain(ctx)
		return err
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	kick := make([]chan struct{}, l.cfg.Concurrency)
	for i := range kick {
		kick[i] = make(chan struct{}, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			worker.Repeat(ctx, "events: claim", kick[i], l.cfg.PollInterval, drain) //nolint:errcheck // nil when ctx ends
		}()
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		}
		for _, k := range kick {
			select {
			case k <- struct{}{}:
			default:
			}
		}
	}
}

// Drain handles due events until none is left, and returns how many it handled.
func (l *Loop) Drain(ctx context.Context) (int, error) {
	n := 0
	for ctx.Err() == nil {
		id, err := l.claim(ctx)
		if err != nil {
			return n, err
		}
		if id == 0 {
			return n, nil
		}
		l.process(ctx, id)
		n++
	}
	return n, ctx.Err()
}

// claim leases the oldest due event (pending and due, or processing under a
// lease nobody has refreshed for StaleAfter) and returns its id, 0 when none.
func (l *Loop) claim(ctx context.Context) (int, error) {
	return queue.Claim(ctx, l.cfg.DB, queue.WebhookEvents, l.cfg.WorkerID, time.Now(), l.cfg.StaleAfter)
}

// process runs the handler of event id and records the outcome under the lease.
func (l *Loop) process(ctx context.Context, id int) {
	ev, err := l.cfg.DB.WebhookEvent.Get(ctx, id)
	if err != nil {
		l.cfg.Log.Warn("events: load", "event_id", id, "err", redact.Error(err))
		return
	}
	log := l.cfg.Log.With(logging.KeyDelivery, ev.DeliveryID, "event", ev.Event, "action", ev.Action,
		logging.KeyInstallation, ev.InstallationID, logging.KeyRepo, ev.Repository)
	drop, herr := l.handle(logging.With(ctx, log), ev)
	if ctx.Err() != nil && herr != nil {
		return // shutting down: the lease lapses and another worker takes it over
	}
	mine := l.cfg.DB.WebhookEvent.Update().Where(queue.HeldEvent(id, l.cfg.WorkerID)).SetLeaseOwner("")
	now := time.Now()
	// The error may quote the payload (a repository named with a NUL): made
	// storable, or PostgreSQL refuses the outcome and the event stays
	// processing under a lease its own heartbeat keeps fresh.
	lastErr := runstate.Text(redact.String(fmt.Sprint(herr)))
	until, waitForGitHub := gh.WaitFor(herr, now)
	var outcome string
	switch {
	case herr == nil:
		outcome = metrics.OutcomeDone
		mine.SetStatus(webhookevent.StatusDone).SetHandledAt(now).SetLastError("")
		if drop {
			// Nothing of it is needed again: the row stays for deduplication.
			mine.SetPayload([]byte{})
		}
		log.Debug("webhook handled")
	case waitForGitHub:
		// GitHub asked to wait: back with that due time, never failed for it.
		outcome = metrics.OutcomeGitHubWait
		mine.SetStatus(webhookevent.StatusPending).SetNextAttemptAt(until).SetLastError(lastErr)
		log.Info("webhook handler: GitHub asked to wait", "until", until, "err", redact.Error(herr))
	case ev.Attempts >= l.cfg.MaxAttempts || fault.Is(herr, fault.Invalid):
		outcome = metrics.OutcomeFailed
		mine.SetStatus(webhookevent.StatusFailed).SetHandledAt(now).SetLastError(lastErr)
		log.Error("webhook failed", "attempts", ev.Attempts, "err", redact.Error(herr))
	default:
		outcome = metrics.OutcomeRetry
		wait := l.cfg.Backoff[min(ev.Attempts-1, len(l.cfg.Backoff)-1)]
		mine.SetStatus(webhookevent.StatusPending).SetNextAttemptAt(now.Add(wait)).SetLastError(lastErr)
		log.Warn("webhook handler failed; will retry", "attempts", ev.Attempts, "retry_in", wait, "err", redact.Error(herr))
	}
	n, err := mine.Save(ctx)
	switch {
	case err != nil:
		log.Warn("events: record outcome", "err", redact.Error(err))
	case n == 0:
		log.Warn("events: lease lost before the outcome was recorded")
	default:
		if l.cfg.Outcomes != nil { // counted once recorded: a lost lease's attempt is another worker's
			l.cfg.Outcomes.Processed(ev.Event, outcome)
		}
	}
}

// handle runs the event's handler, turning a panic into an error.
// drop says the handler needs nothing of the payload again (dropPayload).
// Its handlers log with the logger in ctx, which names the event.
func (l *Loop) handle(ctx context.Context, ev *ent.WebhookEvent) (drop bool, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("handler panic: %v", v)
		}
	}()
	h := &handler{Loop: l, ev: ev}
	err = h.dispatch(ctx)
	return h.dropPayload, err
}

// ErrNotFailed is returned by Retry for an event that is not failed.
var ErrNotFailed = intake.ErrEventNotFailed

// Retry puts a failed event back to pending with fresh attempts (the portal's
// retry), and wakes the event workers.
func Retry(ctx context.Context, db *store.DB, bus wakeup.Bus, id int) error {
	if err := intake.RetryWebhookEvent(ctx, db.Client, id); err != nil {
		return err
	}
	WakeRetried(ctx, bus)
	return nil
}

// WakeRetried wakes the event workers after a retry.
func WakeRetried(ctx context.Context, bus wakeup.Bus) {
	if bus != nil {
		bus.Notify(ctx, wakeup.TopicEvents) //nolint:errcheck // the poll is the safety net
	}
}

// Retry is Retry on the loop's database and bus.
func (l *Loop) Retry(ctx context.Context, id int) error { return Retry(ctx, l.cfg.DB, l.cfg.Bus, id) }

// permanent is a failure no retry can fix (a payload that does not fit its
// event): fault.Invalid, which fails the event at once.
func permanent(format string, args ...any) error {
	return fault.Newf(fault.Invalid, format, args...)
}
