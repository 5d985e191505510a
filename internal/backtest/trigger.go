// Package backtest replays a change to a reviewer before it goes live
// (issue 25, DESIGN §10a). A pull request to an installation's reviewers
// repository that changes a reviewer's files gets one Backtest per changed
// reviewer: shadow runs of the version in force ("old") and of the change's
// head ("new") over the last pull requests that reviewer reviewed, then one
// comment on the change comparing their findings, and a check run
// `Chakshu backtest · <reviewer>` on the change's head.
//
// The webhook edge calls Request; the worker's Loop does the rest under a
// lease (internal/queue/lease.go): it loads the change, queues the shadow
// runs within the cost cap, and reports when they have all finished. The
// shadow runs themselves go through dispatch, job fetch, runner, gateway and
// publishing like any run, and post nothing on the pull requests they review.
package backtest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/backtest"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// Change is a pull request to an installation's reviewers repository, as a
// pull_request webhook tells it.
type Change struct {
	Installation *ent.Installation
	// Repo is owner/name of the reviewers repository.
	Repo             string
	Number           int
	URL              string
	HeadSHA, BaseSHA string
	// Closed: the pull request was closed (merged or not).
	Closed bool
}

// Requested says what Request did.
type Requested struct {
	// Created are the backtests queued now, one per changed reviewer.
	Created []*ent.Backtest
	// Cancelled counts earlier backtests of the pull request it cancelled.
	Cancelled int
}

// Request is the one use case behind a pull_request webhook on a reviewers
// repository: a push (opened, synchronize, reopened) cancels the backtests
// of an older head of the same pull request and queues one backtest per
// reviewer whose files the change touches; closing cancels them all. gc
// lists the change's files. Handling the same delivery again queues nothing
// twice.
func Request(ctx context.Context, db *store.DB, bus wakeup.Bus, gc *github.Client, ch Change) (Requested, error) {
	var out Requested
	n, err := cancelOthers(ctx, db, ch)
	out.Cancelled = n
	if err != nil || ch.Closed {
		return out, err
	}
	names, err := ChangedReviewers(ctx, gc, ch.Repo, ch.Number)
	if err != nil {
		return out, err
	}
	for _, name := range names {
		exists, err := db.Backtest.Query().Where(backtest.HasInstallationWith(installation.ID(ch.Installation.ID)),
			backtest.ReviewersRepo(ch.Repo), backtest.PrNumber(ch.Number), backtest.ReviewerName(name),
			backtest.HeadSha(ch.HeadSHA), backtest.StatusNEQ(backtest.StatusCancelled)).Exist(ctx)
		if err != nil {
			return out, fmt.Errorf("find backtest of %s: %w", name, err)
		}
		if exists {
			continue // this head is backtested already (a redelivery); a cancelled one (closed, then reopened) is not
		}
		bt, err := db.Backtest.Create().SetInstallationID(ch.Installation.ID).SetReviewerName(name).
			SetReviewersRepo(ch.Repo).SetPrNumber(ch.Number).SetPrURL(runstate.Text(ch.URL)).
			SetHeadSha(ch.HeadSHA).SetBaseSha(ch.BaseSHA).Save(ctx)
		if err != nil {
			return out, fmt.Errorf("queue backtest of %s: %w", name, err)
		}
		out.Created = append(out.Created, bt)
	}
	if len(out.Created) > 0 && bus != nil {
		_ = bus.Notify(ctx, wakeup.TopicBacktests) // the loop polls too
	}
	return out, nil
}

