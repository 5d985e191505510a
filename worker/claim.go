package worker

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/predicate"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/queue"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// NewID returns a worker id unique to this process.
func NewID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d-%x", host, os.Getpid(), time.Now().UnixNano()&0xffffff)
}

// HeartbeatLeases refreshes every lease a worker holds (runs and webhook
// events); it is the Config.Heartbeaters entry of a worker process.
func HeartbeatLeases(db *store.DB) func(ctx context.Context, owner string, now time.Time) error {
	return func(ctx context.Context, owner string, now time.Time) error {
		return queue.Heartbeat(ctx, db, owner, now)
	}
}

// MaxShared caps the runs one workflow dispatch starts together: their ids
// travel in the run_ids input (at most 10 ids, under 200 characters, far
// inside GitHub's 25 inputs and 65,535 characters: internal/ghsim/API.md),
// and one Actions job runs their reviews side by side.
const MaxShared = 10

// claimCompanions claims, for the dispatcher holding lead, up to limit other
// runs waiting for dispatch of the same pull request and head commit in
// repository repoID, so one workflow dispatch starts one Actions run for all
// of them (DESIGN §2.3). Only reviews on the PR share a run (not a shadow
// run's replay, nor a reply). The claim is one conditional update (queued,
// unheld, due), as queue.Claim's, so two workers never both hold a run: the
// runs returned are those this worker won, oldest first.
func claimCompanions(ctx context.Context, db *store.DB, lead *ent.Run, repoID int, owner string, now time.Time, limit int) ([]int, error) {
	if limit <= 0 || lead.Shadow || lead.Kind != run.KindReview {
		return nil, nil
	}
	waiting := []predicate.Run{
		run.HasRepositoryWith(repository.ID(repoID)), run.PrNumber(lead.PrNumber), run.HeadSha(lead.HeadSha),
		run.StatusEQ(run.StatusQueued), run.LeaseOwner(""), run.Shadow(false), run.KindEQ(run.KindReview),
		run.Or(run.NextAttemptAtIsNil(), run.NextAttemptAtLTE(now)), run.IDNEQ(lead.ID),
	}
	ids, err := db.Run.Query().Where(waiting...).Order(ent.Asc(run.FieldCreatedAt), ent.Asc(run.FieldID)).Limit(limit).IDs(ctx)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	// One conditional update per run: the runs returned are exactly those
	// this worker's updates won, whoever else claims meanwhile.
	var won []int
	for _, id := range ids {
		n, err := db.Run.Update().Where(append(slices.Clone(waiting), run.ID(id))...).
			SetLeaseOwner(owner).SetHeartbeatAt(now).AddAttempts(1).Save(ctx)
		if err != nil {
			return won, err
		}
		if n == 1 {
			won = append(won, id)
		}
	}
	return won, nil
}
