// Package runstate owns the run state machine (DESIGN §2): queueing runs and moving
// them between states with conditional updates, each recorded on the run's
// timeline. Every package that changes a run's status goes through here. It
// is also the one reader of a run's stored result (Result), for publishing,
// outcomes and GraphQL.
package runstate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// Active are the states of a run that is queued or in flight.
var Active = []run.Status{run.StatusQueued, run.StatusDispatched, run.StatusRunning, run.StatusPublishing}

// Terminal reports whether s is a final state.
func Terminal(s run.Status) bool {
	return s == run.StatusSucceeded || s == run.StatusFailed || s == run.StatusCancelled
}

// ErrConflict means the run was not in an expected state: another process
// moved it first, or it is finished.
var ErrConflict = errors.New("run is not in the expected state")

// Change describes a transition.
type Change struct {
	// From lists the states the run may be in; the update applies only then.
	From []run.Status
	// To is the new state.
	To run.Status
	// Message is a safe sentence for the timeline; Detail is operator detail
	// (redacted here).
	Message, Detail string
	// Set adds field updates to the same conditional update.
	Set func(u *ent.RunUpdate)
}

// Transition moves run id from one of c.From to c.To, atomically, and records
// it on the timeline. It returns ErrConflict when the run was elsewhere.
func Transition(ctx context.Context, db *ent.Client, id int, c Change) error {
	u := db.Run.Update().Where(run.ID(id), run.StatusIn(c.From...)).SetStatus(c.To)
	now := time.Now()
	switch c.To {
	case run.StatusDispatched:
		u.SetDispatchedAt(now)
	case run.StatusRunning:
		u.SetStartedAt(now)
	case run.StatusPublishing:
		// Nobody holds a run that just arrived for publishing: a publisher
		// claims it with a fresh lease.
		u.SetReportedAt(now).SetLeaseOwner("")
	case run.StatusSucceeded, run.StatusFailed, run.StatusCancelled:
		u.SetFinishedAt(now).SetLeaseOwner("").SetRunTokenHash("")
	}
	if c.Set != nil {
		c.Set(u)
	}
	n, err := u.Save(ctx)
	if err != nil {
		return fmt.Errorf("run %d → %s: %w", id, c.To, err)
	}
	if n == 0 {
		return ErrConflict
	}
	from := ""
	if len(c.From) == 1 {
		from = string(c.From[0])
	}
	err = db.RunEvent.Create().SetRunID(id).SetFromStatus(from).SetToStatus(string(c.To)).
		SetMessage(c.Message).SetDetail(redact.String(c.Detail)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("run %d timeline: %w", id, err)
	}
	return nil
}

// Fail moves a non-terminal run to failed with a safe reason and operator detail.
func Fail(ctx context.Context, db *ent.Client, id int, reason, detail string) error {
	return Transition(ctx, db, id, Change{
		From: Active, To: run.StatusFailed, Message: reason, Detail: detail,
		Set: func(u *ent.RunUpdate) {
			u.SetFailureReason(reason).SetFailureDetail(redact.String(detail))
		},
	})
}

// Note adds a timeline entry without a state change.
func Note(ctx context.Context, db *ent.Client, id int, message, detail string) error {
	return db.RunEvent.Create().SetRunID(id).SetMessage(message).SetDetail(redact.String(detail)).Exec(ctx)
}

// Text makes s storable: PostgreSQL text (and a JSON string in jsonb) cannot
// hold NUL or invalid UTF-8, so a PR title, path, note or runner report
// carrying them would fail the write and leave the run unreviewable. NUL is
// dropped and invalid bytes become U+FFFD.
func Text(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// Request asks for review runs of one PR by several reviewers.
type Request struct {
	RepositoryID int
	ReviewerIDs  []int
	PRNumber     int
	PRTitle      string
	PRURL        string
	HeadSHA      string
	HeadRef      string
	BaseSHA      string
	BaseRef      string
	Trigger      run.Trigger
	Requester    string
	Note         string
	// RequestTarget is set when a review request triggered the runs.
	RequestTarget string
	// Configure sets per-reviewer fields (model, cost cap) on each create.
	Configure func(reviewerID int, c *ent.RunCreate)
	// InTx, when set, runs in the queueing transaction once the runs are
	// created (the audit entry of a portal request); an error from it
	// queues nothing.
	InTx func(ctx context.Context, c *ent.Client, created []*ent.Run, skipped []int) error
}

// Enqueue queues one review run per reviewer, skipping a reviewer that already
// has a queued or in-flight run for the same PR and head SHA. It returns the
// runs created and the ids of reviewers skipped, and wakes the dispatchers.
// The runs, their timelines and what req.InTx writes commit together or not
// at all; a skipped reviewer's insert is undone to a savepoint, since on
// PostgreSQL a failed statement would otherwise abort the transaction.
func Enqueue(ctx context.Context, db *store.DB, bus wakeup.Bus, req Request) (created []*ent.Run, skipped []int, err error) {
	for _, f := range []*string{&req.PRTitle, &req.PRURL, &req.HeadRef, &req.BaseRef, &req.Requester, &req.Note, &req.RequestTarget} {
		*f = Text(*f)
	}
	err = db.WithTx(ctx, func(tx *ent.Tx) error {
		c := tx.Client()
		created, skipped = nil, nil
		for _, rid := range req.ReviewerIDs {
			cr := c.Run.Create().SetRepositoryID(req.RepositoryID).SetReviewerID(rid).
				SetKind(run.KindReview).SetTrigger(req.Trigger).SetPrNumber(req.PRNumber).
				SetPrTitle(req.PRTitle).SetPrURL(req.PRURL).SetHeadSha(req.HeadSHA).SetHeadRef(req.HeadRef).
				SetBaseSha(req.BaseSHA).SetBaseRef(req.BaseRef).SetRequester(req.Requester).
				SetNote(req.Note).SetRequestTarget(req.RequestTarget)
			if req.Configure != nil {
				req.Configure(rid, cr)
			}
			if _, err := c.ExecContext(ctx, "SAVEPOINT enqueue_run"); err != nil {
				return fmt.Errorf("queue run: %w", err)
			}
			r, err := cr.Save(ctx)
			switch {
			case ent.IsConstraintError(err):
				// The partial unique index: one is already active.
				if _, err := c.ExecContext(ctx, "ROLLBACK TO SAVEPOINT enqueue_run"); err != nil {
					return fmt.Errorf("queue run: %w", err)
				}
				skipped = append(skipped, rid)
				continue
			case err != nil:
				return fmt.Errorf("queue run: %w", err)
			}
			if _, err := c.ExecContext(ctx, "RELEASE SAVEPOINT enqueue_run"); err != nil {
				return fmt.Errorf("queue run: %w", err)
			}
			if err := c.RunEvent.Create().SetRunID(r.ID).SetToStatus(string(run.StatusQueued)).
				SetMessage(fmt.Sprintf("Queued by %s (%s).", orSomeone(req.Requester), req.Trigger)).Exec(ctx); err != nil {
				return fmt.Errorf("queue run: timeline: %w", err)
			}
			created = append(created, r)
		}
		if req.InTx != nil {
			return req.InTx(ctx, c, created, skipped)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for i, r := range created {
		created[i] = r.Unwrap() // read on through db, not the finished transaction
	}
	if len(created) > 0 && bus != nil {
		bus.Notify(ctx, wakeup.TopicRuns) //nolint:errcheck // the poll is the safety net
	}
	return created, skipped, nil
}

func orSomeone(s string) string {
	if s == "" {
		return "Chakshu"
	}
	return s
}
