package events_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/metrics"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/server/webhook/webhooktest"
	"github.com/chakshu-dev/chakshu/worker/events"
)

// deliver posts a signed payload to the intake, as GitHub would.
func (e *env) deliver(event, delivery string, body []byte) {
	e.t.Helper()
	resp, err := http.DefaultClient.Do(webhooktest.Request(e.t, e.intake, secret, event, delivery, body))
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		e.t.Fatalf("deliver %s: status %d", event, resp.StatusCode)
	}
}

// Every GitHub example payload of the events Chakshu handles goes through the
// intake and the handlers without error (with reviewers set up for none of
// their installations, so no handler needs GitHub).
func TestExamplesHandled(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, envOpts{})
		calls := e.sim.TotalCalls("")
		n := 0
		for _, ex := range webhooktest.Examples(t, webhooktest.Handled...) {
			e.deliver(ex.Event, "ex-"+ex.Name(), ex.Payload)
			n++
		}
		e.drain()
		got := db.WebhookEvent.Query().Where(webhookevent.DeliveryIDHasPrefix("ex-"), webhookevent.StatusEQ(webhookevent.StatusDone)).CountX(context.Background())
		if got != n {
			t.Fatalf("%d of %d examples done", got, n)
		}
		if c := e.sim.TotalCalls("") - calls; c != 0 {
			t.Fatalf("handling the examples made %d GitHub calls: %v", c, e.sim.Calls())
		}
	})
}

// Events stored while no worker runs are handled once by the next worker.
func TestCrashBetweenStoreAndHandle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db, envOpts{})
		rv := e.reviewer("security", nil)
		n := e.pr("feature", "a.go", false)
		e.sim.Comment(repoFN, n, "alice", "@chakshu review")
		// The stored comment waits; a worker that dies after claiming leaves it processing.
		ev := db.WebhookEvent.Query().Where(webhookevent.Event("issue_comment")).OnlyX(ctx)
		if ev.Status != webhookevent.StatusPending {
			t.Fatalf("stored event is %s", ev.Status)
		}
		db.WebhookEvent.UpdateOne(ev).SetStatus(webhookevent.StatusProcessing).SetLeaseOwner("dead-worker").
			SetHeartbeatAt(time.Now().Add(-10 * time.Minute)).SetAttempts(1).ExecX(ctx)
		// A fresh worker takes it over and handles it once; draining again changes nothing.
		e.drain()
		e.drain()
		runs := db.Run.Query().AllX(ctx)
		if len(runs) != 1 || runs[0].QueryReviewer().OnlyIDX(ctx) != rv.ID || runs[0].PrNumber != n {
			t.Fatalf("runs after takeover: %+v", runs)
		}
		ev = db.WebhookEvent.GetX(ctx, ev.ID)
		if ev.Status != webhookevent.StatusDone || ev.Attempts != 2 || ev.LeaseOwner != "" {
			t.Fatalf("event after takeover: %s attempts %d owner %q", ev.Status, ev.Attempts, ev.LeaseOwner)
		}
	})
}

// A lease refreshed by its worker's heartbeat is not taken over.
func TestHeartbeatKeepsLease(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db, envOpts{})
		e.reviewer("security", nil)
		n := e.pr("feature", "a.go", false)
		e.drain()
		e.sim.Comment(repoFN, n, "alice", "@chakshu review")
		ev := db.WebhookEvent.Query().Where(webhookevent.Event("issue_comment")).OnlyX(ctx)
		db.WebhookEvent.UpdateOne(ev).SetStatus(webhookevent.StatusProcessing).SetLeaseOwner("busy-worker").
			SetHeartbeatAt(time.Now().Add(-10 * time.Minute)).ExecX(ctx)
		if err := queue.Heartbeat(ctx, db, "busy-worker", time.Now(), queue.WebhookEvents); err != nil {
			t.Fatal(err)
		}
		if got, _ := e.loop.Drain(ctx); got != 0 {
			t.Fatalf("took over %d events held under a fresh lease", got)
		}
		if got := db.WebhookEvent.GetX(ctx, ev.ID).LeaseOwner; got != "busy-worker" {
			t.Fatalf("lease owner %q", got)
		}
	})
}

