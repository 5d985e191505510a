package worker

import (
	"context"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

const syncReviewersRepo = "acme/chakshu-reviewers"

// syncFixture is an org whose reviewers repository holds two reviewers (or
// an org without one), the App installed on it, the installation stored,
// and a syncer.
type syncFixture struct {
	sim    *ghsim.Sim
	inst   *ent.Installation
	syncer *reviewerconfig.Syncer
}

func newSyncFixture(t *testing.T, db *store.DB, withRepo bool) *syncFixture {
	t.Helper()
	s := ghsimtest.New(t)
	appID, key := s.CreateApp("chakshu")
	s.CreateOrg("acme")
	if withRepo {
		s.CreateRepo("acme", "chakshu-reviewers", map[string]string{
			"reviewers/security/reviewer.yaml": "description: Security review\n",
			"reviewers/perf/reviewer.yaml":     "description: Performance\n",
			"reviewers/perf/CLAUDE.md":         "Find N+1 queries.\n",
		})
	}
	s.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n"})
	instID := s.Install(appID, "acme", nil, nil)
	apps, err := gh.New(gh.Config{AppID: appID, PrivateKey: key, BaseURL: s.URL(), GraphQLURL: s.GraphQLURL(),
		Retry: gh.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	inst := db.Installation.Create().SetGithubID(instID).SetAccountLogin("acme").SaveX(context.Background())
	syncer, err := reviewerconfig.NewSyncer(reviewerconfig.SyncerConfig{DB: db, Clients: apps})
	if err != nil {
		t.Fatal(err)
	}
	return &syncFixture{sim: s, inst: inst, syncer: syncer}
}

// The loop syncs every installation at start, then an installation whose
// sync is requested as soon as the request wakes it (the polls are an hour
// apart), and clears the request.
func TestReviewerSyncLoop(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		f := newSyncFixture(t, db, true)
		bus := wakeup.NewLocal()
		loop, err := NewReviewerSync(ReviewerSyncConfig{Syncer: f.syncer, DB: db, Bus: bus, Poll: time.Hour, Resync: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- loop.Run(ctx) }()
		waitFor := func(what string, ok func() bool) {
			t.Helper()
			deadline := time.Now().Add(10 * time.Second)
			for !ok() {
				if time.Now().After(deadline) {
					t.Fatalf("timed out waiting for %s", what)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		waitFor("the start-up sync", func() bool { return db.Reviewer.Query().CountX(ctx) == 2 })

		sha := f.sim.Commit(syncReviewersRepo, "main", map[string]string{"reviewers/perf/CLAUDE.md": "new rules\n"}, "edit")
		if err := reviewerconfig.RequestSync(ctx, db, bus, f.inst.ID); err != nil {
			t.Fatal(err)
		}
		waitFor("the requested sync", func() bool {
			r, err := db.Reviewer.Query().Where(reviewer.Name("perf")).Only(ctx)
			return err == nil && r.SyncedCommit == sha && r.ClaudeMd == "new rules\n"
		})
		waitFor("the request to be cleared", func() bool {
			return db.Installation.GetX(ctx, f.inst.ID).SyncRequestedAt == nil
		})
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
	})
}

// A sync that fails on GitHub errors is requested again RetryAfter later,
// and is not retried before.
func TestReviewerSyncRetriesGitHubFailures(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSyncFixture(t, db, true)
		loop, err := NewReviewerSync(ReviewerSyncConfig{Syncer: f.syncer, DB: db, Bus: wakeup.NewLocal(), RetryAfter: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		ghsimtest.InjectFault(f.sim, ghsimtest.Fault{Match: "GET /repos/{owner}/{repo}/git/trees/{tree_sha}", Kind: ghsimtest.FaultServerError, Times: 3})
		if err := reviewerconfig.RequestSync(ctx, db, nil, f.inst.ID); err != nil {
			t.Fatal(err)
		}
		if n := loop.RunPending(ctx); n != 1 {
			t.Fatalf("RunPending synced %d installations, want 1", n)
		}
		inst := db.Installation.GetX(ctx, f.inst.ID)
		if inst.SyncRequestedAt == nil || time.Until(*inst.SyncRequestedAt) < 50*time.Minute || inst.LastSyncError == "" {
			t.Errorf("a failed sync is retried later: requested=%v err=%q", inst.SyncRequestedAt, inst.LastSyncError)
		}
		if n := loop.RunPending(ctx); n != 0 {
			t.Errorf("the retry is not due yet, but %d ran", n)
		}
		if n := db.Reviewer.Query().CountX(ctx); n != 0 {
			t.Errorf("a failed read stores nothing; %d reviewers", n)
		}
	})
}

// An installation without a reviewers repository is not retried on a
// timer: the next push, request or resync tries again.
func TestReviewerSyncWithoutReviewersRepo(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSyncFixture(t, db, false)
		loop, err := NewReviewerSync(ReviewerSyncConfig{Syncer: f.syncer, DB: db, Bus: wakeup.NewLocal(), RetryAfter: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if err := reviewerconfig.RequestSync(ctx, db, nil, f.inst.ID); err != nil {
			t.Fatal(err)
		}
		if n := loop.RunPending(ctx); n != 1 {
			t.Fatalf("RunPending synced %d installations, want 1", n)
		}
		if inst := db.Installation.GetX(ctx, f.inst.ID); inst.SyncRequestedAt != nil {
			t.Errorf("a missing reviewers repository was requested again at %v", inst.SyncRequestedAt)
		}
	})
}
