package runnerapi

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/gh"
)

// scopeActionsRead reads one Actions run (GitHub: "Get a workflow run"
// needs Actions: read).
var scopeActionsRead = gh.Scope{"actions": "read", "metadata": "read"}

// runNameOf finds Chakshu's run ids in an Actions run's display title, the
// workflow template's run-name "Chakshu run N (PR #M)", or "Chakshu run
// N,O,P (PR #M)" when several reviewers share the Actions run.
var runNameOf = regexp.MustCompile(`^Chakshu run ([0-9]{1,18}(?:,[0-9]{1,18}){0,24}) `)

// adoptActionsRun records the Actions run a token names as run rn's, where
// the dispatch could not say which run it started (Enterprise Server has no
// return_run_details: the run keeps Actions run id 0). GitHub is asked for
// that Actions run: it is rn's when it is the review workflow, dispatched by
// the App itself (a person dispatching the workflow by hand with run_id=N
// does not get run N's job) and its run-name names rn (alone, or among the
// runs sharing it: each is adopted when the runner asks for its job). The record is
// conditional on no Actions run being recorded yet, so only one is taken.
// It returns the run as stored afterwards.
func (a *API) adoptActionsRun(ctx context.Context, rn *ent.Run, repo *ent.Repository, claims actionsClaims) (*ent.Run, error) {
	id, err := strconv.ParseInt(claims.RunID, 10, 64)
	if err != nil || id <= 0 || a.cfg.GitHub == nil || repo.Edges.Installation == nil {
		return rn, nil
	}
	inst, err := a.cfg.GitHub.InstallationFor(repo.Edges.Installation.GithubID, scopeActionsRead)
	if err != nil {
		return nil, fmt.Errorf("installation: %w", err)
	}
	wr, _, err := inst.REST.Actions.GetWorkflowRunByID(ctx, repo.Owner, repo.Name, id)
	if err != nil {
		return nil, fmt.Errorf("get Actions run %d: %w", id, err)
	}
	m := runNameOf.FindStringSubmatch(wr.GetDisplayTitle())
	switch {
	case m == nil || !slices.Contains(strings.Split(m[1], ","), strconv.Itoa(rn.ID)):
		return rn, nil
	case !strings.HasPrefix(wr.GetPath(), ".github/workflows/chakshu.yml"), wr.GetEvent() != "workflow_dispatch":
		return rn, nil
	case !strings.EqualFold(wr.GetTriggeringActor().GetLogin(), a.cfg.AppSlug+"[bot]"):
		return rn, nil // dispatched by someone else
	}
	if _, err := a.cfg.DB.Run.Update().Where(run.ID(rn.ID), run.ActionsRunID(0), run.StatusEQ(run.StatusDispatched)).
		SetActionsRunID(id).SetActionsRunURL(wr.GetHTMLURL()).Save(ctx); err != nil {
		return nil, fmt.Errorf("record Actions run %d: %w", id, err)
	}
	return a.cfg.DB.Run.Query().Where(run.ID(rn.ID)).WithReviewer().
		WithRepository(func(q *ent.RepositoryQuery) { q.WithInstallation() }).Only(ctx)
}
