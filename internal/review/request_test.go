package review

import (
	"context"
	"errors"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/fault"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/reviewers"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// The use case as the portal calls it: named reviewers read no chakshu.yml,
// an unknown name queues nothing, a bare ask takes the file's defaults, and
// someone without write access or a closed PR is refused with its kind.
func TestRequest(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := ghsim.NewForTest(t)
		appID, key := s.CreateApp("chakshu")
		s.CreateOrg("acme")
		s.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n", ".github/chakshu.yml": "reviewers: [style]\n"})
		s.SetPermission("acme/widget", "wanda", "write")
		s.SetPermission("acme/widget", "reed", "read")
		s.CreateBranch("acme/widget", "feature", "main")
		s.Commit("acme/widget", "feature", map[string]string{"a.go": "package main\n"}, "change")
		n := s.OpenPR("acme/widget", "feature", "main", "Change a.go", "", "wanda", false)
		instID := s.Install(appID, "acme", nil, nil)
		apps, err := gh.New(gh.Config{AppID: appID, PrivateKey: key, BaseURL: s.URL(), GraphQLURL: s.GraphQLURL()})
		if err != nil {
			t.Fatal(err)
		}
		in, err := apps.Installation(instID)
		if err != nil {
			t.Fatal(err)
		}
		inst := db.Installation.Create().SetGithubID(instID).SetAccountLogin("acme").SaveX(ctx)
		repo := db.Repository.Create().SetGithubID(1).SetOwner("acme").SetName("widget").SetFullName("acme/widget").
			SetDefaultBranch("main").SetInstallation(inst).SaveX(ctx)
		for _, name := range []string{"security", "style"} {
			db.Reviewer.Create().SetName(name).SetInstallation(inst).SetConfig(reviewers.Defaults().ToMap()).SaveX(ctx)
		}
		rq := &Requests{DB: db, Access: NewAccess(nil)}
		ask := func(login string, names ...string) (Outcome, error) {
			return rq.Request(ctx, Request{Repo: repo, Inst: inst, GitHub: in.REST, Login: login, Number: n,
				Trigger: reviewers.Trigger{Kind: reviewers.TriggerPortal, Names: names}, RunTrigger: run.TriggerPortal, RefuseUnknown: true})
		}
		const contents = "GET /repos/{owner}/{repo}/contents/{path}"

		_, err = ask("wanda", "security", "bogus")
		if !fault.Is(err, fault.Invalid) || fault.Public(err, "") != "unknown reviewers: bogus" {
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
			Trigger: reviewers.Trigger{Kind: reviewers.TriggerPortal}}); !fault.Is(err, fault.NotFound) {
			t.Errorf("no such PR: %v", err)
		}
	})
}
