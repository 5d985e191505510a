package runnerapi

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/runevent"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestJobCarriesSamples: a review's job carries reviewer.yaml's samples and
// agree; the runner's figures of the passes are kept on the run (checked's
// "samples", GraphQL Run.checked) and told in its timeline.
func TestJobCarriesSamples(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		cfg := reviewerconfig.Defaults()
		cfg.Connectors, cfg.Samples, cfg.Agree = []string{"github"}, 3, 2
		w.rv = w.rv.Update().SetConfig(&cfg).SaveX(ctx)

		rn := w.dispatch(run.KindReview)
		st, job, e := w.fetchJob(rn, w.token(rn))
		if st != 200 {
			t.Fatalf("job: %d %+v", st, e)
		}
		if job.Samples != 3 || job.Agree != 2 || job.MaxCostUSD != 2 {
			t.Fatalf("job samples %d agree %d cap %v; want 3, 2 and the one cap of $2", job.Samples, job.Agree, job.MaxCostUSD)
		}
		// A reviewer without the keys (stored before them) runs one pass.
		other := w.dispatchFor(w.perf, run.KindReview)
		if st, job, _ := w.fetchJob(other, w.token(other)); st != 200 || job.Samples != 1 || job.Agree != 1 {
			t.Fatalf("perf job: %d %+v", st, job)
		}

		report := `{"result":` + validResult + `,"stats":{"turns":12,"tool_calls":9,"duration_ms":900,"samples":` +
			`{"passes":3,"ran":3,"agree":2,"pass_findings":[2,1,3],"distinct":4,"kept":1,"dropped":3}}}`
		var ack runnerproto.ReportAck
		if st := w.do(runPath(runnerproto.PathResult, rn.ID), report, bearer(job.RunToken), &ack); st != 200 || ack.Status != "accepted" {
			t.Fatalf("result: %d %+v", st, ack)
		}
		got := db.Run.GetX(ctx, rn.ID)
		want := &findings.Samples{Passes: 3, Ran: 3, Agree: 2, PassFindings: []int{2, 1, 3}, Distinct: 4, Kept: 1, Dropped: 3}
		if got.Result == nil || got.Result.Checked == nil {
			t.Fatalf("stored result %+v", got.Result)
		}
		if d := cmp.Diff(want, got.Result.Checked.Samples); d != "" {
			t.Errorf("stored samples (-want +got):\n%s", d)
		}
		ev := db.RunEvent.Query().Where(runevent.HasRunWith(run.ID(rn.ID)), runevent.ToStatus(string(run.StatusPublishing))).OnlyX(ctx)
		if !strings.Contains(ev.Message, "3 of 3 passes ran; kept the findings at least 2 of them reported (1), dropped those fewer reported (3).") {
			t.Errorf("timeline: %q", ev.Message)
		}
	})
}

// Figures that do not add up are not stored (the result still is).
func TestSamplesRecordRefusesNonsense(t *testing.T) {
	good := findings.Samples{Passes: 3, Ran: 2, Agree: 2, PassFindings: []int{1, 2}, Distinct: 2, Kept: 1, Dropped: 1}
	if samplesRecord(&good) == nil {
		t.Fatal("good figures refused")
	}
	atLimit := good
	atLimit.Passes, atLimit.Ran, atLimit.PassFindings = maxSamplePasses, maxSamplePasses, make([]int, maxSamplePasses)
	atLimit.Distinct, atLimit.Kept, atLimit.Dropped = 0, 0, 0
	if samplesRecord(&atLimit) == nil {
		t.Fatal("figures at the limit refused")
	}
	unmet := good
	unmet.AgreeAsked = 3
	if got := samplesRecord(&unmet); got == nil || got.AgreeAsked != 3 {
		t.Fatalf("an agree that could not be met: %+v", got)
	}
	withLenses := good
	withLenses.Lenses = []string{"security", "logic"}
	if got := samplesRecord(&withLenses); got == nil || !slices.Equal(got.Lenses, withLenses.Lenses) {
		t.Fatalf("the passes' lenses: %+v", got)
	}
	for name, change := range map[string]func(*findings.Samples){
		"one pass":             func(s *findings.Samples) { s.Passes, s.Ran, s.Agree, s.PassFindings = 1, 1, 1, []int{1} },
		"passes past limit":    func(s *findings.Samples) { s.Passes = maxSamplePasses + 1 },
		"ran past passes":      func(s *findings.Samples) { s.Ran, s.PassFindings = 4, []int{1, 1, 1, 1} },
		"none ran":             func(s *findings.Samples) { s.Ran, s.PassFindings = 0, nil },
		"agree past ran":       func(s *findings.Samples) { s.Agree = 3 },
		"agree zero":           func(s *findings.Samples) { s.Agree = 0 },
		"per pass count wrong": func(s *findings.Samples) { s.PassFindings = []int{1} },
		"negative per pass":    func(s *findings.Samples) { s.PassFindings = []int{1, -2} },
		"sum wrong":            func(s *findings.Samples) { s.Dropped = 2 },
		"negative kept":        func(s *findings.Samples) { s.Kept, s.Dropped = -1, 3 },
		"asked agree was met":  func(s *findings.Samples) { s.AgreeAsked = 2 },
		"asked past passes":    func(s *findings.Samples) { s.AgreeAsked = 4 },
		"asked, agree not ran": func(s *findings.Samples) { s.Ran, s.Agree, s.PassFindings, s.AgreeAsked = 2, 1, []int{1, 2}, 3 },
		"lenses not per pass":  func(s *findings.Samples) { s.Lenses = []string{"security"} },
		"empty lens":           func(s *findings.Samples) { s.Lenses = []string{"security", ""} },
		"lens past limit": func(s *findings.Samples) {
			s.Lenses = []string{"security", strings.Repeat("x", reviewerconfig.MaxLensBytes+1)}
		},
	} {
		s := good
		s.PassFindings = append([]int(nil), good.PassFindings...)
		change(&s)
		if samplesRecord(&s) != nil {
			t.Errorf("%s: stored %+v", name, s)
		}
	}
	if samplesRecord(nil) != nil {
		t.Error("no figures stored something")
	}
}

