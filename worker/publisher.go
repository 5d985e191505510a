package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// RunPublisher publishes one run that is in publishing and held by the
// caller (*publish.Publisher). It moves the run on itself.
type RunPublisher interface {
	Publish(ctx context.Context, runID int) error
}

// PublisherConfig builds the publishing loop.
type PublisherConfig struct {
	DB        *store.DB
	Bus       wakeup.Bus
	Publisher RunPublisher
	Log       *slog.Logger
	// WorkerID is this worker's lease-owner id (worker.Config.ID).
	WorkerID string
	// Poll is the safety-net poll between wake-ups; at most 1 s (DESIGN §11).
	Poll time.Duration
	// StaleAfter is how old a lease's heartbeat must be before another worker
	// may take the run over (90 s in production, DESIGN §3).
	StaleAfter time.Duration
	// RunTimeout bounds one run's publishing.
	RunTimeout time.Duration
	// RetryAfter is how long a run whose publishing hit an error it could not
	// record waits before it is tried again.
	RetryAfter time.Duration
	// Check says a run's wait for GitHub on its check run; nil says it only
	// on the timeline.
	Check CheckNoter
}

// CheckNoter changes a check run's text (*ghwrite.Port).
type CheckNoter interface {
	NoteCheck(ctx context.Context, c ghwrite.Check, t ghwrite.Text) error
}

var _ CheckNoter = (*ghwrite.Port)(nil)

// PublishLoop claims runs in publishing and publishes them.
type PublishLoop struct{ cfg PublisherConfig }

var _ Loop = (*PublishLoop)(nil)

