package sandbox

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/runstats"

	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// The seeded history gives the Quality page a shape: each past run has as
// many posted findings as its counters say, decided ones carry a reason and
// a time between their run and now, every outcome occurs, and the reviewers
// differ (security is accepted more often than style). Seeding twice adds
// nothing. 600 runs, as the sandbox seeds, take more than one bulk insert.
func TestSeedHistoryOutcomes(t *testing.T) {
	sb, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	sb.InstID = sb.Sim.Install(sb.AppID, Org, nil, nil)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		before := time.Now()
		if err := sb.SeedHistory(ctx, db, 600); err != nil {
			t.Fatal(err)
		}
		runs := db.Run.Query().WithFindings().AllX(ctx)
		if len(runs) != 600 {
			t.Fatalf("%d runs, want 600", len(runs))
		}
		seen := map[finding.Outcome]int{}
		ranCount := map[int]int{} // passes that ran → runs
		for _, r := range runs {
			if want := r.FindingsBlocker + r.FindingsMajor + r.FindingsMinor + r.FindingsNit; len(r.Edges.Findings) != want {
				t.Fatalf("run %d: %d findings, its counters say %d", r.ID, len(r.Edges.Findings), want)
			}
			if ran := seededMethodOK(t, r.ID, r.Status, r.Result, len(r.Edges.Findings)); ran > 0 {
				ranCount[ran]++
			}
			for _, f := range r.Edges.Findings {
				seen[f.Outcome]++
				if !f.Posted {
					t.Errorf("finding %d not posted", f.ID)
				}
				decided := f.Outcome != finding.OutcomeOpen
				if decided != (f.OutcomeAt != nil) || decided != (f.OutcomeReason != "") {
					t.Fatalf("finding %d: outcome %s, at %v, reason %q", f.ID, f.Outcome, f.OutcomeAt, f.OutcomeReason)
				}
				if decided && (f.OutcomeAt.Before(r.CreatedAt) || f.OutcomeAt.After(time.Now())) {
					t.Errorf("finding %d decided at %v, its run was created at %v (seeded at %v)", f.ID, f.OutcomeAt, r.CreatedAt, before)
				}
			}
		}
		if ranCount[3] == 0 || ranCount[2]+ranCount[1] == 0 {
			t.Errorf("passes that ran per run %v: want runs where all ran and runs where some did not", ranCount)
		}
		for _, o := range []finding.Outcome{finding.OutcomeOpen, finding.OutcomeFixed, finding.OutcomeAcknowledged, finding.OutcomeDismissed, finding.OutcomeOpenAtMerge, finding.OutcomeClosedUnmerged} {
			if seen[o] == 0 {
				t.Errorf("no %s finding seeded (%v)", o, seen)
			}
		}
		rep, err := runstats.AggregateQuality(ctx, db, runstats.RunSet{From: before.Add(-29 * 24 * time.Hour), To: time.Now()}, runstats.QualityByReviewer, true)
		if err != nil {
			t.Fatal(err)
		}
		rate := map[string]float64{}
		for id, c := range rep.Groups {
			name := db.Reviewer.GetX(ctx, atoi(t, id)).Name
			rate[name] = float64(c.Accepted()) / float64(c.Decided())
		}
		if !(rate["security"] > rate["correctness"] && rate["correctness"] > rate["style"]) {
			t.Errorf("acceptance rates %v: want security > correctness > style", rate)
		}
		if err := sb.SeedHistory(ctx, db, 600); err != nil {
			t.Fatal(err)
		}
		if n := db.Finding.Query().CountX(ctx); n != sum(seen) {
			t.Errorf("seeding again: %d findings, want %d", n, sum(seen))
		}
	})
}

// seededMethodOK checks a seeded run's review-method figures (its stored
// result's samples and verify) add up as the runner API requires of a runner's, and
// that the verifier confirmed the run's posted findings; a failed run has
// none. It returns the passes that ran (0 for none).
func seededMethodOK(t *testing.T, id int, status run.Status, st *findings.Stored, posted int) int {
	t.Helper()
	var cov *findings.Coverage
	if st != nil {
		cov = st.Checked
	}
	if status != run.StatusSucceeded {
		if cov != nil {
			t.Errorf("run %d (%s) has figures %+v", id, status, cov)
		}
		return 0
	}
	if cov == nil || cov.Samples == nil || cov.Verify == nil {
		t.Fatalf("run %d: no review-method figures: %+v", id, cov)
	}
	s, v := cov.Samples, cov.Verify
	if s.Passes != 3 || s.Ran < 1 || s.Ran > s.Passes || s.Agree < 1 || s.Agree > s.Ran ||
		len(s.PassFindings) != s.Ran || len(s.Lenses) != s.Ran || s.Kept+s.Dropped != s.Distinct ||
		(s.AgreeAsked == 0) != (s.Agree == 2) || (s.AgreeAsked != 0 && s.AgreeAsked <= s.Ran) {
		t.Fatalf("run %d: samples do not add up: %+v", id, s)
	}
	if v.Candidates != s.Kept || v.Confirmed != posted || v.Confirmed+v.Refuted+v.Unverified != v.Candidates ||
		(v.Candidates > 0) != (v.Calls > 0) || v.Turns < v.Calls || v.CostUSD < 0 {
		t.Fatalf("run %d (%d posted): verify does not add up: %+v, samples %+v", id, posted, v, s)
	}
	return s.Ran
}

func sum(m map[finding.Outcome]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
