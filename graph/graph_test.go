package graph

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/server/auth"
)

// TestSessionAndCSRF: login sets a hardened, rotated session cookie; a
// cookie-authenticated POST without the CSRF token is refused; an API token
// needs none; logout ends the session.
func TestSessionAndCSRF(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		var sessionCookies []*http.Cookie
		c := e.anon()
		c.hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			for _, ck := range req.Response.Cookies() {
				if ck.Name == auth.SessionCookie {
					sessionCookies = append(sessionCookies, ck)
				}
			}
			return nil
		}
		for i := 0; i < 2; i++ {
			e.sim.SetOAuthLogin("alice")
			resp, err := c.hc.Get(e.srv.URL + "/auth/login")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		if len(sessionCookies) != 2 {
			t.Fatalf("want a session cookie per login, got %d", len(sessionCookies))
		}
		ck := sessionCookies[0]
		if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure || ck.MaxAge <= 0 || ck.Path != "/" {
			t.Errorf("session cookie flags: %+v", ck)
		}
		if sessionCookies[0].Value == sessionCookies[1].Value {
			t.Error("the session cookie was not rotated at login")
		}
		c.refreshCSRF()

		q := []byte(`{"query":"mutation { syncReviewers }"}`)
		r := c.post(q, false)
		if r.Status != http.StatusForbidden || r.code() != "FORBIDDEN" || !strings.Contains(r.raw, "CSRF") {
			t.Errorf("POST without CSRF token: %d %s", r.Status, r.raw)
		}
		if r := c.do(`{ viewer { login } }`, nil); r.code() != "OK" || !strings.Contains(r.raw, "alice") {
			t.Errorf("POST with CSRF token: %s", r.raw)
		}
		tok := c.token("write")
		if r := tok.post([]byte(`{"query":"{ viewer { login authMethod } }"}`), false); r.code() != "OK" || !strings.Contains(r.raw, "TOKEN") {
			t.Errorf("API token without CSRF: %s", r.raw)
		}
		bad := &client{e: e, hc: &http.Client{}, bearer: "chkt_nope-nope-nope-nope-nope"}
		if r := bad.do(`{ viewer { login } }`, nil); r.Status != http.StatusUnauthorized || !strings.Contains(r.raw, "UNAUTHENTICATED") {
			t.Errorf("bad token: %d %s", r.Status, r.raw)
		}

		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/auth/logout", nil)
		req.Header.Set(auth.CSRFHeader, c.csrf)
		resp, err := c.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if r := c.do(`{ viewer { login } }`, nil); !strings.Contains(r.raw, `"viewer":null`) {
			t.Errorf("after logout: %s", r.raw)
		}
	})
}

// TestLimits: page size cap and default, depth, complexity, body size, and
// the error shape.
func TestLimits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		for i := 0; i < 3; i++ {
			e.seedRun(e.repoA, e.revSec, e.prA, run.StatusSucceeded, 1, 1000, 0)
		}
		c := e.login("carol")
		cases := []struct {
			name, query, code, msg string
		}{
			{"first over 100", `{ runs(first: 101) { totalCount } }`, "INVALID", "between 0 and 100"},
			{"last over 100", `{ runs(last: 500) { totalCount } }`, "INVALID", "between 0 and 100"},
			{"nested page over 100", `{ runs(first: 1) { edges { node { findings(first: 1000) { totalCount } } } } }`, "INVALID", "between 0 and 100"},
			{"too deep", `{ runs(first: 1) { edges { node { repository { runs(first: 1) { edges { node { repository { runs(first: 1) { edges { node { reviewer { id } } } } } } } } } } } } }`, "INVALID", "deeper than"},
			{"too complex", `{ runs(first: 100) { edges { node { findings(first: 100) { edges { node { run { findings(first: 100) { edges { node { id title } } } } } } } } } } }`, "INVALID", "complexity"},
			{"syntax", `{ runs(first: 1) {`, "INVALID", ""},
			{"unknown field", `{ nope }`, "INVALID", ""},
			{"not found", `{ node(id: 1) { id } }`, "NOT_FOUND", "not found"},
			{"id not a number", `{ node(id: "UnVuOjE=") { id } }`, "INVALID", "not a valid id"},
			{"id in a list", `{ nodes(ids: ["1", "x"]) { id } }`, "INVALID", "not a valid id"},
			{"id in a variable-free filter", `{ runs(first: 1, where: {hasRepositoryWith: {id: "abc"}}) { totalCount } }`, "INVALID", "not a valid id"},
			{"default page", `{ runs { edges { node { id } } } }`, "OK", ""},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := c.do(tc.query, nil)
				if r.code() != tc.code || !strings.Contains(r.raw, tc.msg) {
					t.Errorf("got %s %s", r.code(), r.raw)
				}
			})
		}
		// The default page size applies: 60 runs, no first → 50.
		for i := 0; i < 57; i++ {
			e.seedRun(e.repoA, e.revPrf, e.prA, run.StatusSucceeded, 1, 1000, 0)
		}
		var d struct {
			Runs struct {
				Edges    []any
				PageInfo struct{ HasNextPage bool }
			}
		}
		r := c.do(`{ runs { edges { node { id } } pageInfo { hasNextPage } } }`, nil)
		r.ok(t)
		r.into(t, &d)
		if len(d.Runs.Edges) != DefaultPageSize || !d.Runs.PageInfo.HasNextPage {
			t.Errorf("default page: %d edges, next %v", len(d.Runs.Edges), d.Runs.PageInfo.HasNextPage)
		}
		big := []byte(`{"query":"{ viewer { login } }","variables":{"x":"` + strings.Repeat("a", 300<<10) + `"}}`)
		if r := c.post(big, true); r.Status != http.StatusRequestEntityTooLarge || r.code() != "INVALID" {
			t.Errorf("big body: %d %s", r.Status, r.raw)
		}
	})
}

