package graph

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent/auditentry"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

const setBudgetM = `mutation($i: ID!, $r: ID, $d: Float!, $m: Float!) { setBudget(input: {installationID: $i, repositoryID: $r, dailyUsd: $d, monthlyUsd: $m}) { scope name dailyUsd monthlyUsd spentTodayUsd spentThisMonthUsd dailyResetsAt } }`

// Budgets: admins of the installation set them (recorded in the audit log);
// the budgets query shows them with spend read from the rollup; others are
// refused, and bad amounts are invalid.
func TestBudgetsSetAndShown(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		e.seedRun(e.repoA, e.revSec, 1, run.StatusSucceeded, 1.25, 1000, 0)
		e.seedRun(e.repoB, e.revSec, 2, run.StatusSucceeded, 0.5, 1000, 0)
		carol, alice := e.login("carol"), e.login("alice")

		if r := alice.do(setBudgetM, map[string]any{"i": e.inst.ID, "d": 5, "m": 50}); r.code() != "FORBIDDEN" {
			t.Fatalf("a writer set a budget: %s %s", r.code(), r.raw)
		}
		for _, bad := range []float64{-0.01, 1_000_000.01} {
			if r := carol.do(setBudgetM, map[string]any{"i": e.inst.ID, "d": bad, "m": 0}); r.code() != "INVALID" {
				t.Fatalf("budget %v: %s %s", bad, r.code(), r.raw)
			}
		}
		var got struct {
			SetBudget struct {
				Scope                                                  string
				Name                                                   string
				DailyUsd, MonthlyUsd, SpentTodayUsd, SpentThisMonthUsd float64
				DailyResetsAt                                          time.Time
			}
		}
		carol.do(setBudgetM, map[string]any{"i": e.inst.ID, "d": 1_000_000, "m": 0}).into(t, &got) // the largest allowed
		carol.do(setBudgetM, map[string]any{"i": e.inst.ID, "d": 5, "m": 50}).into(t, &got)
		b := got.SetBudget
		if b.Scope != "INSTALLATION" || b.Name != "acme" || b.DailyUsd != 5 || b.MonthlyUsd != 50 || b.SpentTodayUsd != 1.75 || b.SpentThisMonthUsd != 1.75 {
			t.Fatalf("installation budget: %+v", b)
		}
		if !b.DailyResetsAt.After(time.Now()) || b.DailyResetsAt.After(time.Now().Add(24*time.Hour)) || b.DailyResetsAt.UTC().Hour() != 0 {
			t.Fatalf("daily reset %v", b.DailyResetsAt)
		}
		carol.do(setBudgetM, map[string]any{"i": e.inst.ID, "r": e.repoA.ID, "d": 1, "m": 0}).into(t, &got)
		if b := got.SetBudget; b.Scope != "REPOSITORY" || b.Name != "acme/api" || b.SpentTodayUsd != 1.25 || b.MonthlyUsd != 0 {
			t.Fatalf("repository budget: %+v", b)
		}
		if db.Repository.GetX(ctx, e.repoA.ID).BudgetDailyUsd != 1 || db.Installation.GetX(ctx, e.inst.ID).BudgetMonthlyUsd != 50 {
			t.Fatal("budgets not stored")
		}

		// The budgets query: carol (admin) sees the installation and acme/api;
		// bob (reads acme/api and acme/secret, admin of nothing) only the repository.
		const q = `{ budgets { scope name dailyUsd spentTodayUsd } }`
		if r := carol.do(q, nil); !strings.Contains(r.raw, `"name":"acme"`) || !strings.Contains(r.raw, `"name":"acme/api","dailyUsd":1,"spentTodayUsd":1.25`) {
			t.Fatalf("admin's budgets: %s", r.raw)
		}
		if r := e.login("bob").do(q, nil); strings.Contains(r.raw, `"name":"acme"`) || !strings.Contains(r.raw, `"name":"acme/api"`) {
			t.Fatalf("reader's budgets: %s", r.raw)
		}

		entries := db.AuditEntry.Query().Where(auditentry.Action("budget.set")).Order(auditentry.ByID()).AllX(ctx)
		if len(entries) != 3 || entries[0].Actor != "carol" || entries[0].InstallationID != e.inst.ID ||
			entries[1].Detail != "daily $1000000.00 → $5.00, monthly none → $50.00" || entries[2].Target != "repository acme/api" {
			t.Fatalf("audit entries: %+v", entries)
		}
	})
}

