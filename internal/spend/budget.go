// Package spend holds the limits checked before a run starts (issue 22
// item 8): daily and monthly spend budgets per installation and per
// repository, read from the cost rollup, and the cap on runs of one
// installation in flight at once.
package spend

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// Period is a budget's period: a UTC day or a UTC calendar month.
type Period string

// The periods.
const (
	Daily   Period = "daily"
	Monthly Period = "monthly"
)

// Start is the first instant of the period holding now (UTC).
func (p Period) Start(now time.Time) time.Time {
	now = now.UTC()
	if p == Monthly {
		return time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
}

// ResetsAt is when the period after now's starts: the budget is whole again.
func (p Period) ResetsAt(now time.Time) time.Time {
	s := p.Start(now)
	if p == Monthly {
		return s.AddDate(0, 1, 0)
	}
	return s.AddDate(0, 0, 1)
}

// grain is the cost rollup's grain of the period, per repository over all
// reviewers (internal/store/rollup.go).
func (p Period) grain() string {
	if p == Monthly {
		return "m" + store.RollupLevel(true, false)
	}
	return "d" + store.RollupLevel(true, false)
}

// Spend is what was spent in the current day and month.
type Spend struct{ Today, Month float64 }

// Scope says whose runs a spend covers: one repository, or every repository
// of an installation.
type Scope struct {
	InstallationID int
	RepositoryID   int // 0: the whole installation
}

// Spent reads the cost of the scope's runs created today and this month
// (UTC) from the cost rollup: one indexed read per period, whatever the
// number of runs.
func Spent(ctx context.Context, db *store.DB, s Scope, now time.Time) (Spend, error) {
	return spent(ctx, db, db.SQL, s, now)
}

// querier is a pool or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func spent(ctx context.Context, db *store.DB, q querier, s Scope, now time.Time) (Spend, error) {
	var out Spend
	for _, p := range []struct {
		period Period
		dst    *float64
	}{{Daily, &out.Today}, {Monthly, &out.Month}} {
		sq := `SELECT COALESCE(SUM(cost_usd), 0) FROM cost_rollups WHERE grain = ? AND day = ? AND `
		args := []any{p.period.grain(), p.period.Start(now).Format(time.DateOnly)}
		if s.RepositoryID != 0 {
			sq += `repository_id = ?`
			args = append(args, s.RepositoryID)
		} else {
			sq += `repository_id IN (SELECT id FROM ` + repository.Table + ` WHERE ` + repository.InstallationColumn + ` = ?)`
			args = append(args, s.InstallationID)
		}
		var v sql.NullFloat64
		if err := q.QueryRowContext(ctx, db.Rebind(sq), args...).Scan(&v); err != nil {
			return Spend{}, fmt.Errorf("read %s spend: %w", p.period, err)
		}
		*p.dst = v.Float64
	}
	return out, nil
}

// Exceeded is a budget that is spent: a run under it may not start.
type Exceeded struct {
	Period Period
	// What names the budget's owner: "installation acme", "repository acme/api".
	What    string
	Limit   float64
	Spent   float64
	ResetAt time.Time
}

// Reason is the check run's safe sentence: which budget, what was spent,
// when it resets.
func (e *Exceeded) Reason() string {
	when := "today"
	if e.Period == Monthly {
		when = "this month"
	}
	return fmt.Sprintf("The %s spend budget of $%.2f for %s is used up ($%.2f spent %s), so this review was not started. "+
		"The budget resets at %s UTC; an admin can raise it on Chakshu's Costs page. Ask for the review again then.",
		e.Period, e.Limit, e.What, e.Spent, when, e.ResetAt.UTC().Format("2006-01-02 15:04"))
}

// Check returns the first budget of repo or its installation that is spent
// at now (spend ≥ budget; a budget of 0 is none), or nil when the run may
// start. The repository's budgets are checked first, then the installation's.
func Check(ctx context.Context, db *store.DB, inst *ent.Installation, repo *ent.Repository, now time.Time) (*Exceeded, error) {
	return check(ctx, db, db.SQL, owners{
		inst: inst.ID, instName: inst.AccountLogin, instDaily: inst.BudgetDailyUsd, instMonthly: inst.BudgetMonthlyUsd,
		repo: repo.ID, repoName: repo.FullName, repoDaily: repo.BudgetDailyUsd, repoMonthly: repo.BudgetMonthlyUsd,
	}, now)
}