// Several workers draining the same events handle each exactly once.
func TestSeveralWorkers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db, envOpts{})
		for i := range 60 {
			e.deliver("ping", fmt.Sprintf("p-%d", i), []byte(`{"zen":"Keep it logically awesome."}`))
		}
		var wg sync.WaitGroup
		total := 0
		var mu sync.Mutex
		for w := range 4 {
			l, err := events.New(events.Config{DB: db, Log: discard(), GitHub: e.apps, AppSlug: slug, WorkerID: fmt.Sprintf("w%d", w)})
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := l.Drain(ctx)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				total += n
				mu.Unlock()
			}()
		}
		wg.Wait()
		if total != 60 {
			t.Fatalf("handled %d, want 60", total)
		}
		for _, ev := range db.WebhookEvent.Query().Where(webhookevent.Event("ping")).AllX(ctx) {
			if ev.Status != webhookevent.StatusDone || ev.Attempts != 1 {
				t.Fatalf("%s: %s after %d attempts", ev.DeliveryID, ev.Status, ev.Attempts)
			}
		}
	})
}

// A handler failing three times fails the event with its redacted error;
// Retry puts it back and it is handled once GitHub answers again.
func TestFailureRetryAndRetryAfterFailed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db, envOpts{})
		e.reviewer("security", nil)
		n := e.pr("feature", "a.go", false)
		ghsimtest.InjectFault(e.sim, ghsimtest.Fault{Match: "GET /repos/{owner}/{repo}/pulls/{pull_number}", Kind: ghsimtest.FaultServerError, Times: 1000})
		e.sim.Comment(repoFN, n, "alice", "@chakshu review")
		if _, err := e.loop.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		ev := db.WebhookEvent.Query().Where(webhookevent.Event("issue_comment")).OnlyX(ctx)
		if ev.Status != webhookevent.StatusFailed || ev.Attempts != 3 || !strings.Contains(ev.LastError, "502") {
			t.Fatalf("event %s after %d attempts: %q", ev.Status, ev.Attempts, ev.LastError)
		}
		if strings.Contains(ev.LastError, "ghs_") {
			t.Fatalf("error not redacted: %q", ev.LastError)
		}
		if db.Run.Query().CountX(ctx) != 0 {
			t.Fatal("a failed event queued runs")
		}
		if err := events.Retry(ctx, db, e.bus, ev.ID+1000); err != events.ErrNotFailed {
			t.Fatalf("retry of a missing event: %v", err)
		}
		ghsimtest.ClearFaults(e.sim)
		if err := e.loop.Retry(ctx, ev.ID); err != nil {
			t.Fatal(err)
		}
		if got := db.WebhookEvent.GetX(ctx, ev.ID); got.Status != webhookevent.StatusPending || got.Attempts != 0 {
			t.Fatalf("after retry: %s attempts %d", got.Status, got.Attempts)
		}
		e.drain()
		if db.Run.Query().Where(run.PrNumber(n)).CountX(ctx) != 1 {
			t.Fatal("the retried event queued no run")
		}
	})
}

// Failed attempts wait for their backoff before the next.
func TestBackoff(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db, envOpts{backoff: []time.Duration{time.Hour}})
		e.reviewer("security", nil)
		n := e.pr("feature", "a.go", false)
		ghsimtest.InjectFault(e.sim, ghsimtest.Fault{Match: "GET /repos/{owner}/{repo}/pulls/{pull_number}", Kind: ghsimtest.FaultServerError, Times: 1000})
		e.sim.Comment(repoFN, n, "alice", "@chakshu review")
		if _, err := e.loop.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		ev := db.WebhookEvent.Query().Where(webhookevent.Event("issue_comment")).OnlyX(ctx)
		if ev.Status != webhookevent.StatusPending || ev.Attempts != 1 || ev.NextAttemptAt == nil || time.Until(*ev.NextAttemptAt) < 50*time.Minute {
			t.Fatalf("after one failure: %s attempts %d next %v", ev.Status, ev.Attempts, ev.NextAttemptAt)
		}
	})
}