// The audit log: actions write entries in their own transaction; admins
// read them paged and filtered; an org owner sees only their installation's;
// others are refused.
func TestAuditLog(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		e.sim.SetOrgRole("acme", "alice", "admin") // an owner of acme: admin of its installation only
		db.Installation.UpdateOne(e.inst).SetAccountID(e.sim.UserID("acme")).ExecX(ctx)
		carol, alice, bob := e.login("carol"), e.login("alice"), e.login("bob")

		r := e.seedQueued(e.repoA, "bob")
		carol.do(`mutation($id: ID!) { cancelRun(id: $id) { status } }`, map[string]any{"id": r.ID}).ok(t)
		ev := e.seedFailedEvent("acme/api")
		carol.do(`mutation($id: ID!) { retryWebhookEvent(id: $id) { status } }`, map[string]any{"id": ev.ID}).ok(t)
		var tok struct {
			CreateAPIToken struct{ APIToken struct{ ID string } }
		}
		alice.do(`mutation { createAPIToken(input: {name: "grafana", scope: read}) { apiToken { id } } }`, nil).into(t, &tok)
		alice.do(`mutation($id: ID!) { revokeAPIToken(id: $id) { id } }`, map[string]any{"id": tok.CreateAPIToken.APIToken.ID}).ok(t)
		carol.do(`mutation($i: ID!) { setConnectorCredential(input: {installationID: $i, connector: "http", name: "jira", secret: "s3cret-value", hosts: ["jira.example.com"]}) { id } }`,
			map[string]any{"i": e.inst.ID}).ok(t)
		// A refused reviewers repository records nothing; an accepted one records old → new.
		if r := carol.do(`mutation($i: ID!) { setReviewersRepository(installation: $i, repository: "evil/bots") { id } }`, map[string]any{"i": e.inst.ID}); r.code() == "OK" {
			t.Fatalf("another account's repository was accepted: %s", r.raw)
		}
		carol.do(`mutation($i: ID!) { setReviewersRepository(installation: $i, repository: "acme/bots") { id } }`, map[string]any{"i": e.inst.ID}).ok(t)
		// Another installation's entry, which alice must not see.
		other := db.Installation.Create().SetGithubID(999).SetAccountLogin("globex").SaveX(ctx)
		db.AuditEntry.Create().SetActor("zed").SetAction("budget.set").SetInstallationID(other.ID).SetTarget("installation globex").ExecX(ctx)

		const q = `query($w: AuditEntryWhereInput, $first: Int, $after: Cursor) { auditLog(first: $first, after: $after, where: $w) { totalCount edges { node { actor action target detail installationID } } pageInfo { hasNextPage endCursor } } }`
		type page struct {
			AuditLog struct {
				TotalCount int
				Edges      []struct {
					Node struct{ Actor, Action, Target, Detail string }
				}
				PageInfo struct {
					HasNextPage bool
					EndCursor   string
				}
			}
		}
		var all page
		carol.do(q, map[string]any{"first": 10}).into(t, &all)
		var actions []string
		for _, ed := range all.AuditLog.Edges {
			actions = append(actions, ed.Node.Actor+" "+ed.Node.Action)
			if strings.Contains(ed.Node.Detail+ed.Node.Target, "s3cret") {
				t.Fatalf("a secret in the audit log: %+v", ed.Node)
			}
		}
		want := "zed budget.set,carol installation.reviewers_repo,carol credential.set,alice token.revoke,alice token.create,carol webhook.retry,carol run.cancel"
		if got := strings.Join(actions, ","); got != want || all.AuditLog.TotalCount != 7 {
			t.Fatalf("audit log, newest first:\n got %s (%d)\nwant %s", got, all.AuditLog.TotalCount, want)
		}
		if all.AuditLog.Edges[6].Node.Target != "acme/api#"+itoa(r.PrNumber)+" run "+itoa(r.ID) {
			t.Fatalf("cancel target %q", all.AuditLog.Edges[6].Node.Target)
		}
		if n := all.AuditLog.Edges[1].Node; n.Target != "installation acme" || n.Detail != "acme/chakshu-reviewers → acme/bots" {
			t.Fatalf("reviewers repository entry: %+v", n)
		}

		// Paged: 4 then 3.
		var p1, p2 page
		carol.do(q, map[string]any{"first": 4}).into(t, &p1)
		carol.do(q, map[string]any{"first": 4, "after": p1.AuditLog.PageInfo.EndCursor}).into(t, &p2)
		if len(p1.AuditLog.Edges) != 4 || !p1.AuditLog.PageInfo.HasNextPage || len(p2.AuditLog.Edges) != 3 || p2.AuditLog.PageInfo.HasNextPage {
			t.Fatalf("pages: %d (%v), %d (%v)", len(p1.AuditLog.Edges), p1.AuditLog.PageInfo.HasNextPage, len(p2.AuditLog.Edges), p2.AuditLog.PageInfo.HasNextPage)
		}
		// Filtered by action and actor.
		var f page
		carol.do(q, map[string]any{"first": 10, "w": map[string]any{"actionHasPrefix": "token.", "actor": "alice"}}).into(t, &f)
		if f.AuditLog.TotalCount != 2 {
			t.Fatalf("filtered: %+v", f.AuditLog)
		}
		// The org owner sees acme's entries only, including what carol did there.
		var own page
		alice.do(q, map[string]any{"first": 10}).into(t, &own)
		for _, ed := range own.AuditLog.Edges {
			if ed.Node.Actor == "zed" {
				t.Fatal("an org owner sees another installation's audit entries")
			}
		}
		if own.AuditLog.TotalCount != 4 { // cancel, retry, credential, reviewers repository (tokens are outside any installation)
			t.Fatalf("org owner's entries: %d %+v", own.AuditLog.TotalCount, own.AuditLog.Edges)
		}
		if r := bob.do(q, map[string]any{"first": 10}); r.code() != "FORBIDDEN" {
			t.Fatalf("a reader read the audit log: %s %s", r.code(), r.raw)
		}
	})
}
