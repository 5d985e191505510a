package ghwrite_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// clock is a settable time shared by the ports and budgets of a test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// paced is a world whose installation is stored in db and whose port
// spends from a budget there.
func paced(t *testing.T, db *store.DB, opts ghsim.Options, windows []ghwrite.Window, clk *clock) (*world, func() *ghwrite.Port) {
	t.Helper()
	w := newWorldWith(t, opts)
	if _, err := db.Installation.Create().SetGithubID(w.repo.Installation).SetAccountLogin("acme").Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	apps := w.apps
	// Each call is another worker process: its own port and budget over
	// the one database.
	process := func() *ghwrite.Port {
		sleep := func(ctx context.Context, d time.Duration) error { clk.add(d); return nil }
		return ghwrite.New(apps, "chakshu", ghwrite.WithSleep(sleep), ghwrite.WithClock(clk.now, 5*time.Second),
			ghwrite.WithBudget(ghwrite.NewDBBudget(db, windows)))
	}
	w.port = process()
	return w, process
}

func comment(ctx context.Context, w *world, p *ghwrite.Port, i int) error {
	_, err := p.Comment(ctx, w.repo, w.pr, fmt.Sprintf("note %d", i), func(string) bool { return false }, false)
	return err
}

// GitHub's content limit of N a minute: with the budget, N+1 writes in a
// row meet no secondary limit (the last waits); without it, the N+1-th is
// refused. The simulator's minute is real time here, the writes' waits are
// on a fake clock: the simulator's window is enforced on the fake clock too.
func TestPacingKeepsUnderTheContentLimit(t *testing.T) {
	const perMinute = 16
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		for _, budget := range []bool{true, false} {
			t.Run(fmt.Sprintf("budget=%v", budget), func(t *testing.T) {
				clk := &clock{t: time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)}
				windows := []ghwrite.Window{{N: perMinute, Per: time.Minute}}
				if !budget {
					windows = nil
				}
				w, _ := paced(t, db, ghsim.Options{Now: clk.now, Limits: &ghsim.Limits{ContentPerMinute: perMinute}}, windows, clk)
				var refused error
				start := clk.now()
				for i := range 3 * perMinute {
					if err := comment(ctx, w, w.port, i); err != nil {
						refused = err
						break
					}
					if budget && i == perMinute && clk.now().Sub(start) < time.Minute-time.Minute/perMinute {
						t.Errorf("%d writes in %s: over %d a minute", i+1, clk.now().Sub(start), perMinute)
					}
				}
				got := w.sim.Refused().Secondary
				if budget && (got != 0 || refused != nil) {
					t.Fatalf("with the budget: %d secondary limits met, err %v", got, refused)
				}
				if !budget {
					if got != 1 || refused == nil {
						t.Fatalf("without the budget: %d refusals, err %v; want the %d+1-th refused", got, refused, perMinute)
					}
					if n := w.sim.CallCount("POST /repos/{owner}/{repo}/issues/{issue_number}/comments"); n != perMinute+1 {
						t.Errorf("%d comment POSTs before the refusal, want %d", n, perMinute+1)
					}
				}
			})
			db.Installation.Delete().ExecX(ctx)
		}
	})
}

// A new review's writes give way to those of reviews under way: with the
// budget nearly spent, a Starting write must wait while a Finishing one goes.
func TestStartingGivesWayToFinishing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		const inst = 42
		if _, err := db.Installation.Create().SetGithubID(inst).SetAccountLogin("acme").Save(ctx); err != nil {
			t.Fatal(err)
		}
		// 16 a minute: a burst of 2, one Finishing write kept in reserve.
		b := ghwrite.NewDBBudget(db, []ghwrite.Window{{N: 16, Per: time.Minute}})
		now := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
		if wait, _, err := b.Admit(ctx, inst, ghwrite.Starting, now); err != nil || wait != 0 {
			t.Fatalf("first Starting write: wait %s, err %v", wait, err)
		}
		// One write left in the bucket: it is the reserve.
		wait, _, err := b.Admit(ctx, inst, ghwrite.Starting, now)
		if err != nil || wait <= 0 {
			t.Fatalf("second Starting write went (wait %s, err %v); the last write is kept for reviews under way", wait, err)
		}
		if wait, _, err := b.Admit(ctx, inst, ghwrite.Finishing, now); err != nil || wait != 0 {
			t.Fatalf("Finishing write: wait %s, err %v; want it to take the reserve", wait, err)
		}
		// The bucket is empty: even a Finishing write waits, for one refill.
		wait, _, err = b.Admit(ctx, inst, ghwrite.Finishing, now)
		if err != nil || wait != time.Minute/14 {
			t.Fatalf("Finishing write on an empty bucket: wait %s, err %v; want %s", wait, err, time.Minute/14)
		}
		// After one refill a Finishing write goes, a Starting one does not.
		later := now.Add(time.Minute / 14)
		if wait, _, _ := b.Admit(ctx, inst, ghwrite.Starting, later); wait <= 0 {
			t.Fatal("a Starting write took the only refilled write")
		}
		if wait, _, _ := b.Admit(ctx, inst, ghwrite.Finishing, later); wait != 0 {
			t.Fatalf("a Finishing write waits %s after a refill", wait)
		}
	})
}