// TestPaginationAndFilters: cursors stay valid while rows are added; where
// filters by repository, reviewer, status and time.
func TestPaginationAndFilters(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		for i := 0; i < 5; i++ {
			e.seedRun(e.repoA, e.revSec, e.prA, run.StatusSucceeded, float64(i), 1000, 0)
		}
		e.seedRun(e.repoB, e.revSec, e.prB, run.StatusFailed, 9, 1000, 0)
		e.seedRun(e.repoA, e.revPrf, e.prA, run.StatusFailed, 9, 1000, 0)
		c := e.login("carol")
		page := func(after string) (ids []string, end string) {
			vars := map[string]any{"r": e.repoA.ID, "v": e.revSec.ID}
			if after != "" {
				vars["a"] = after
			}
			r := c.do(`query($a: Cursor, $r: ID, $v: ID) { runs(first: 2, after: $a, orderBy: {field: CREATED_AT, direction: DESC},
				where: {repositoryID: $r, reviewerID: $v, status: succeeded}) { edges { node { id } } pageInfo { endCursor } } }`, vars)
			r.ok(t)
			var d struct {
				Runs struct {
					Edges    []struct{ Node struct{ ID string } }
					PageInfo struct{ EndCursor string }
				}
			}
			r.into(t, &d)
			for _, ed := range d.Runs.Edges {
				ids = append(ids, ed.Node.ID)
			}
			return ids, d.Runs.PageInfo.EndCursor
		}
		p1, cur := page("")
		// New rows arrive between pages: the cursor still continues where it was.
		e.seedRun(e.repoA, e.revSec, e.prA, run.StatusSucceeded, 1, 1000, 0)
		p2, cur := page(cur)
		p3, _ := page(cur)
		all := append(append(p1, p2...), p3...)
		if len(all) != 5 {
			t.Fatalf("pages %v %v %v", p1, p2, p3)
		}
		seen := map[string]bool{}
		for _, id := range all {
			if seen[id] {
				t.Fatalf("id %s twice across pages: %v", id, all)
			}
			seen[id] = true
		}
		from := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		r := c.do(`query($f: Time) { runs(first: 10, where: {createdAtGTE: $f}) { totalCount } }`, map[string]any{"f": from})
		if r.code() != "OK" || !strings.Contains(r.raw, `"totalCount":0`) {
			t.Errorf("time filter: %s", r.raw)
		}
	})
}

