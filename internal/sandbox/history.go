package sandbox

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/reviewerspec"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// SeedHistory gives the portal weeks of past runs to show (so Costs has a
// shape on first start): n finished runs spread over the last 28 days across
// the sandbox repositories and reviewers. It upserts the installation,
// repositories and reviewers it needs by their GitHub ids and names, exactly
// as the installation webhook and the reviewer sync will, and does nothing
// when history already exists.
func (sb *Sandbox) SeedHistory(ctx context.Context, db *store.DB, n int) error {
	if n <= 0 {
		return nil
	}
	if c, err := db.Run.Query().Where(run.TriggerEQ(run.TriggerAuto), run.PrNumberGTE(1000)).Count(ctx); err != nil || c > 0 {
		return err
	}
	instID, err := db.Installation.Create().SetGithubID(sb.InstID).SetAccountLogin(Org).
		OnConflictColumns(installation.FieldGithubID).Ignore().ID(ctx)
	if err != nil {
		return fmt.Errorf("seed history: installation: %w", err)
	}
	var repos []int
	for _, name := range []string{"payments-api", "web-dashboard", "data-pipeline"} {
		full := Org + "/" + name
		id, err := db.Repository.Create().SetGithubID(sb.Sim.RepoID(full)).SetOwner(Org).SetName(name).
			SetFullName(full).SetDefaultBranch("main").SetPrivate(true).SetInstallationID(instID).
			OnConflictColumns(repository.FieldGithubID).Ignore().ID(ctx)
		if err != nil {
			return fmt.Errorf("seed history: repository: %w", err)
		}
		repos = append(repos, id)
	}
	var reviewers []int
	reviewerNames := []string{"security", "correctness", "style"}
	for _, name := range reviewerNames {
		id, err := db.Reviewer.Query().Where(reviewer.Name(name), reviewer.HasInstallationWith(installation.ID(instID))).OnlyID(ctx)
		if ent.IsNotFound(err) {
			var r *ent.Reviewer
			if r, err = db.Reviewer.Create().SetName(name).SetInstallationID(instID).Save(ctx); err == nil {
				id = r.ID
			}
		}
		if err != nil {
			return fmt.Errorf("seed history: reviewer: %w", err)
		}
		reviewers = append(reviewers, id)
	}
	rng := rand.New(rand.NewSource(42))
	figRng := rand.New(rand.NewSource(44)) // its own: the runs' other figures stay as they were
	now := time.Now()
	// Each bulk insert binds every column of every row: stay under SQLite's
	// 32,766 variables a statement (500 runs stopped fitting at 77 columns).
	batch := sqliteMaxVars / len(run.Columns)
	for done := 0; done < n; done += batch {
		var creates []*ent.RunCreate
		var ranBy []string // the reviewer of each run
		for i := done; i < n && i < done+batch; i++ {
			at := now.Add(-time.Duration(rng.Int63n(int64(28 * 24 * time.Hour))))
			rv := rng.Intn(len(reviewers))
			ranBy = append(ranBy, reviewerNames[rv])
			cost := []float64{0.42, 0.61, 0.09}[rv] * (0.5 + rng.Float64())
			dur := time.Duration(40+rng.Intn(300)) * time.Second
			if at.Add(dur).After(now) {
				at = now.Add(-dur) // finished by now: a backtest takes the last finished reviews
			}
			status := run.StatusSucceeded
			reason := ""
			if rng.Intn(20) == 0 {
				status, reason = run.StatusFailed, "The review did not report back within 45 minutes of starting, so Chakshu stopped waiting. Ask again to retry."
			}
			blk, maj, min, nit := rng.Intn(2)*rng.Intn(2), rng.Intn(3), rng.Intn(4), rng.Intn(5)
			in, out := int64(20000+rng.Intn(80000)), int64(1000+rng.Intn(6000))
			create := db.Run.Create()
			if status == run.StatusSucceeded {
				create.SetResult(&findings.Stored{Checked: seedMethod(figRng, blk+maj+min+nit, cost),
					Review: &findings.Result{Findings: []findings.Finding{}, Checked: findings.Checked{Files: []string{}, Skills: []string{}}}})
			}
			creates = append(creates, create.
				SetRepositoryID(repos[rng.Intn(len(repos))]).SetReviewerID(reviewers[rv]).
				SetTrigger(run.TriggerAuto).SetStatus(status).SetPrNumber(1000+rng.Intn(400)).
				SetPrTitle(fmt.Sprintf("Past change #%d", i+1)).SetHeadSha(fmt.Sprintf("%040x", rng.Uint64())).
				SetCreatedAt(at).SetDispatchedAt(at.Add(2*time.Second)).SetStartedAt(at.Add(20*time.Second)).
				SetFinishedAt(at.Add(dur)).SetDurationMs(dur.Milliseconds()).SetCostUsd(cost).
				SetInputTokens(in).SetOutputTokens(out).SetTurns(4+rng.Intn(20)).
				SetFindingsBlocker(blk).SetFindingsMajor(maj).SetFindingsMinor(min).SetFindingsNit(nit).
				SetFindingsPosted(blk+maj+min+nit).SetFailureReason(reason).SetCheckCompleted(true).
				SetSummary("Seeded history: a past review in the sandbox."))
		}
		saved, err := db.Run.CreateBulk(creates...).Save(ctx)
		if err != nil {
			return fmt.Errorf("seed history: runs: %w", err)
		}
		if err := seedOutcomes(ctx, db, saved, ranBy, now); err != nil {
			return err
		}
	}
	return nil
}

