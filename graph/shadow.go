package graph

import (
	"slices"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/predicate"
	"github.com/chakshu-dev/chakshu/ent/run"
)

// reviewRuns leaves shadow runs (backtests' replays, which post nothing) out
// of the runs list unless the filter asks about them: `where: {shadow: true}`
// lists them apart, and a filter on a backtest, its side or the backtest
// trigger reaches them too. Dashboards counting reviews then count reviews.
func reviewRuns(where *ent.RunWhereInput) []predicate.Run {
	if asksForShadow(where) {
		return nil
	}
	return []predicate.Run{run.Shadow(false)}
}

// asksForShadow reports whether a filter, or any filter inside it, names
// shadow runs.
func asksForShadow(w *ent.RunWhereInput) bool {
	if w == nil {
		return false
	}
	if w.Shadow != nil || w.ShadowNEQ != nil || w.BacktestID != nil || len(w.BacktestIDIn) > 0 ||
		w.BacktestIDGT != nil || w.BacktestIDGTE != nil || w.BacktestSide != nil || len(w.BacktestSideIn) > 0 ||
		(w.Trigger != nil && *w.Trigger == run.TriggerBacktest) || slices.Contains(w.TriggerIn, run.TriggerBacktest) {
		return true
	}
	if asksForShadow(w.Not) {
		return true
	}
	return slices.ContainsFunc(append(slices.Clone(w.Or), w.And...), asksForShadow)
}