// TestNoNPlusOne: the runs page with findings, reviewer and repository costs
// the same number of statements for 2 runs as for 12.
func TestNoNPlusOne(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		c := e.login("alice")
		q := `{ runs(first: 50, orderBy: {field: CREATED_AT, direction: DESC}) { totalCount edges { node { id status
			reviewer { name } repository { fullName } findingCounts { total } links { checkRun }
			findings(first: 5) { totalCount edges { node { title severity } } } } } } }`
		measure := func() int64 {
			e.drv.n.Store(0)
			c.do(q, nil).ok(t)
			return e.drv.n.Load()
		}
		for i := 0; i < 2; i++ {
			e.seedRun(e.repoA, e.revSec, e.prA, run.StatusSucceeded, 1, 1000, 3)
		}
		small := measure()
		for i := 0; i < 10; i++ {
			e.seedRun(e.repoA, e.revPrf, e.prA, run.StatusSucceeded, 1, 1000, 3)
		}
		large := measure()
		if small != large || large > 8 {
			t.Errorf("statements: %d for 2 runs, %d for 12 (want equal, ≤ 8)", small, large)
		}
		t.Logf("runs page: %d statements", large)
	})
}

// TestRunUpdatedSubscription: graphql-ws delivers changes of visible runs only.
func TestRunUpdatedSubscription(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		c := e.login("alice")
		qa := e.seedQueued(e.repoA, "")
		qb := e.seedQueued(e.repoB, "")
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		ws, _, err := websocket.Dial(ctx, strings.Replace(e.srv.URL, "http", "ws", 1)+"/graphql",
			&websocket.DialOptions{HTTPClient: c.hc, Subprotocols: []string{"graphql-transport-ws"}})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		send := func(v any) {
			if err := wsjson.Write(ctx, ws, v); err != nil {
				t.Fatal(err)
			}
		}
		type msg struct {
			Type    string          `json:"type"`
			ID      string          `json:"id"`
			Payload json.RawMessage `json:"payload"`
		}
		recv := func() msg {
			for {
				var m msg
				if err := wsjson.Read(ctx, ws, &m); err != nil {
					t.Fatal(err)
				}
				if m.Type != "ping" && m.Type != "pong" && m.Type != "ka" {
					return m
				}
			}
		}
		send(map[string]any{"type": "connection_init"})
		if m := recv(); m.Type != "connection_ack" {
			t.Fatalf("init: %+v", m)
		}
		send(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": `subscription { runUpdated { id status } }`}})
		time.Sleep(300 * time.Millisecond)
		// B changes first (alice cannot see it), then A.
		for _, id := range []int{qb.ID, qa.ID} {
			if err := runstate.Transition(ctx, db.Client, id, runstate.Change{From: runstate.Active, To: run.StatusCancelled, Message: "x"}); err != nil {
				t.Fatal(err)
			}
		}
		// Updates arrive for A (its creation just before subscribing may come
		// first); never for B.
		want := struct{ ID, Status string }{itoa(qa.ID), "cancelled"}
		for i := 0; ; i++ {
			m := recv()
			var p struct {
				Data struct{ RunUpdated struct{ ID, Status string } }
			}
			json.Unmarshal(m.Payload, &p) //nolint:errcheck
			if m.Type != "next" || p.Data.RunUpdated.ID == itoa(qb.ID) {
				t.Fatalf("update %d: %s %s", i, m.Type, m.Payload)
			}
			if cmp.Equal(p.Data.RunUpdated, want) {
				break
			}
			if i > 3 {
				t.Fatalf("no cancellation of %d delivered; last %s", qa.ID, m.Payload)
			}
		}
	})
}

// TestSubscriptionNeedsLogin: an anonymous websocket is refused at init.
func TestSubscriptionNeedsLogin(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ws, _, err := websocket.Dial(ctx, strings.Replace(e.srv.URL, "http", "ws", 1)+"/graphql",
			&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		wsjson.Write(ctx, ws, map[string]any{"type": "connection_init"}) //nolint:errcheck
		var m map[string]any
		err = wsjson.Read(ctx, ws, &m)
		if err == nil && m["type"] == "connection_ack" {
			t.Fatalf("anonymous websocket acknowledged: %v", m)
		}
	})
}