// GitHub's secondary limit without Retry-After, met by one process, holds
// every process's writes: the wait is a minute, then two, growing across
// processes, and a write that goes through ends the run of them.
func TestSecondaryWaitIsSharedAndGrows(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := &clock{t: time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)}
		w, process := paced(t, db, ghsim.Options{Now: clk.now}, ghwrite.GitHubWindows, clk)
		a, b := w.port, process()
		const post = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"
		ghsimtest.InjectFault(w.sim, ghsimtest.Fault{Match: post, Kind: ghsimtest.FaultSecondaryRateLimit, NoRetryAfter: true, Times: 2})

		err := comment(ctx, w, a, 1)
		until, ok := gh.WaitFor(err, clk.now())
		if !ok || until.Sub(clk.now()) != time.Minute {
			t.Fatalf("first secondary limit: wait until %v (ok %v), want a minute; err %v", until, ok, err)
		}
		if !ghwrite.MayTell(err) {
			t.Error("GitHub's secondary limit: the run may say so on its check run")
		}
		// Another process: held without asking GitHub.
		calls := w.sim.CallCount(post)
		err = comment(ctx, w, b, 2)
		if until2, ok := gh.WaitFor(err, clk.now()); !ok || !until2.Equal(until) {
			t.Fatalf("other process: until %v (ok %v), want %v; err %v", until2, ok, until, err)
		}
		if ghwrite.MayTell(err) {
			t.Error("a wait kept without asking GitHub must not spend a call on the check run")
		}
		if n := w.sim.CallCount(post); n != calls {
			t.Fatalf("the held process called GitHub (%d POSTs, want %d)", n, calls)
		}
		// A second limit in a row, met by the other process: two minutes.
		clk.add(time.Minute)
		err = comment(ctx, w, b, 3)
		if until, ok := gh.WaitFor(err, clk.now()); !ok || until.Sub(clk.now()) != 2*time.Minute {
			t.Fatalf("second secondary limit: wait %v (ok %v), want 2m; err %v", until.Sub(clk.now()), ok, err)
		}
		// The wait passes; a write goes through and ends the run.
		clk.add(2 * time.Minute)
		if err := comment(ctx, w, a, 4); err != nil {
			t.Fatal(err)
		}
		in := db.Installation.Query().OnlyX(ctx)
		if in.SecondaryHits != 0 {
			t.Errorf("secondary_hits %d after a write went through, want 0", in.SecondaryHits)
		}
		if in.GithubWaitUntil == nil || in.GithubWaitReason == "" {
			t.Error("the last wait is not kept for the Status page")
		}
		// A next limit starts again at a minute.
		ghsimtest.InjectFault(w.sim, ghsimtest.Fault{Match: post, Kind: ghsimtest.FaultSecondaryRateLimit, NoRetryAfter: true, Times: 1})
		err = comment(ctx, w, a, 5)
		if until, _ := gh.WaitFor(err, clk.now()); until.Sub(clk.now()) != time.Minute {
			t.Errorf("after a success the wait is %s, want a minute again", until.Sub(clk.now()))
		}
	})
}

// A primary limit holds every write, check updates included, until its reset.
func TestPrimaryLimitHoldsUpdates(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := &clock{t: time.Now()}
		w, process := paced(t, db, ghsim.Options{}, ghwrite.GitHubWindows, clk)
		ghsimtest.InjectFault(w.sim, ghsimtest.Fault{Match: "POST /repos/{owner}/{repo}/check-runs", Kind: ghsimtest.FaultPrimaryRateLimit, RetryAfter: 600, Times: 1})
		c := ghwrite.Check{Repo: w.repo, Name: "Chakshu · style", HeadSHA: w.head, RunID: 9}
		_, _, err := w.port.OpenCheck(ctx, c, "http://127.0.0.1/runs/9", ghwrite.Text{Title: "t", Summary: "s"})
		var rl *github.RateLimitError
		if !errors.As(err, &rl) {
			t.Fatalf("want GitHub's primary limit, got %v", err)
		}
		if ghwrite.MayTell(err) {
			t.Error("a primary limit refuses every call: the check must not be told")
		}
		c.ID = 1
		patches := w.sim.CallCount("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}")
		err = process().CompleteCheck(ctx, c, "failure", clk.now(), ghwrite.Text{Title: "t", Summary: "s"})
		if until, ok := gh.WaitFor(err, clk.now()); !ok || until.Sub(clk.now()) < 590*time.Second {
			t.Fatalf("check update during a primary limit: until %v ok %v err %v", until, ok, err)
		}
		if n := w.sim.CallCount("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}"); n != patches {
			t.Error("a check update was sent during the primary limit")
		}
	})
}