// The verifier's figures are kept on the run (checked's "verify") and told
// in its timeline, apart from the passes'.
func TestResultKeepsVerification(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		rn := w.dispatch(run.KindReview)
		st, job, e := w.fetchJob(rn, w.token(rn))
		if st != 200 {
			t.Fatalf("job: %d %+v", st, e)
		}
		if job.Verify == nil || job.Verify.MinConfidence != reviewerconfig.DefaultVerifyMinConfidence {
			t.Fatalf("job verify %+v: on by default at %d", job.Verify, reviewerconfig.DefaultVerifyMinConfidence)
		}
		report := `{"result":` + validResult + `,"stats":{"turns":5,"tool_calls":3,"duration_ms":900,"verify":` +
			`{"candidates":4,"confirmed":1,"refuted":3,"unverified":0,"min_confidence":8,"calls":2,"turns":5,"cost_usd":0.05}}}`
		var ack runnerproto.ReportAck
		if st := w.do(runPath(runnerproto.PathResult, rn.ID), report, bearer(job.RunToken), &ack); st != 200 || ack.Status != "accepted" {
			t.Fatalf("result: %d %+v", st, ack)
		}
		got := db.Run.GetX(ctx, rn.ID)
		want := &findings.Verification{Candidates: 4, Confirmed: 1, Refuted: 3, MinConfidence: 8, Calls: 2, Turns: 5, CostUSD: 0.05}
		if got.Result == nil || got.Result.Checked == nil {
			t.Fatalf("stored result %+v", got.Result)
		}
		if d := cmp.Diff(want, got.Result.Checked.Verify); d != "" {
			t.Errorf("stored verification (-want +got):\n%s", d)
		}
		ev := db.RunEvent.Query().Where(runevent.HasRunWith(run.ID(rn.ID)), runevent.ToStatus(string(run.StatusPublishing))).OnlyX(ctx)
		if !strings.Contains(ev.Message, "Verification: 3 of 4 candidates refuted, 1 confirmed") {
			t.Errorf("timeline: %q", ev.Message)
		}
	})
}

func TestVerifyRecordRefusesNonsense(t *testing.T) {
	good := findings.Verification{Candidates: 3, Confirmed: 1, Refuted: 1, Unverified: 1, MinConfidence: 8, Calls: 1, Turns: 2, CostUSD: 0.01}
	if verifyRecord(&good) == nil {
		t.Fatal("good figures refused")
	}
	for name, bad := range map[string]func(v *findings.Verification){
		"counts do not add up": func(v *findings.Verification) { v.Refuted = 2 },
		"negative":             func(v *findings.Verification) { v.Confirmed, v.Unverified = -1, 3 },
		"confidence past 10":   func(v *findings.Verification) { v.MinConfidence = 11 },
		"negative cost":        func(v *findings.Verification) { v.CostUSD = -1 },
	} {
		v := good
		bad(&v)
		if verifyRecord(&v) != nil {
			t.Errorf("%s: stored", name)
		}
	}
	if verifyRecord(nil) != nil {
		t.Error("nil stored")
	}
}