// TestStatus: workers with liveness and held work, queue depth and oldest age.
func TestStatus(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		now := time.Now()
		db.Worker.Create().SetWorkerID("w-alive").SetHeartbeatAt(now).SaveX(ctx)
		db.Worker.Create().SetWorkerID("w-dead").SetHeartbeatAt(now.Add(-5 * time.Minute)).SaveX(ctx)
		old := e.seedQueued(e.repoA, "")
		db.Run.UpdateOneID(old.ID).SetStatus(run.StatusDispatched).SetLeaseOwner("w-alive").ExecX(ctx)
		db.Run.Create().SetRepository(e.repoA).SetReviewer(e.revSec).SetTrigger(run.TriggerLabel).SetPrNumber(1).
			SetHeadSha("q").SetCreatedAt(now.Add(-10 * time.Minute)).SaveX(ctx)
		ev := e.seedFailedEvent("acme/api")
		db.WebhookEvent.UpdateOneID(ev.ID).SetStatus("processing").SetLeaseOwner("w-alive").ExecX(ctx)
		e.seedFailedEvent("acme/api")

		r := e.login("carol").do(`{ status { failedWebhooks
			workers { worker { workerID } alive heldRuns heldEvents }
			runQueues { status count oldestAgeSeconds } webhookQueues { status count } } }`, nil)
		r.ok(t)
		var d struct {
			Status struct {
				FailedWebhooks int
				Workers        []struct {
					Worker               struct{ WorkerID string }
					Alive                bool
					HeldRuns, HeldEvents int
				}
				RunQueues []struct {
					Status           string
					Count            int
					OldestAgeSeconds *float64
				}
				WebhookQueues []struct {
					Status string
					Count  int
				}
			}
		}
		r.into(t, &d)
		s := d.Status
		if s.FailedWebhooks != 1 || len(s.Workers) != 2 {
			t.Fatalf("status: %s", r.raw)
		}
		w0, w1 := s.Workers[0], s.Workers[1]
		if w0.Worker.WorkerID != "w-alive" || !w0.Alive || w0.HeldRuns != 1 || w0.HeldEvents != 1 || w1.Alive || w1.HeldRuns != 0 {
			t.Errorf("workers: %+v", s.Workers)
		}
		q := s.RunQueues[0]
		if q.Status != "queued" || q.Count != 1 || q.OldestAgeSeconds == nil || *q.OldestAgeSeconds < 590 {
			t.Errorf("queued: %+v", q)
		}
		if s.RunQueues[1].Status != "dispatched" || s.RunQueues[1].Count != 1 || s.WebhookQueues[1].Count != 1 {
			t.Errorf("queues: %s", r.raw)
		}
	})
}

// TestStatusContentBudgets: the Status page shows each installation's
// content budget as the workers pace by it: a full budget allows a new
// review now; once reviews under way spent the minute's burst, the minute
// window has (next to) nothing left, the hour's the rest of its burst, and
// a new review waits.
func TestStatusContentBudgets(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		type window struct{ Seconds, Limit, Available int }
		var d struct {
			Status struct {
				Installations  []struct{ AccountLogin string }
				ContentBudgets []struct {
					Installation struct{ AccountLogin string }
					Windows      []window
					NewReviewsAt *time.Time
				}
			}
		}
		query := func() {
			t.Helper()
			r := e.login("carol").do(`{ status { installations { accountLogin }
				contentBudgets { installation { accountLogin } windows { seconds limit available } newReviewsAt } } }`, nil)
			r.ok(t)
			r.into(t, &d)
			if len(d.Status.ContentBudgets) != 1 || d.Status.ContentBudgets[0].Installation.AccountLogin != "acme" {
				t.Fatalf("content budgets: %s", r.raw)
			}
		}
		query()
		full := d.Status.ContentBudgets[0]
		if diff := cmp.Diff([]window{{60, 80, 10}, {3600, 500, 62}}, full.Windows); diff != "" || full.NewReviewsAt != nil {
			t.Fatalf("a full budget (-want +got):\n%s\nnew reviews at %v, want now", diff, full.NewReviewsAt)
		}
		b := ghwrite.NewDBBudget(db, ghwrite.GitHubWindows)
		start := time.Now()
		for i := range 10 {
			if wait, _, err := b.Admit(ctx, e.inst.GithubID, ghwrite.Finishing, time.Now()); err != nil || wait > 0 {
				t.Fatalf("write %d of the burst: wait %v err %v", i+1, wait, err)
			}
		}
		query()
		// The minute window gives one write back per refill (every 60/70 s).
		spent := d.Status.ContentBudgets[0]
		if len(spent.Windows) != 2 || spent.Windows[0].Available > int(time.Since(start)/(time.Minute/70)) || spent.Windows[1].Available != 52 {
			t.Fatalf("after 10 writes: %+v", spent.Windows)
		}
		if spent.NewReviewsAt == nil || !spent.NewReviewsAt.After(start) {
			t.Fatalf("a new review may start at %v with the minute's burst spent", spent.NewReviewsAt)
		}
	})
}