// Processes spending from one installation's budget at the same moment
// never spend more than it holds: exactly the burst goes, every other write
// is told to wait (the compare-and-swap, on both databases).
func TestBudgetHoldsAcrossConcurrentProcesses(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		const inst = 7
		if _, err := db.Installation.Create().SetGithubID(inst).SetAccountLogin("acme").Save(ctx); err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
		var mu sync.Mutex
		went, waited := 0, 0
		var wg sync.WaitGroup
		for range 4 {
			b := ghwrite.NewDBBudget(db, []ghwrite.Window{{N: 80, Per: time.Minute}}) // a burst of 10
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 8 {
					wait, _, err := b.Admit(ctx, inst, ghwrite.Finishing, now)
					mu.Lock()
					switch {
					case err != nil:
						t.Error(err)
					case wait == 0:
						went++
					default:
						waited++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if went != 10 || waited != 22 {
			t.Fatalf("%d writes went and %d waited, want 10 and 22", went, waited)
		}
	})
}

// GitHub's GraphQL API answers its primary limit with 200 and a RATE_LIMITED
// error, and a secondary one with 403: resolving a thread that meets either
// records the wait on the installation, as a REST limit does, so every
// process holds its resolves and check updates until then without asking
// GitHub; the secondary one without Retry-After waits a minute, growing.
func TestGraphQLLimitOnResolveIsShared(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := &clock{t: time.Now()}
		w, process := paced(t, db, ghsim.Options{}, ghwrite.GitHubWindows, clk)
		const gql = "POST /graphql"
		ghsimtest.InjectFault(w.sim, ghsimtest.Fault{Match: gql, Kind: ghsimtest.FaultPrimaryRateLimit, RetryAfter: 600, Times: 1})
		err := w.port.ResolveThread(ctx, w.repo, "PRRT_kwDOthread1")
		until, ok := gh.WaitFor(err, clk.now())
		if !ok || until.Sub(clk.now()) < 590*time.Second || !gh.Primary(err) {
			t.Fatalf("resolve during GraphQL's primary limit: until %v ok %v primary %v; err %v", until.Sub(clk.now()), ok, gh.Primary(err), err)
		}
		var gl *gh.GraphQLRateLimitError
		if !errors.As(err, &gl) || gl.Status != 200 {
			t.Fatalf("want GitHub's GraphQL answer (200 with RATE_LIMITED), got %v", err)
		}
		if ghwrite.MayTell(err) {
			t.Error("a primary limit refuses every call: the check must not be told")
		}
		in := db.Installation.Query().OnlyX(ctx)
		if in.GithubWaitUntil == nil || in.GithubWaitUntil.Sub(until).Abs() > time.Second || !strings.HasPrefix(in.GithubWaitReason, "GraphQL: its primary rate limit") {
			t.Fatalf("the installation keeps no wait: %v %q", in.GithubWaitUntil, in.GithubWaitReason)
		}
		// Another process: its resolve and its check update are held, GitHub not asked.
		calls, patches := w.sim.CallCount(gql), w.sim.CallCount("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}")
		other := process()
		if until2, ok := gh.WaitFor(other.ResolveThread(ctx, w.repo, "PRRT_kwDOthread2"), clk.now()); !ok || !until2.Equal(*in.GithubWaitUntil) {
			t.Fatalf("other process's resolve: until %v ok %v", until2, ok)
		}
		c := ghwrite.Check{Repo: w.repo, Name: "Chakshu · style", HeadSHA: w.head, RunID: 9, ID: 1}
		if _, ok := gh.WaitFor(other.CompleteCheck(ctx, c, "success", clk.now(), ghwrite.Text{Title: "t", Summary: "s"}), clk.now()); !ok {
			t.Fatal("a check update went on during GraphQL's primary limit")
		}
		if w.sim.CallCount(gql) != calls || w.sim.CallCount("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}") != patches {
			t.Fatal("a held process called GitHub")
		}

		// After the reset, a secondary limit (403, no Retry-After): a minute, and the check may say so.
		clk.add(until.Sub(clk.now()) + time.Second)
		ghsimtest.InjectFault(w.sim, ghsimtest.Fault{Match: gql, Kind: ghsimtest.FaultSecondaryRateLimit, NoRetryAfter: true, Times: 1})
		err = w.port.ResolveThread(ctx, w.repo, "PRRT_kwDOthread1")
		if until, ok := gh.WaitFor(err, clk.now()); !ok || until.Sub(clk.now()) != time.Minute || gh.Primary(err) {
			t.Fatalf("GraphQL secondary limit: wait %v ok %v; err %v", until.Sub(clk.now()), ok, err)
		}
		if !ghwrite.MayTell(err) {
			t.Error("GitHub's secondary limit: the run may say so on its check run")
		}
		if in := db.Installation.Query().OnlyX(ctx); in.SecondaryHits != 1 {
			t.Errorf("secondary_hits %d, want 1", in.SecondaryHits)
		}
	})
}