// The loop wakes on the bus: a stored event is handled without waiting for the poll.
func TestRunWakesOnStore(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx, cancel := context.WithCancel(context.Background())
		e := newEnv(t, db, envOpts{})
		done := make(chan error, 1)
		go func() { done <- e.loop.Run(ctx) }()
		e.deliver("ping", "wake-1", []byte(`{"zen":"x"}`))
		deadline := time.Now().Add(5 * time.Second)
		for {
			ev := db.WebhookEvent.Query().Where(webhookevent.DeliveryID("wake-1")).OnlyX(ctx)
			if ev.Status == webhookevent.StatusDone {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("event still %s", ev.Status)
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

// A rate limit asking for longer than a few seconds puts the event back with
// GitHub's due time (a secondary limit without Retry-After: a minute) instead
// of holding the worker or failing the event, even on its last attempt.
func TestRateLimitPutsEventBack(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db, envOpts{})
		e.reviewer("security", nil)
		n := e.pr("feature", "a.go", false)
		ghsimtest.InjectFault(e.sim, ghsimtest.Fault{Match: "GET /repos/{owner}/{repo}/pulls/{pull_number}", Kind: ghsimtest.FaultSecondaryRateLimit, NoRetryAfter: true, Times: 1})
		e.sim.Comment(repoFN, n, "alice", "@chakshu review")
		ev := db.WebhookEvent.Query().Where(webhookevent.Event("issue_comment")).OnlyX(ctx)
		db.WebhookEvent.UpdateOne(ev).SetAttempts(2).ExecX(ctx) // its last attempt comes next
		start := time.Now()
		if _, err := e.loop.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		got := db.WebhookEvent.GetX(ctx, ev.ID)
		if got.Status != webhookevent.StatusPending || got.NextAttemptAt == nil {
			t.Fatalf("event after a rate limit: %s due %v (%s)", got.Status, got.NextAttemptAt, got.LastError)
		}
		if wait := got.NextAttemptAt.Sub(start); wait < 59*time.Second || wait > 65*time.Second {
			t.Fatalf("due in %s, want a minute", wait)
		}
		if db.Run.Query().CountX(ctx) != 0 {
			t.Fatal("queued while rate limited")
		}
	})
}

// Each attempt's end is counted by event and outcome
// (chakshu_webhook_events_processed_total): two retries and a failure, a
// wait GitHub asked for, then done once GitHub answers.
func TestOutcomesCounted(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		reg := prometheus.NewRegistry()
		outcomes, err := metrics.NewWebhookOutcomes(reg)
		if err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, db, envOpts{outcomes: outcomes})
		e.reviewer("security", nil)
		n := e.pr("feature", "a.go", false)
		counted := func() map[string]float64 {
			out := map[string]float64{}
			fams, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fams {
				for _, m := range f.GetMetric() {
					var key []string
					for _, l := range m.GetLabel() {
						key = append(key, l.GetValue())
					}
					out[strings.Join(key, " ")] = m.GetCounter().GetValue()
				}
			}
			return out
		}
		e.drain()
		before := counted() // the set-up's deliveries (installation, pull_request, …), all done
		for k, v := range before {
			if !strings.HasSuffix(k, " done") || v < 1 {
				t.Fatalf("set-up counted %q = %v", k, v)
			}
		}

		ghsimtest.InjectFault(e.sim, ghsimtest.Fault{Match: "GET /repos/{owner}/{repo}/pulls/{pull_number}", Kind: ghsimtest.FaultServerError, Times: 1000})
		e.sim.Comment(repoFN, n, "alice", "@chakshu review")
		if _, err := e.loop.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		ghsimtest.ClearFaults(e.sim)
		ev := db.WebhookEvent.Query().Where(webhookevent.Event("issue_comment")).OnlyX(ctx)
		ghsimtest.InjectFault(e.sim, ghsimtest.Fault{Match: "GET /repos/{owner}/{repo}/pulls/{pull_number}", Kind: ghsimtest.FaultSecondaryRateLimit, NoRetryAfter: true, Times: 1})
		if err := e.loop.Retry(ctx, ev.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.loop.Drain(ctx); err != nil { // waits for GitHub
			t.Fatal(err)
		}
		db.WebhookEvent.UpdateOneID(ev.ID).SetNextAttemptAt(time.Now()).ExecX(ctx) // the wait is over
		e.drain()

		got := counted()
		for k, v := range before {
			got[k] -= v
			if got[k] == 0 {
				delete(got, k)
			}
		}
		want := map[string]float64{"issue_comment retry": 2, "issue_comment failed": 1, "issue_comment github_wait": 1, "issue_comment done": 1}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("outcomes counted (-want +got):\n%s", d)
		}
	})
}
