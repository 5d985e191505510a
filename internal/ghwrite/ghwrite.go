// Package ghwrite is Chakshu's one port for writes to GitHub (STYLE.md "One
// port per outside effect"): the check-run lifecycle (open, start, link,
// complete) under its one name, the review, comments and replies posted once
// by hidden marker, workflow dispatch and cancel, thread resolution and
// review-request removal. Consumers declare the few calls they need as a
// small interface that *Port satisfies.
//
// Only the worker holds a Port: the web process never writes to GitHub
// (DESIGN §1, §8; internal/app's guard test keeps it so).
//
// Content-creating POSTs (review, issue comment, reply, check-run create)
// are not retried blindly: the transport (internal/gh) leaves a 5xx or a
// network error on them to the port, which looks for what it posted (its
// hidden marker, or the check run by name, head SHA and external id) before
// it sends again, because GitHub may have performed the write and still
// answered 502 (prontolabs/pronto#302).
package ghwrite

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/internal/gh"
)

// Installations hands out installation clients; *gh.Apps satisfies it.
type Installations interface {
	Installation(id int64) (*gh.Installation, error)
	// InstallationFor mints a token narrowed to scope (only thread
	// resolution holds Contents: write, gh.ScopeResolve).
	InstallationFor(id int64, scope gh.Scope) (*gh.Installation, error)
}

var _ Installations = (*gh.Apps)(nil)

// Repo names a repository as the installation that acts in it.
type Repo struct {
	Installation int64
	Owner, Name  string
}

func (r Repo) String() string { return r.Owner + "/" + r.Name }

// Port writes to GitHub for the worker.
type Port struct {
	apps Installations
	bot  string // "<slug>[bot]", the login Chakshu posts as
	// attempts of a content-creating POST, looking for it between them.
	attempts int
	sleep    func(ctx context.Context, d time.Duration) error
	now      func() time.Time
	// runDetails remembers the hosts that refuse return_run_details.
	runDetails runDetailsHosts
	// budget paces content-creating writes per installation and keeps
	// GitHub's asked waits for every process; nil writes unpaced.
	budget Budget
	// inline is the longest a write waits for its budget in place.
	inline time.Duration
}

// Option adjusts a Port.
type Option func(*Port)

// WithSleep replaces the wait between attempts (tests).
func WithSleep(f func(ctx context.Context, d time.Duration) error) Option {
	return func(p *Port) { p.sleep = f }
}

// WithBudget paces content-creating writes per installation by b and holds
// every write while GitHub asked its installation to wait (DBBudget).
func WithBudget(b Budget) Option {
	return func(p *Port) { p.budget = b }
}

// WithClock replaces the clock and the longest in-place wait (tests and
// the compressed-time benchmark).
func WithClock(now func() time.Time, inline time.Duration) Option {
	return func(p *Port) { p.now, p.inline = now, inline }
}

// New returns the port acting through apps as the App appSlug.
func New(apps Installations, appSlug string, opts ...Option) *Port {
	p := &Port{apps: apps, bot: strings.ToLower(appSlug) + "[bot]", attempts: 3, sleep: gh.Sleep, now: time.Now, inline: gh.InlineWait}
	for _, o := range opts {
		o(p)
	}
	return p
}

// BotLogin is the login Chakshu's comments are posted as.
func (p *Port) BotLogin() string { return p.bot }

func (p *Port) rest(r Repo) (*github.Client, error) {
	in, err := p.apps.Installation(r.Installation)
	if err != nil {
		return nil, fmt.Errorf("github client for installation %d: %w", r.Installation, err)
	}
	return in.REST, nil
}

// StatusOf is the HTTP status of a go-github error, or 0.
func StatusOf(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

// IsNotFound reports a 404 answer.
func IsNotFound(err error) bool { return StatusOf(err) == http.StatusNotFound }

// mayHaveLanded reports a failure after which GitHub may still have performed
// the write: a 5xx answer or no answer at all (not a cancelled context).
func mayHaveLanded(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if st := StatusOf(err); st != 0 {
		return st >= 500
	}
	var rl *github.RateLimitError
	var arl *github.AbuseRateLimitError
	return !errors.As(err, &rl) && !errors.As(err, &arl)
}

// createOnce sends a content-creating request at most p.attempts times; after
// a failure that may have landed it asks found first, and returns what found
// returns when the write is already there.
func createOnce[T any](ctx context.Context, p *Port, send func() (T, error), found func() (T, bool, error)) (T, error) {
	var zero T
	for attempt := 1; ; attempt++ {
		v, err := send()
		if _, wait := gh.WaitFor(err, p.now()); wait && mayHaveLanded(err) {
			// A 5xx asking to come back later (Retry-After past what a
			// request waits inline): look once, then hand the wait back.
			if got, ok, ferr := found(); ferr == nil && ok {
				return got, nil
			}
			return zero, err
		}
		if err == nil || !mayHaveLanded(err) || attempt >= p.attempts {
			return v, err
		}
		if serr := p.sleep(ctx, wait(attempt)); serr != nil {
			return zero, err
		}
		got, ok, ferr := found()
		if ferr != nil {
			return zero, fmt.Errorf("%w (and looking for it failed: %v)", err, ferr)
		}
		if ok {
			return got, nil
		}
	}
}

// wait is the pause before attempt+1: 1 s, then 2 s.
func wait(attempt int) time.Duration { return time.Duration(attempt) * time.Second }
