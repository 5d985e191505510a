package worker_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/gh/ghtest"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/server/webhook"
	"github.com/chakshu-dev/chakshu/server/webhook/webhooktest"
	"github.com/chakshu-dev/chakshu/worker"
)

// stall stops the database from storing webhook events until the returned
// func is called: SQLite's write lock held by another connection, or
// PostgreSQL's ACCESS EXCLUSIVE lock on webhook_events.
func stall(t *testing.T, db *store.DB) func() {
	t.Helper()
	ctx := context.Background()
	conn, err := db.SQL.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{"BEGIN IMMEDIATE"}
	if db.Dialect == dialect.Postgres {
		stmts = []string{"BEGIN", "LOCK TABLE webhook_events IN ACCESS EXCLUSIVE MODE"}
	}
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
			t.Fatal(err)
		}
		conn.Close()
	}
}

// A database stall during a burst: the deliveries GitHub could not hand over
// are failed in its log (503, answered well inside 10 s); the recovery loop
// asks for each once, and afterwards every delivery is stored exactly once.
func TestWebhookRecoveryAfterADatabaseStall(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		// Without group commit the insert runs under the answer's deadline,
		// so a stalled store is really lost (a batch may commit after its
		// 503; the recovery then finds it stored and skips it).
		in := webhooktest.StartIntake(t, webhook.Config{DB: db, Secrets: []string{"s3cret"}, Log: log, AnswerWithin: 300 * time.Millisecond,
			Batch: webhook.BatchConfig{Mode: "off"}})
		s := ghsimtest.New(t)
		s.SetWebhook(in.URL, "s3cret")
		appID, key := s.CreateApp("chakshu")
		s.CreateOrg("acme")
		s.CreateUser("alice")
		s.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n"})
		s.SetPermission(repoName, "alice", "write")
		s.Install(appID, "acme", nil, nil)
		s.CreateBranch(repoName, "feature", "main")
		s.Commit(repoName, "feature", map[string]string{"a.go": "package main\n"}, "a")
		pr := s.OpenPR(repoName, "feature", "main", "A", "", "alice", false)

		for i := 0; i < 4; i++ {
			s.Comment(repoName, pr, "alice", "before")
		}
		release := stall(t, db)
		start := time.Now()
		for i := 0; i < 6; i++ {
			s.Comment(repoName, pr, "alice", "during")
		}
		if d := time.Since(start); d > 6*time.Second {
			t.Fatalf("six deliveries during the stall took %s: intake must answer well within GitHub's 10 s", d)
		}
		release()
		for i := 0; i < 3; i++ {
			s.Comment(repoName, pr, "alice", "after")
		}
		failed := 0
		guids := map[string]bool{}
		for _, d := range s.Deliveries() {
			guids[d.ID] = true
			if d.Status != 202 {
				failed++
				if d.Status != 503 {
					t.Fatalf("delivery during the stall answered %d %s, want 503", d.Status, d.Err)
				}
			}
		}
		if failed != 6 {
			t.Fatalf("%d failed deliveries, want the 6 sent during the stall", failed)
		}

		if n := db.WebhookEvent.Query().CountX(ctx); n != len(guids)-6 {
			t.Fatalf("%d events stored before recovery, want all but the 6 of the stall (%d)", n, len(guids)-6)
		}
		apps := ghtest.Apps(t, s, appID, key)
		rec, err := worker.NewRecoverer(worker.RecoverConfig{DB: db, Log: log, GitHub: ghwrite.Hooks(apps), AppID: appID,
			Pace: time.Millisecond, Interval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		asked, err := rec.Pass(ctx, false)
		if err != nil || asked != 6 {
			t.Fatalf("first pass asked for %d redeliveries (err %v), want 6", asked, err)
		}
		if n := s.CallCount("POST /app/hook/deliveries/{delivery_id}/attempts"); n != 6 {
			t.Fatalf("%d redelivery requests, want 6", n)
		}
		rows := db.WebhookEvent.Query().CountX(ctx)
		if rows != len(guids) {
			t.Fatalf("%d events stored, want each of the %d deliveries once", rows, len(guids))
		}
		for g := range guids {
			if n := db.WebhookEvent.Query().Where(webhookevent.DeliveryID(g)).CountX(ctx); n != 1 {
				t.Fatalf("delivery %s stored %d times, want once", g, n)
			}
		}
		// Within the interval another pass does nothing; a forced one finds
		// nothing left (the cursor moved past it all).
		if asked, err := rec.Pass(ctx, false); err != nil || asked != 0 {
			t.Fatalf("second pass within the interval: %d, %v", asked, err)
		}
		lists := s.CallCount("GET /app/hook/deliveries")
		if asked, err := rec.Pass(ctx, true); err != nil || asked != 0 {
			t.Fatalf("forced pass: asked %d, %v; want 0", asked, err)
		}
		if s.CallCount("GET /app/hook/deliveries") != lists+1 {
			t.Fatal("the forced pass did not read the log")
		}
	})
}

// Paging: more failed deliveries than one page (100) are all found, through
// the Link header's cursor.
func TestWebhookRecoveryPagesThroughTheLog(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		s := ghsimtest.New(t)
		appID, key := s.CreateApp("chakshu")
		s.CreateOrg("acme")
		s.CreateUser("alice")
		s.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n"})
		s.Install(appID, "acme", nil, nil)
		s.CreateBranch(repoName, "feature", "main")
		s.Commit(repoName, "feature", map[string]string{"a.go": "package main\n"}, "a")
		pr := s.OpenPR(repoName, "feature", "main", "A", "", "alice", false)
		// No webhook URL: every delivery fails, as when Chakshu is down.
		for i := 0; i < 101; i++ {
			s.Comment(repoName, pr, "alice", "x")
		}
		in := webhooktest.StartIntake(t, webhook.Config{DB: db, Secrets: []string{"s3cret"}, Log: log})
		s.SetWebhook(in.URL, "s3cret")
		apps := ghtest.Apps(t, s, appID, key)
		rec, err := worker.NewRecoverer(worker.RecoverConfig{DB: db, Log: log, GitHub: ghwrite.Hooks(apps), AppID: appID, Pace: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		total := len(s.Deliveries()) // the comments and the PR's own events
		asked, err := rec.Pass(ctx, true)
		if err != nil || asked != total {
			t.Fatalf("asked %d (err %v), want all %d failed deliveries", asked, err, total)
		}
		if s.CallCount("GET /app/hook/deliveries") < 2 {
			t.Fatal("a log over one page was read in one request")
		}
		if n := db.WebhookEvent.Query().CountX(ctx); n != total {
			t.Fatalf("%d stored, want %d", n, total)
		}
	})
}