// NewPublishLoop validates cfg.
func NewPublishLoop(cfg PublisherConfig) (*PublishLoop, error) {
	if cfg.DB == nil || cfg.Publisher == nil || cfg.WorkerID == "" {
		return nil, errors.New("publish loop: DB, Publisher and WorkerID are required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Poll <= 0 || cfg.Poll > time.Second {
		cfg.Poll = time.Second
	}
	if cfg.StaleAfter <= 0 {
		cfg.StaleAfter = DeadAfter
	}
	if cfg.RunTimeout <= 0 {
		cfg.RunTimeout = 5 * time.Minute
	}
	if cfg.RetryAfter <= 0 {
		cfg.RetryAfter = 30 * time.Second
	}
	return &PublishLoop{cfg: cfg}, nil
}

// Name implements Loop.
func (l *PublishLoop) Name() string { return "publish" }

// Run implements Loop: it publishes every claimable run, then waits for a
// wake-up on wakeup.TopicPublish or the poll.
func (l *PublishLoop) Run(ctx context.Context) error {
	var wake <-chan struct{}
	if l.cfg.Bus != nil {
		ch, cancel := l.cfg.Bus.Subscribe(wakeup.TopicPublish)
		defer cancel()
		wake = ch
	}
	return Repeat(logging.With(ctx, l.cfg.Log), "publish: claim", wake, l.cfg.Poll, l.drain)
}

// drain publishes claimable runs until none is left.
func (l *PublishLoop) drain(ctx context.Context) error {
	for ctx.Err() == nil {
		id, err := l.Claim(ctx, time.Now())
		if err != nil || id == 0 {
			return err
		}
		l.publish(ctx, id)
	}
	return nil
}

// maxPublishAttempts bounds how often a run's publishing is tried.
const maxPublishAttempts = 3

// PublishOne publishes one run the caller claimed (Claim), as Run does.
func (l *PublishLoop) PublishOne(ctx context.Context, id int) { l.publish(ctx, id) }

func (l *PublishLoop) publish(ctx context.Context, id int) {
	log := l.cfg.Log.With(logging.KeyRun, id)
	ctx = logging.With(ctx, log)
	rctx, cancel := context.WithTimeout(ctx, l.cfg.RunTimeout)
	defer cancel()
	err := l.safePublish(rctx, id)
	if l.cfg.Bus != nil && err != nil {
		// A failed run's check run is completed by the finisher.
		l.cfg.Bus.Notify(context.WithoutCancel(ctx), wakeup.TopicFinish) //nolint:errcheck
	}
	if err == nil || ctx.Err() != nil {
		return // done, or shutting down: the lease goes stale and another worker takes over
	}
	bg := context.WithoutCancel(ctx)
	if until, wait := gh.WaitFor(err, time.Now()); wait {
		l.waitForGitHub(bg, id, until, err) // not an attempt: nothing failed
		return
	}
	// The run is still publishing (the publisher was interrupted, or could
	// not record its failure): let go of it and retry later, a few times.
	// The run's publish_failures column counts the failures before this one.
	r, cerr := l.cfg.DB.Run.Get(bg, id)
	if cerr == nil && r.PublishFailures+1 >= maxPublishAttempts {
		ferr := runstate.Fail(bg, l.cfg.DB.Client, id, "Chakshu could not publish this review on GitHub. It can be triggered again.", err.Error())
		if ferr == nil || errors.Is(ferr, runstate.ErrConflict) {
			return
		}
	}
	n, uerr := l.cfg.DB.Run.Update().
		Where(queue.HeldRun(queue.PublishingRuns, id, l.cfg.WorkerID)).
		SetLeaseOwner("").SetNextAttemptAt(time.Now().Add(l.cfg.RetryAfter)).AddPublishFailures(1).
		Save(bg)
	switch {
	case uerr != nil:
		log.Warn("publish: release run", "err", redact.Error(uerr))
	case n > 0:
		log.Warn("publish: will retry", "err", redact.Error(err))
		runstate.Note(bg, l.cfg.DB.Client, id, store.NotePublishRetry, err.Error()) //nolint:errcheck // the timeline entry is for people
	}
}

// waitForGitHub lets go of a publishing run GitHub asked to wait for, due at
// until, and says so on its timeline.
func (l *PublishLoop) waitForGitHub(ctx context.Context, id int, until time.Time, cause error) {
	log := logging.From(ctx)
	held, err := queue.Release(ctx, l.cfg.DB, queue.PublishingRuns, id, l.cfg.WorkerID, until)
	if err != nil || !held {
		if err != nil {
			log.Warn("publish: put the run back", "err", redact.Error(err))
		}
		return
	}
	log.Info("publish: GitHub asked to wait", "until", until, "err", redact.Error(cause))
	runstate.Note(ctx, l.cfg.DB.Client, id, waitingText(cause, until), cause.Error()) //nolint:errcheck // the timeline entry is advisory
	if l.cfg.Check != nil {
		noteWait(ctx, l.cfg.DB, l.cfg.Check, id, until, cause)
	}
}

// noteWait says on run id's check run that it waits for GitHub until then,
// when GitHub's answer allows a call now (ghwrite.MayTell). It logs with the
// logger in ctx, which names the run.
func noteWait(ctx context.Context, db *store.DB, w CheckNoter, id int, until time.Time, cause error) {
	if !ghwrite.MayTell(cause) {
		return
	}
	r, err := db.Run.Query().Where(run.ID(id)).
		WithRepository(func(q *ent.RepositoryQuery) { q.WithInstallation() }).WithReviewer().Only(ctx)
	if err != nil || r.CheckRunID == 0 {
		return
	}
	if err := w.NoteCheck(ctx, ghwrite.CheckOf(r), ghwrite.Text{Title: "Waiting for GitHub", Summary: WaitingText(until)}); err != nil {
		logging.From(ctx).Warn("say the wait on the check run", "err", redact.Error(err))
	}
}

// safePublish turns a panic in publishing into an error, so one bad run
// cannot take the worker down.
func (l *PublishLoop) safePublish(ctx context.Context, id int) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("publish run %d panicked: %v", id, v)
		}
	}()
	return l.cfg.Publisher.Publish(ctx, id)
}

// Claim takes the oldest claimable publishing run: one nobody holds (the
// move to publishing clears the lease, internal/runstate) or whose holder went
// silent for StaleAfter, and not waiting for a retry. A lease is judged by
// its heartbeat alone: comparing it with reported_at let a second worker
// claim a run whose first claim was stamped a moment before the run arrived,
// and both published it. It returns 0 when there is none.
func (l *PublishLoop) Claim(ctx context.Context, now time.Time) (int, error) {
	return queue.Claim(ctx, l.cfg.DB, queue.PublishingRuns, l.cfg.WorkerID, now, l.cfg.StaleAfter)
}