// ChangedReviewers lists the reviewers whose files (reviewers/<name>/…:
// reviewer.yaml, CLAUDE.md, skills) pull request number of the reviewers
// repository full changes, sorted; a renamed file counts for both folders.
func ChangedReviewers(ctx context.Context, gc *github.Client, full string, number int) ([]string, error) {
	owner, name, _ := strings.Cut(full, "/")
	files, err := gh.ListPRFiles(ctx, gc, owner, name, number)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, f := range files {
		for _, p := range []string{f.GetFilename(), f.GetPreviousFilename()} {
			if n, ok := reviewerOf(p); ok {
				seen[n] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// reviewerOf is the reviewer whose folder holds path, if any.
func reviewerOf(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "reviewers/")
	if !ok {
		return "", false
	}
	name, sub, ok := strings.Cut(rest, "/")
	if !ok || sub == "" || !reviewerconfig.ValidName(name) {
		return "", false
	}
	return name, true
}

// Open are the states of a backtest that is not over.
var Open = []backtest.Status{backtest.StatusQueued, backtest.StatusRunning}

// cancelOthers cancels the open backtests of the change's pull request that
// are for another head (all of them when it closed), and their shadow runs.
func cancelOthers(ctx context.Context, db *store.DB, ch Change) (int, error) {
	q := db.Backtest.Query().Where(backtest.HasInstallationWith(installation.ID(ch.Installation.ID)),
		backtest.ReviewersRepo(ch.Repo), backtest.PrNumber(ch.Number), backtest.StatusIn(Open...))
	reason := "The pull request was closed, so this backtest was cancelled."
	if !ch.Closed {
		q.Where(backtest.HeadShaNEQ(ch.HeadSHA))
		reason = fmt.Sprintf("The pull request moved to %s, so this backtest of an older commit was cancelled; the new commit gets its own.", gh.ShortSHA(ch.HeadSHA))
	}
	bts, err := q.All(ctx)
	if err != nil {
		return 0, fmt.Errorf("find superseded backtests: %w", err)
	}
	n := 0
	for _, bt := range bts {
		ok, err := Cancel(ctx, db, bt.ID, reason)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// Cancel cancels backtest id if it is still open, with a safe reason, and
// cancels its shadow runs not yet publishing (the finisher cancels their
// Actions runs). The worker completes its check run (CancelledBacktests).
// It reports whether it cancelled the backtest.
func Cancel(ctx context.Context, db *store.DB, id int, reason string) (bool, error) {
	n, err := db.Backtest.Update().Where(backtest.ID(id), backtest.StatusIn(Open...)).
		SetStatus(backtest.StatusCancelled).SetFailureReason(reason).SetFinishedAt(time.Now()).Save(ctx)
	if err != nil {
		return false, fmt.Errorf("cancel backtest %d: %w", id, err)
	}
	if n == 0 {
		return false, nil
	}
	return true, cancelRuns(ctx, db, id, func(*ent.Run) string { return reason })
}

// cancelRuns cancels backtest id's shadow runs that are queued or in flight,
// each with the reason why gives it.
func cancelRuns(ctx context.Context, db *store.DB, id int, why func(*ent.Run) string) error {
	rs, err := db.Run.Query().Where(run.BacktestID(id), run.Shadow(true), run.StatusIn(runstate.Superseded...)).All(ctx)
	if err != nil {
		return fmt.Errorf("find shadow runs of backtest %d: %w", id, err)
	}
	for _, r := range rs {
		reason := why(r)
		if reason == "" {
			continue
		}
		err := runstate.Transition(ctx, db.Client, r.ID, runstate.Change{From: runstate.Superseded, To: run.StatusCancelled,
			Message: reason, Set: func(u *ent.RunUpdate) { u.SetFailureReason(reason) }})
		if err != nil && !errors.Is(err, runstate.ErrConflict) {
			return err
		}
	}
	return nil
}

// Rerun backtests again the change whose backtest check run checkRunID is
// ("Re-run" on GitHub): a new backtest of the same reviewer, pull request and
// head, with a check run of its own; its comparison edits the one comment.
// A backtest still open is left to finish: Rerun then returns nil. The caller
// checks the check is Chakshu's and that the asker may write.
func Rerun(ctx context.Context, db *store.DB, bus wakeup.Bus, installationID int, checkRunID int64) (*ent.Backtest, error) {
	last, err := db.Backtest.Query().Where(backtest.HasInstallationWith(installation.ID(installationID)), backtest.CheckRunID(checkRunID)).
		Order(ent.Desc(backtest.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find backtest of check run %d: %w", checkRunID, err)
	}
	open, err := db.Backtest.Query().Where(backtest.HasInstallationWith(installation.ID(installationID)),
		backtest.ReviewersRepo(last.ReviewersRepo), backtest.PrNumber(last.PrNumber), backtest.ReviewerName(last.ReviewerName),
		backtest.HeadSha(last.HeadSha), backtest.StatusIn(Open...)).Exist(ctx)
	if err != nil || open {
		return nil, err
	}
	bt, err := db.Backtest.Create().SetInstallationID(installationID).SetReviewerName(last.ReviewerName).
		SetReviewersRepo(last.ReviewersRepo).SetPrNumber(last.PrNumber).SetPrURL(last.PrURL).
		SetHeadSha(last.HeadSha).SetBaseSha(last.BaseSha).Save(ctx)
	if err != nil {
		return nil, fmt.Errorf("queue backtest again: %w", err)
	}
	if bus != nil {
		_ = bus.Notify(ctx, wakeup.TopicBacktests)
	}
	return bt, nil
}
