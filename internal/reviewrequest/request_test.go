package reviewrequest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/auditentry"
	"github.com/chakshu-dev/chakshu/ent/hook"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/fault"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/gh/ghtest"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// The use case as the portal calls it: named reviewers read no chakshu.yml,
// an unknown name queues nothing, a bare ask takes the file's defaults, and
// someone without write access or a closed PR is refused with its kind.
func TestRequest(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newRequestWorld(t, db, map[string]string{".github/chakshu.yml": "reviewers: [style]\n"}, "security", "style")
		s, in, inst, repo, n := w.sim, w.gh, w.inst, w.repo, w.pr
		rq := &Requests{DB: db, Access: NewAccess(nil)}
		ask := func(login string, names ...string) (Outcome, error) {
			return rq.Request(ctx, Request{Repo: repo, Inst: inst, GitHub: in.REST, Login: login, Number: n,
				Trigger: reviewerconfig.Trigger{Kind: reviewerconfig.TriggerPortal, Names: names}, RunTrigger: run.TriggerPortal, RefuseUnknown: true})
		}
		const contents = "GET /repos/{owner}/{repo}/contents/{path}"

		_, err := ask("wanda", "security", "bogus")
		if fe, ok := fault.As(err); !ok || fe.Kind != fault.Invalid || fe.Public != "unknown reviewers: bogus" {
			t.Errorf("unknown name: %v", err)
		}
		if c := db.Run.Query().CountX(ctx); c != 0 {
			t.Errorf("an unknown name queues nothing, but %d runs", c)
		}
		if _, err := ask("reed", "security"); !errors.Is(err, ErrNotAllowed) || !fault.Is(err, fault.Forbidden) {
			t.Errorf("read access: %v", err)
		}

		before := s.CallCount(contents)
		out, err := ask("wanda", "security")
		if err != nil || len(out.Created) != 1 || out.Created[0].Trigger != run.TriggerPortal || out.PR.HeadSHA == "" {
			t.Fatalf("named: %+v, %v", out, err)
		}
		if c := s.CallCount(contents) - before; c != 0 {
			t.Errorf("named reviewers read chakshu.yml %d times", c)
		}
		out, err = ask("wanda")
		if err != nil || len(out.Created) != 1 || out.Picked.Reviewers[0].Name != "style" || s.CallCount(contents)-before != 1 {
			t.Errorf("a bare ask takes chakshu.yml's reviewers: %+v, %v", out.Picked, err)
		}
		out, err = ask("wanda", "style", "security")
		if err != nil || len(out.Created) != 0 || len(out.Skipped) != 2 {
			t.Errorf("already queued: %+v, %v", out.Queued, err)
		}

		s.ClosePR("acme/widget", n, "wanda")
		if _, err := ask("wanda", "security"); !errors.Is(err, ErrNotOpen) || !fault.Is(err, fault.Invalid) {
			t.Errorf("closed PR: %v", err)
		}
		if _, err := rq.Request(ctx, Request{Repo: repo, Inst: inst, GitHub: in.REST, Trusted: true, Number: 9999,
			Trigger: reviewerconfig.Trigger{Kind: reviewerconfig.TriggerPortal}}); !fault.Is(err, fault.NotFound) {
			t.Errorf("no such PR: %v", err)
		}
	})
}