// seedPasses and seedAgree are the sandbox reviewers' samples and agree
// (seed/reviewers/*/reviewer.yaml; each verifies too).
const seedPasses, seedAgree = 3, 2

// seedMethod is what a seeded review run of seedPasses passes with
// verification looked at and did, for the Run page's review-method panel:
// usually all passes ran, sometimes one or two did not (then agree is
// lowered to those that ran, and said); agreement dropped some findings,
// the verifier refuted some of those kept, and posted (the run's
// findings) are the ones it confirmed. Its cost is a part of the run's.
func seedMethod(rng *rand.Rand, posted int, runCost float64) *findings.Coverage {
	ran := seedPasses
	switch x := rng.Intn(20); {
	case x == 0:
		ran = 1
	case x < 3:
		ran = 2
	}
	agree := min(seedAgree, ran)
	refuted := rng.Intn(3)
	candidates := posted + refuted
	dropped := rng.Intn(5)
	s := &findings.Samples{Passes: seedPasses, Ran: ran, Agree: agree, Distinct: candidates + dropped, Kept: candidates, Dropped: dropped}
	if agree < seedAgree {
		s.AgreeAsked = seedAgree
	}
	if ran == 1 {
		s.Dropped, s.Distinct = 0, candidates // one pass: nothing to vote out
	}
	for p := 0; p < ran; p++ {
		// each pass reports what was kept (one may miss a finding the
		// others agreed on when fewer than all must agree) and some of
		// what was dropped
		miss := 0
		if agree < ran && candidates > 0 {
			miss = rng.Intn(2)
		}
		s.PassFindings = append(s.PassFindings, candidates-miss+rng.Intn(s.Dropped+1))
		s.Lenses = append(s.Lenses, reviewerspec.DefaultLenses[p%len(reviewerspec.DefaultLenses)])
	}
	if ran == 1 {
		s.PassFindings[0] = candidates
	}
	v := &findings.Verification{Candidates: candidates, Confirmed: posted, Refuted: refuted,
		MinConfidence: reviewerconfig.DefaultVerifyMinConfidence}
	if candidates > 0 {
		v.Calls = 1 + rng.Intn(candidates) // a conversation a file
		v.Turns = v.Calls * (2 + rng.Intn(3))
		v.CostUSD = math.Round(runCost*(0.08+0.12*rng.Float64())*10000) / 10000
	}
	return &findings.Coverage{Files: []string{}, Skills: []string{}, FilesRead: []string{}, Samples: s, Verify: v}
}

// sqliteMaxVars is SQLite's default cap on the variables of one statement
// (SQLITE_MAX_VARIABLE_NUMBER, https://www.sqlite.org/limits.html), less a margin.
const sqliteMaxVars = 32000

