package sandbox

import (
	"context"
	"fmt"
	"math/rand"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
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
	for _, name := range []string{"security", "correctness", "style"} {
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
	now := time.Now()
	const batch = 500
	for done := 0; done < n; done += batch {
		var creates []*ent.RunCreate
		for i := done; i < n && i < done+batch; i++ {
			at := now.Add(-time.Duration(rng.Int63n(int64(28 * 24 * time.Hour))))
			rv := rng.Intn(len(reviewers))
			cost := []float64{0.42, 0.61, 0.09}[rv] * (0.5 + rng.Float64())
			dur := time.Duration(40+rng.Intn(300)) * time.Second
			status := run.StatusSucceeded
			reason := ""
			if rng.Intn(20) == 0 {
				status, reason = run.StatusFailed, "The review did not report back within 45 minutes of starting, so Chakshu stopped waiting. Ask again to retry."
			}
			blk, maj, min, nit := rng.Intn(2)*rng.Intn(2), rng.Intn(3), rng.Intn(4), rng.Intn(5)
			in, out := int64(20000+rng.Intn(80000)), int64(1000+rng.Intn(6000))
			creates = append(creates, db.Run.Create().
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
		if err := db.Run.CreateBulk(creates...).Exec(ctx); err != nil {
			return fmt.Errorf("seed history: runs: %w", err)
		}
	}
	return nil
}