// A portal request is audited in the queueing transaction: the entry names
// the reviewers it queued (on PostgreSQL too, where the duplicate's failed
// insert must not abort the transaction), none is written when nothing was
// queued, and a queue that fails leaves neither runs nor an entry, as an
// entry that cannot be written leaves no runs.
func TestRequestAuditedWithTheQueue(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newRequestWorld(t, db, nil, "perf", "security", "style")
		in, inst, repo, n := w.gh, w.inst, w.repo, w.pr
		// Writes that fail on demand: a database refusing the timeline of
		// the second run queued, or the audit entry.
		var failTimeline, failAudit bool
		timelines := 0
		db.RunEvent.Use(func(next ent.Mutator) ent.Mutator {
			return hook.RunEventFunc(func(ctx context.Context, m *ent.RunEventMutation) (ent.Value, error) {
				if failTimeline && m.Op().Is(ent.OpCreate) {
					if timelines++; timelines == 2 {
						return nil, errors.New("disk full")
					}
				}
				return next.Mutate(ctx, m)
			})
		})
		db.AuditEntry.Use(func(next ent.Mutator) ent.Mutator {
			return hook.AuditEntryFunc(func(ctx context.Context, m *ent.AuditEntryMutation) (ent.Value, error) {
				if failAudit {
					return nil, errors.New("disk full")
				}
				return next.Mutate(ctx, m)
			})
		})
		rq := &Requests{DB: db, Access: NewAccess(nil)}
		ask := func(names ...string) (Outcome, error) {
			return rq.Request(ctx, Request{Repo: repo, Inst: inst, GitHub: in.REST, Login: "wanda", Number: n, Audit: true,
				Trigger: reviewerconfig.Trigger{Kind: reviewerconfig.TriggerPortal, Names: names}, RunTrigger: run.TriggerPortal, RefuseUnknown: true})
		}
		entries := func() []string {
			var out []string
			for _, a := range db.AuditEntry.Query().Order(auditentry.ByID()).AllX(ctx) {
				out = append(out, a.Actor+" "+a.Action+" "+a.Target+": "+a.Detail)
			}
			return out
		}
		failTimeline = true
		if _, err := ask("perf", "security"); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Fatalf("a failing queue: %v", err)
		}
		failTimeline = false
		if c := db.Run.Query().CountX(ctx); c != 0 || len(entries()) != 0 {
			t.Fatalf("a failed queue left %d runs and audit entries %q", c, entries())
		}
		failAudit = true
		if _, err := ask("security"); err == nil {
			t.Fatal("a request whose audit entry cannot be written was queued")
		}
		failAudit = false
		if c := db.Run.Query().CountX(ctx); c != 0 {
			t.Fatalf("%d runs queued without their audit entry", c)
		}

		out, err := ask("security")
		if err != nil || len(out.Created) != 1 {
			t.Fatalf("security: %+v, %v", out.Queued, err)
		}
		head := out.PR.HeadSHA[:7]
		// security is still queued: skipped, style queued, in one transaction.
		if out, err := ask("security", "style"); err != nil || len(out.Created) != 1 || len(out.Skipped) != 1 {
			t.Fatalf("security and style: %+v, %v", out.Queued, err)
		}
		if _, err := ask("security", "style"); err != nil { // nothing new: no entry
			t.Fatal(err)
		}
		want := []string{
			fmt.Sprintf("wanda review.request acme/widget#%d at %s: reviewers security", n, head),
			fmt.Sprintf("wanda review.request acme/widget#%d at %s: reviewers style", n, head),
		}
		if got := entries(); !slices.Equal(got, want) {
			t.Fatalf("audit entries:\n got %q\nwant %q", got, want)
		}
		if c := db.Run.Query().CountX(ctx); c != 2 {
			t.Fatalf("%d runs, want 2", c)
		}
	})
}

// requestWorld is an installation on acme/widget (main.go and files) with an
// open PR by wanda (write access; reed has read), and enabled reviewers.
type requestWorld struct {
	sim  *ghsim.Sim
	gh   *gh.Installation
	inst *ent.Installation
	repo *ent.Repository
	pr   int
}

func newRequestWorld(t *testing.T, db *store.DB, files map[string]string, reviewerNames ...string) requestWorld {
	t.Helper()
	ctx := context.Background()
	s := ghsimtest.New(t)
	appID, key := s.CreateApp("chakshu")
	s.CreateOrg("acme")
	all := map[string]string{"main.go": "package main\n"}
	for k, v := range files {
		all[k] = v
	}
	s.CreateRepo("acme", "widget", all)
	s.SetPermission("acme/widget", "wanda", "write")
	s.SetPermission("acme/widget", "reed", "read")
	s.CreateBranch("acme/widget", "feature", "main")
	s.Commit("acme/widget", "feature", map[string]string{"a.go": "package main\n"}, "change")
	n := s.OpenPR("acme/widget", "feature", "main", "Change a.go", "", "wanda", false)
	instID := s.Install(appID, "acme", nil, nil)
	apps := ghtest.Apps(t, s, appID, key)
	in := ghtest.Installation(t, apps, instID)
	inst := db.Installation.Create().SetGithubID(instID).SetAccountLogin("acme").SaveX(ctx)
	repo := db.Repository.Create().SetGithubID(1).SetOwner("acme").SetName("widget").SetFullName("acme/widget").
		SetDefaultBranch("main").SetInstallation(inst).SaveX(ctx)
	for _, name := range reviewerNames {
		db.Reviewer.Create().SetName(name).SetInstallation(inst).SetConfig(new(reviewerconfig.Defaults())).SaveX(ctx)
	}
	return requestWorld{sim: s, gh: in, inst: inst, repo: repo, pr: n}
}
