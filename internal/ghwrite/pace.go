package ghwrite

import (
	"context"
	"errors"
	"time"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/logging"
)

// Window is one pacing limit: at most N content-creating writes in any Per.
// GitHub's are 80 a minute and 500 an hour per installation ("Rate limits
// for the REST API", secondary limits); Enterprise Server sets its own.
type Window struct {
	N   int
	Per time.Duration
}

// GitHubWindows are github.com's content-creation limits.
var GitHubWindows = []Window{{N: 80, Per: time.Minute}, {N: 500, Per: time.Hour}}

// Priority says which writes give way when an installation's content budget
// runs low: a new review (its check run, its workflow dispatch) waits while
// the writes of reviews already under way (their review, comments, replies)
// use what is left, so started reviews finish before new ones start.
type Priority int

const (
	// Finishing is a write of a review already under way.
	Finishing Priority = iota + 1
	// Starting is a write that starts a new review.
	Starting
)

// Hold is a wait GitHub asked an installation's writes to keep.
type Hold struct {
	Until  time.Time
	Reason string
	// Hits counts consecutive secondary limits without Retry-After.
	Hits int
}

// Budget keeps each installation's content budget and GitHub's asked waits
// where every worker process sees them (*DBBudget, the installations table).
type Budget interface {
	// Admit spends one content-creating write of installation inst of
	// priority pri at now, or returns how long until it may go (nothing
	// spent). hold is GitHub's recorded wait, if any.
	Admit(ctx context.Context, inst int64, pri Priority, now time.Time) (wait time.Duration, hold Hold, err error)
	// Held is GitHub's recorded wait for inst (zero Until when none).
	Held(ctx context.Context, inst int64) (Hold, error)
	// Record keeps GitHub's ask to wait until (at least) until. growing
	// marks a secondary limit without Retry-After: the wait is then
	// gh.Growing of the consecutive count, kept across processes. It
	// returns the wait every process now keeps.
	Record(ctx context.Context, inst int64, until time.Time, reason string, growing bool, now time.Time) (time.Time, error)
	// Clear ends a run of secondary limits once a write went through.
	Clear(ctx context.Context, inst int64) error
}

// paceOf is how a write meets the budget.
type paceOf int

const (
	// updates change what exists (a check run's text, a resolve): held by
	// GitHub's waits, not paced.
	update paceOf = iota
	startNew
	finish
)

// gate holds a write of kind back while GitHub asked inst to wait, and paces
// content-creating ones. A wait up to p.inline (Starting: p.inline/5) is
// slept here; a longer one returns a *gh.WaitError, so the caller hands its
// work item back with a due time.
func (p *Port) gate(ctx context.Context, inst int64, kind paceOf) (hits int, err error) {
	if p.budget == nil {
		return 0, nil
	}
	for {
		now := p.now()
		var wait time.Duration
		var hold Hold
		switch kind {
		case update:
			hold, err = p.budget.Held(ctx, inst)
			if err == nil && hold.Until.After(now) {
				wait = hold.Until.Sub(now)
			}
		case startNew:
			wait, hold, err = p.budget.Admit(ctx, inst, Starting, now)
		default:
			wait, hold, err = p.budget.Admit(ctx, inst, Finishing, now)
		}
		if err != nil {
			// The budget is advisory: a database hiccup does not stop a write.
			logging.From(ctx).Warn("github write budget", "installation_id", inst, "err", err)
			return 0, nil
		}
		if wait <= 0 {
			return hold.Hits, nil
		}
		limit := p.inline
		if kind == startNew {
			limit /= 5
		}
		if hold.Until.After(now) || wait > limit {
			if hold.Until.After(now) {
				return 0, &gh.WaitError{Until: now.Add(wait), Reason: "GitHub asked Chakshu to wait (" + hold.Reason + ")"}
			}
			return 0, &gh.WaitError{Until: now.Add(wait), Paced: true,
				Reason: "Chakshu is pacing this installation's writes under GitHub's content limits"}
		}
		if err := p.sleep(ctx, wait); err != nil {
			return 0, err
		}
	}
}

// settle records what GitHub answered a gated write: a rate limit becomes a
// wait every process keeps (returned as a *gh.WaitError wrapping GitHub's
// answer); a write that went through ends a run of secondary limits.
func (p *Port) settle(ctx context.Context, inst int64, hits int, err error) error {
	if p.budget == nil {
		return err
	}
	if err == nil {
		if hits > 0 {
			if cerr := p.budget.Clear(ctx, inst); cerr != nil {
				logging.From(ctx).Warn("github write budget: clear", "installation_id", inst, "err", cerr)
			}
		}
		return nil
	}
	var we *gh.WaitError
	if errors.As(err, &we) {
		return err
	}
	now := p.now()
	until, ok := gh.WaitFor(err, now)
	if !ok {
		return err
	}
	growing, _ := gh.Secondary(err)
	reason := "a secondary rate limit"
	switch {
	case gh.Unavailable(err):
		reason = "it is unavailable and named when to come back"
	case gh.Primary(err):
		reason = "its primary rate limit is spent until the reset"
	}
	var gl *gh.GraphQLRateLimitError
	if errors.As(err, &gl) { // GraphQL's points are a quota apart from REST's
		reason = "GraphQL: " + reason
	}
	kept, rerr := p.budget.Record(context.WithoutCancel(ctx), inst, until, reason, growing, now)
	if rerr != nil {
		logging.From(ctx).Warn("github write budget: record a wait", "installation_id", inst, "err", rerr)
		return err
	}
	return &gh.WaitError{Until: kept, Reason: "GitHub asked Chakshu to wait (" + reason + ")", Err: err}
}

// written runs one gated write for repo r.
func written[T any](ctx context.Context, p *Port, r Repo, kind paceOf, do func() (T, error)) (T, error) {
	var zero T
	hits, err := p.gate(ctx, r.Installation, kind)
	if err != nil {
		return zero, err
	}
	v, err := do()
	if err = p.settle(ctx, r.Installation, hits, err); err != nil {
		return zero, err
	}
	return v, nil
}

// MayTell reports whether a run held back by err may say so on its check
// run now: GitHub answered with a secondary limit (a check run update is not
// content creation). A primary limit refuses every call until its reset, and
// a wait Chakshu kept without asking GitHub would spend a call per work item.
func MayTell(err error) bool {
	var we *gh.WaitError
	if errors.As(err, &we) && we.Err == nil {
		return false
	}
	_, secondary := gh.Secondary(err)
	return secondary
}
