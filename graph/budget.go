package graph

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/graph/model"
	"github.com/chakshu-dev/chakshu/internal/audit"
	"github.com/chakshu-dev/chakshu/internal/spend"
)

// maxBudgetUSD bounds a budget (a typo guard, not a policy).
const maxBudgetUSD = 1_000_000

// budgets lists the installations' budgets the viewer administers and the
// budgets of repositories the viewer reads that have one, with spend.
func (h *api) budgets(ctx context.Context) ([]*model.Budget, error) {
	v, err := viewer(ctx)
	if err != nil {
		return nil, err
	}
	c := h.clientFrom(ctx)
	now := time.Now()
	var out []*model.Budget
	insts, err := c.Installation.Query().Order(ent.Asc("account_login")).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("list installations: %w", err)
	}
	for _, in := range insts {
		if !v.AdminOf(in.ID) { // the installation's spend covers repositories others may not read
			continue
		}
		b, err := h.budgetOf(ctx, in, nil, now)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	repos, err := c.Repository.Query().Where(repository.Or(repository.BudgetDailyUsdGT(0), repository.BudgetMonthlyUsdGT(0))).
		WithInstallation().Order(ent.Asc(repository.FieldFullName)).Limit(500).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("list repository budgets: %w", err)
	}
	for _, r := range repos {
		b, err := h.budgetOf(ctx, r.Edges.Installation, r, now)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func (h *api) budgetOf(ctx context.Context, in *ent.Installation, repo *ent.Repository, now time.Time) (*model.Budget, error) {
	b := &model.Budget{Scope: model.BudgetScopeInstallation, InstallationID: in.ID, Name: in.AccountLogin,
		DailyUsd: in.BudgetDailyUsd, MonthlyUsd: in.BudgetMonthlyUsd,
		DailyResetsAt: spend.Daily.ResetsAt(now), MonthlyResetsAt: spend.Monthly.ResetsAt(now)}
	scope := spend.Scope{InstallationID: in.ID}
	if repo != nil {
		id := repo.ID
		b.Scope, b.RepositoryID, b.Name, b.DailyUsd, b.MonthlyUsd = model.BudgetScopeRepository, &id, repo.FullName, repo.BudgetDailyUsd, repo.BudgetMonthlyUsd
		scope.RepositoryID = repo.ID
	}
	s, err := spend.Spent(ctx, h.db, scope, now)
	if err != nil {
		return nil, err
	}
	b.SpentTodayUsd, b.SpentThisMonthUsd = s.Today, s.Month
	return b, nil
}

func validBudget(v float64) bool { return !math.IsNaN(v) && v >= 0 && v <= maxBudgetUSD }

// setBudget sets an installation's or a repository's budgets (admins of the
// installation), in the request's transaction with its audit entry.
func (h *api) setBudget(ctx context.Context, in model.SetBudgetInput) (*model.Budget, error) {
	if err := requireAdminOf(ctx, in.InstallationID); err != nil {
		return nil, err
	}
	v, _ := viewer(ctx)
	if !validBudget(in.DailyUsd) || !validBudget(in.MonthlyUsd) {
		return nil, invalid("a budget is 0 (none) to %d USD", maxBudgetUSD)
	}
	c := h.clientFrom(ctx)
	inst, err := c.Installation.Get(ctx, in.InstallationID)
	if err != nil {
		return nil, err
	}
	e := audit.Entry{Actor: v.User.Login, Action: audit.BudgetSet, InstallationID: inst.ID, Target: "installation " + inst.AccountLogin}
	var repo *ent.Repository
	if in.RepositoryID != nil {
		repo, err = c.Repository.Query().Where(repository.ID(*in.RepositoryID)).WithInstallation().Only(ctx)
		if err != nil {
			return nil, err
		}
		if repo.Edges.Installation == nil || repo.Edges.Installation.ID != inst.ID {
			return nil, invalid("the repository is not in that installation")
		}
		e.Target = "repository " + repo.FullName
		e.Detail = budgetChange(repo.BudgetDailyUsd, repo.BudgetMonthlyUsd, in)
		if repo, err = c.Repository.UpdateOne(repo).SetBudgetDailyUsd(in.DailyUsd).SetBudgetMonthlyUsd(in.MonthlyUsd).Save(ctx); err != nil {
			return nil, fmt.Errorf("set repository budget: %w", err)
		}
	} else {
		e.Detail = budgetChange(inst.BudgetDailyUsd, inst.BudgetMonthlyUsd, in)
		if inst, err = c.Installation.UpdateOne(inst).SetBudgetDailyUsd(in.DailyUsd).SetBudgetMonthlyUsd(in.MonthlyUsd).Save(ctx); err != nil {
			return nil, fmt.Errorf("set installation budget: %w", err)
		}
	}
	if err := audit.Record(ctx, c, e); err != nil {
		return nil, err
	}
	return h.budgetOf(ctx, inst, repo, time.Now())
}

func budgetChange(daily, monthly float64, in model.SetBudgetInput) string {
	return fmt.Sprintf("daily %s → %s, monthly %s → %s", usd(daily), usd(in.DailyUsd), usd(monthly), usd(in.MonthlyUsd))
}

func usd(v float64) string {
	if v == 0 {
		return "none"
	}
	return fmt.Sprintf("$%.2f", v)
}
