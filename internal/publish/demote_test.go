package publish_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/runstats"

	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// seedOutcomes stores an earlier succeeded run of the env's reviewer,
// created at, whose posted findings of category got these outcomes.
func (e *env) seedOutcomes(at time.Time, category string, outcomes ...finding.Outcome) {
	e.t.Helper()
	r := e.db.Run.Create().SetRepository(e.repo).SetReviewer(e.reviewer).SetTrigger(run.TriggerComment).
		SetPrNumber(e.pr + 100).SetHeadSha("0000000000000000000000000000000000000000").SetBaseRef("main").
		SetStatus(run.StatusSucceeded).SetCreatedAt(at).SaveX(e.ctx)
	for i, o := range outcomes {
		e.db.Finding.Create().SetRun(r).SetHiddenID(fmt.Sprintf("seed-%d-%s-%d", r.ID, category, i)).SetPath(calc).
			SetSeverity("minor").SetCategory(category).SetTitle("seed").SetPosted(true).SetOutcome(o).SaveX(e.ctx)
	}
}

func outcomesOf(accepted, dismissed int) []finding.Outcome {
	var out []finding.Outcome
	for range accepted {
		out = append(out, finding.OutcomeFixed)
	}
	for range dismissed {
		out = append(out, finding.OutcomeDismissed)
	}
	return out
}

// demote_below_acceptance raises the floor of a category people keep
// dismissing (acceptance under the threshold over at least
// DemoteMinDecided decided findings in 90 days) one step, and the check run
// says which and why; without the opt-in, or with too few decided findings,
// or with findings older than 90 days, nothing is demoted.
func TestDemoteBelowAcceptance(t *testing.T) {
	cases := []struct {
		name    string
		demote  float64
		seed    func(e *env)
		demoted bool
	}{
		{"opted in, 1 of 5 accepted", 0.3, func(e *env) { e.seedOutcomes(time.Now().Add(-24*time.Hour), "style", outcomesOf(1, 4)...) }, true},
		{"not opted in", 0, func(e *env) { e.seedOutcomes(time.Now().Add(-24*time.Hour), "style", outcomesOf(1, 4)...) }, false},
		{"4 decided is too few", 0.3, func(e *env) { e.seedOutcomes(time.Now().Add(-24*time.Hour), "style", outcomesOf(0, 4)...) }, false},
		{"at the threshold is not below it", 0.4, func(e *env) { e.seedOutcomes(time.Now().Add(-24*time.Hour), "style", outcomesOf(2, 3)...) }, false},
		{"open findings are not decided", 0.3, func(e *env) {
			e.seedOutcomes(time.Now().Add(-24*time.Hour), "style", append(outcomesOf(0, 4), finding.OutcomeOpen)...)
		}, false},
		{"older than 90 days does not count", 0.3, func(e *env) {
			e.seedOutcomes(time.Now().Add(-runstats.AcceptanceWindow-24*time.Hour), "style", outcomesOf(0, 5)...)
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				cfg := rules(findings.Nit, 20, "never")
				cfg.DemoteBelowAcceptance = c.demote
				e := newEnv(t, db, cfg, nil)
				c.seed(e)
				// Other categories' dismissals never demote style, and style's never demote bug.
				e.seedOutcomes(time.Now().Add(-time.Hour), "bug", outcomesOf(5, 0)...)
				styleNit := f(calc, 10, findings.Nit, "Style nit")
				styleNit.Category = "style"
				styleMinor := f(calc, 21, findings.Minor, "Style minor")
				styleMinor.Category = "style"
				r := e.newRun(findings.Result{Summary: "s", Findings: []findings.Finding{styleNit, styleMinor, f(calc, 22, findings.Nit, "Bug nit")}})
				e.publish(r.ID)
				got := e.findingsOf(r.ID)
				if !got["Style minor"].Posted || !got["Bug nit"].Posted {
					t.Errorf("style minor posted=%v, bug nit posted=%v; want both posted", got["Style minor"].Posted, got["Bug nit"].Posted)
				}
				nit := got["Style nit"]
				if c.demoted != (!nit.Posted && nit.DroppedReason == publish.DropBelowMin) {
					t.Errorf("style nit posted=%v dropped=%q, want demoted=%v", nit.Posted, nit.DroppedReason, c.demoted)
				}
				summary := e.checkRun(r.CheckRunID).Summary
				says := strings.Contains(summary, "- style: 20% of 5 decided findings accepted in 90 days; only minor and above posted")
				if c.demoted != says || c.demoted != strings.Contains(summary, "demote_below_acceptance: under 30% accepted") {
					t.Errorf("check summary (demoted=%v):\n%s", c.demoted, summary)
				}
			})
		})
	}
}