// The seeded findings' categories and how often each reviewer's findings
// are accepted (fixed or acknowledged), so the Quality page tells the
// reviewers apart: security is mostly right, style mostly dismissed.
var (
	seedCategories = map[string][]string{"security": {"security", "secrets"}, "correctness": {"correctness", "error-handling"}, "style": {"style", "naming"}}
	seedAccept     = map[string]float64{"security": 0.72, "correctness": 0.58, "style": 0.28}
)

// seedOutcomes gives each seeded run its posted findings (as many of each
// severity as its counters say) with the outcomes GitHub facts would have
// given them by now: most findings of runs under two days old are still
// open; older ones were fixed, acknowledged, dismissed, left open at merge
// or closed unmerged, each with a reason and a time after the run. Its own
// random source keeps the runs' figures as they were.
func seedOutcomes(ctx context.Context, db *store.DB, runs []*ent.Run, ranBy []string, now time.Time) error {
	rng := rand.New(rand.NewSource(int64(43 + len(runs) + runs[0].ID)))
	var creates []*ent.FindingCreate
	people := []string{"alice", "bob", "carol", "dmitri"}
	for ri, r := range runs {
		name := ranBy[ri]
		cats := seedCategories[name]
		counts := []struct {
			sev finding.Severity
			n   int
		}{{finding.SeverityBlocker, r.FindingsBlocker}, {finding.SeverityMajor, r.FindingsMajor}, {finding.SeverityMinor, r.FindingsMinor}, {finding.SeverityNit, r.FindingsNit}}
		for _, c := range counts {
			for i := 0; i < c.n; i++ {
				line := 10 + rng.Intn(200)
				path := []string{"internal/api/handler.go", "src/billing/charge.ts", "pipeline/load.py", "cmd/server/main.go"}[rng.Intn(4)]
				cat := cats[rng.Intn(len(cats))]
				title := fmt.Sprintf("%s issue at %s:%d", cat, path, line)
				f := db.Finding.Create().SetRunID(r.ID).SetHiddenID(fmt.Sprintf("seed-%d-%s-%d", r.ID, c.sev, i)).
					SetPath(path).SetLine(line).SetSeverity(c.sev).SetCategory(cat).SetTitle(title).
					SetBody("Seeded history: a past finding in the sandbox.").SetPosted(true).SetPlacement(finding.PlacementInline).
					SetCreatedAt(r.CreatedAt).SetUpdatedAt(r.CreatedAt)
				age := now.Sub(r.CreatedAt)
				if age < 48*time.Hour && rng.Intn(10) < 6 {
					creates = append(creates, f)
					continue
				}
				p := seedAccept[name]
				switch c.sev {
				case finding.SeverityBlocker:
					p += 0.15
				case finding.SeverityNit:
					p -= 0.15
				}
				at := r.CreatedAt.Add(time.Duration(1+rng.Intn(40)) * time.Hour)
				if at.After(now) {
					at = now
				}
				who := people[rng.Intn(len(people))]
				var o finding.Outcome
				var why string
				switch x := rng.Float64(); {
				case x < p*0.8:
					o, why = finding.OutcomeFixed, fmt.Sprintf("lines %d-%d changed in %s", line, line+2, r.HeadSha[:7])
				case x < p:
					o, why = finding.OutcomeAcknowledged, fmt.Sprintf("@%s reacted 👍", who)
				case x < p+(1-p)*0.7:
					o, why = finding.OutcomeDismissed, fmt.Sprintf("thread resolved by @%s with no change under it", who)
				case x < p+(1-p)*0.9:
					o, why = finding.OutcomeOpenAtMerge, "pull request merged with the thread open"
				default:
					o, why = finding.OutcomeClosedUnmerged, "pull request closed without merging"
				}
				creates = append(creates, f.SetOutcome(o).SetOutcomeAt(at).SetOutcomeReason(why))
			}
		}
	}
	for len(creates) > 0 {
		n := min(len(creates), sqliteMaxVars/len(finding.Columns))
		if err := db.Finding.CreateBulk(creates[:n]...).Exec(ctx); err != nil {
			return fmt.Errorf("seed history: findings: %w", err)
		}
		creates = creates[n:]
	}
	return nil
}
