package ghwrite

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/google/go-github/v88/github"
)

// CheckName is the one name of a run's check run: "Chakshu · <reviewer>",
// with " · reply" for a reply run.
func CheckName(reviewer string, reply bool) string {
	if reply {
		return "Chakshu · " + reviewer + " · reply"
	}
	return "Chakshu · " + reviewer
}

// BacktestCheckName is the one name of a backtest's check run on the
// reviewers-repository pull request: "Chakshu backtest · <reviewer>". It does
// not start with "Chakshu · ", so a Re-run of it is not taken for a review's.
func BacktestCheckName(reviewer string) string { return "Chakshu backtest · " + reviewer }

// Check names a run's check run on GitHub.
type Check struct {
	Repo Repo
	// Name is CheckName of the run.
	Name string
	// HeadSHA is the commit the check is on.
	HeadSHA string
	// RunID is Chakshu's run id (a backtest's id for a backtest check), the
	// check's external id.
	RunID int
	// ID is GitHub's check run id; 0 until opened.
	ID int64
	// FirstTry says no earlier attempt can have created this check run (a
	// run's first dispatch): OpenCheck creates it without listing the
	// commit's check runs first, one GitHub call fewer per review.
	FirstTry bool
}

// Text is a check run's output.
type Text struct{ Title, Summary string }

func (t Text) output() *github.CheckRunOutput {
	return &github.CheckRunOutput{Title: github.Ptr(t.Title), Summary: github.Ptr(t.Summary)}
}

// OpenCheck returns the check run of c, creating it once, in progress with
// text t and linked to detailsURL; created says it was made now. A check run
// with c's name on c's head SHA whose external id is c's run is taken as
// already created, whether by a crash before its id was recorded or by a
// create that landed and then failed (the caller then starts it itself).
// With c.FirstTry it does not look before creating, only after a create that
// may have landed.
func (p *Port) OpenCheck(ctx context.Context, c Check, detailsURL string, t Text) (id int64, created bool, err error) {
	if err := onPR(ctx); err != nil {
		return 0, false, err
	}
	gc, err := p.rest(c.Repo)
	if err != nil {
		return 0, false, err
	}
	find := func() (int64, bool, error) {
		id, err := p.findCheck(ctx, gc, c)
		return id, id != 0, err
	}
	if !c.FirstTry {
		if id, ok, err := find(); err != nil || ok {
			return id, false, err
		}
	}
	ext := strconv.Itoa(c.RunID)
	var made bool
	id, err = written(ctx, p, c.Repo, startNew, func() (int64, error) {
		return createOnce(ctx, p, func() (int64, error) {
			cr, _, err := gc.Checks.CreateCheckRun(ctx, c.Repo.Owner, c.Repo.Name, github.CreateCheckRunOptions{
				Name: c.Name, HeadSHA: c.HeadSHA, ExternalID: &ext, Status: github.Ptr("in_progress"),
				DetailsURL: github.Ptr(detailsURL), Output: t.output(),
			})
			made = err == nil
			return cr.GetID(), err
		}, find)
	})
	return id, made, err
}

func (p *Port) findCheck(ctx context.Context, gc *github.Client, c Check) (int64, error) {
	ext := strconv.Itoa(c.RunID)
	name := c.Name
	list, _, err := gc.Checks.ListCheckRunsForRef(ctx, c.Repo.Owner, c.Repo.Name, c.HeadSHA,
		// filter=all: GitHub lists only the newest run of each name by
		// default, and this run's check may not be the newest of its name
		// (a later run on the same commit).
		&github.ListCheckRunsOptions{CheckName: &name, Filter: github.Ptr("all"), ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		return 0, fmt.Errorf("list check runs: %w", err)
	}
	var id int64
	for _, cr := range list.CheckRuns {
		if cr.GetExternalID() == ext {
			id = cr.GetID()
		}
	}
	return id, nil
}

// StartCheck marks the check in progress.
func (p *Port) StartCheck(ctx context.Context, c Check, t Text) error {
	return p.updateCheck(ctx, c, github.UpdateCheckRunOptions{Status: github.Ptr("in_progress"), Output: t.output()})
}

// NoteCheck changes only the check's text (a run waiting for GitHub says
// so). It is not held by a recorded wait: the caller sends it only when
// GitHub's answer allows (MayTell).
func (p *Port) NoteCheck(ctx context.Context, c Check, t Text) error {
	if err := onPR(ctx); err != nil {
		return err
	}
	gc, err := p.rest(c.Repo)
	if err != nil {
		return err
	}
	if _, _, err := gc.Checks.UpdateCheckRun(ctx, c.Repo.Owner, c.Repo.Name, c.ID, github.UpdateCheckRunOptions{Name: c.Name, Output: t.output()}); err != nil {
		return fmt.Errorf("update check run: %w", err)
	}
	return nil
}

// CompleteCheck completes the check with conclusion ("success", "failure",
// "neutral", "cancelled") at the given time. A check GitHub no longer has answers an
// error IsNotFound reports.
func (p *Port) CompleteCheck(ctx context.Context, c Check, conclusion string, at time.Time, t Text) error {
	return p.updateCheck(ctx, c, github.UpdateCheckRunOptions{
		Status: github.Ptr("completed"), Conclusion: github.Ptr(conclusion),
		CompletedAt: &github.Timestamp{Time: at}, Output: t.output(),
	})
}

func (p *Port) updateCheck(ctx context.Context, c Check, o github.UpdateCheckRunOptions) error {
	if err := onPR(ctx); err != nil {
		return err
	}
	gc, err := p.rest(c.Repo)
	if err != nil {
		return err
	}
	o.Name = c.Name
	_, err = written(ctx, p, c.Repo, update, func() (*github.CheckRun, error) {
		cr, _, err := gc.Checks.UpdateCheckRun(ctx, c.Repo.Owner, c.Repo.Name, c.ID, o)
		return cr, err
	})
	if err != nil {
		return fmt.Errorf("update check run: %w", err)
	}
	return nil
}