// owners are a run's repository and installation with their budgets.
type owners struct {
	inst, repo                                     int
	instName, repoName                             string
	instDaily, instMonthly, repoDaily, repoMonthly float64
}

func check(ctx context.Context, db *store.DB, q querier, o owners, now time.Time) (*Exceeded, error) {
	type owner struct {
		what           string
		scope          Scope
		daily, monthly float64
	}
	for _, o := range []owner{
		{"repository " + o.repoName, Scope{InstallationID: o.inst, RepositoryID: o.repo}, o.repoDaily, o.repoMonthly},
		{"installation " + o.instName, Scope{InstallationID: o.inst}, o.instDaily, o.instMonthly},
	} {
		if o.daily <= 0 && o.monthly <= 0 {
			continue
		}
		s, err := spent(ctx, db, q, o.scope, now)
		if err != nil {
			return nil, err
		}
		if o.daily > 0 && s.Today >= o.daily {
			return &Exceeded{Period: Daily, What: o.what, Limit: o.daily, Spent: s.Today, ResetAt: Daily.ResetsAt(now)}, nil
		}
		if o.monthly > 0 && s.Month >= o.monthly {
			return &Exceeded{Period: Monthly, What: o.what, Limit: o.monthly, Spent: s.Month, ResetAt: Monthly.ResetsAt(now)}, nil
		}
	}
	return nil, nil
}

// Reserve adds amount to run runID's cost when the run may send a model
// request: under its own cap (cost_usd < max_cost_usd, or no cap) and no
// spend budget of its repository or installation used up. The cost rollup
// the budgets read counts the reservation (its triggers run in the same
// transaction), and the checks and the addition are one transaction holding
// the installation's row (FOR UPDATE on PostgreSQL; on SQLite the single
// write connection serialises it), so two runs of one installation cannot
// both pass a budget with room for one request. It reports whether the
// amount was added and, when a budget refused it, which.
func Reserve(ctx context.Context, db *store.DB, runID int, amount float64, now time.Time) (bool, *Exceeded, error) {
	var (
		added bool
		ex    *Exceeded
	)
	err := store.Retry(ctx, func() error {
		added, ex = false, nil
		tx, err := db.W.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
		lock := ""
		if db.Postgres() {
			lock = " FOR UPDATE OF i"
		}
		var o owners
		err = tx.QueryRowContext(ctx, db.Rebind(`SELECT i.id, i.account_login, i.budget_daily_usd, i.budget_monthly_usd,
			r.id, r.full_name, r.budget_daily_usd, r.budget_monthly_usd
			FROM runs x JOIN `+repository.Table+` r ON r.id = x.repository_runs JOIN installations i ON i.id = r.`+repository.InstallationColumn+`
			WHERE x.id = ?`+lock), runID).
			Scan(&o.inst, &o.instName, &o.instDaily, &o.instMonthly, &o.repo, &o.repoName, &o.repoDaily, &o.repoMonthly)
		if err != nil {
			return fmt.Errorf("lock the run's installation: %w", err)
		}
		if ex, err = check(ctx, db, tx, o, now); err != nil || ex != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, db.Rebind(`UPDATE runs SET cost_usd = cost_usd + ?
			WHERE id = ? AND (max_cost_usd <= 0 OR cost_usd < max_cost_usd)`), amount, runID)
		if err != nil {
			return fmt.Errorf("add the reservation: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		added = n > 0
		return nil
	})
	return added, ex, err
}

// InFlight counts the installation's runs that hold a slot of the
// concurrency cap: dispatched, running or publishing, and queued runs another
// worker has claimed and is dispatching now (so two workers dispatching at
// once each see the other's run; the cap errs on the side of waiting).
// except is the run asking, left out.
func InFlight(ctx context.Context, db *store.DB, installationID, except int) (int, error) {
	q := db.Rebind(`SELECT COUNT(*) FROM runs WHERE id <> ?
		AND repository_runs IN (SELECT id FROM ` + repository.Table + ` WHERE ` + repository.InstallationColumn + ` = ?)
		AND (status IN ('dispatched', 'running', 'publishing') OR (status = 'queued' AND lease_owner <> ''))`)
	var n int
	if err := db.SQL.QueryRowContext(ctx, q, except, installationID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count runs in flight: %w", err)
	}
	return n, nil
}
