package security

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/graph/graphtest"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// world is two installations: acme (acme/api, which alice can write, and
// acme/secret, which only bob can read) and globex (globex/x, which neither
// can read). carol is a configured admin (CHAKSHU_ADMINS). Every entity has
// rows alice may read and rows she may not (secret), each listed by type.
type world struct {
	*graphtest.Env
	acme, globex          *ent.Installation
	api, secret, gx       *ent.Repository
	security, perf, gxRev *ent.Reviewer
	runAPI, runSec, runGx *ent.Run
	secretIDs             map[string][]int // GraphQL type → ids alice may not read
	readableIDs           map[string][]int // GraphQL type → ids alice may read
}

func newWorld(t *testing.T, db *store.DB) *world {
	t.Helper()
	ctx := context.Background()
	w := &world{Env: graphtest.New(t, db, "carol"), secretIDs: map[string][]int{}, readableIDs: map[string][]int{}}
	s := w.Sim
	s.CreateOrg("acme")
	s.CreateOrg("globex")
	for _, u := range []string{"alice", "bob", "carol", "olivia"} {
		s.CreateUser(u)
	}
	s.CreateRepo("acme", "api", map[string]string{"main.go": "package main\n"})
	s.CreateRepo("acme", "secret", map[string]string{"main.go": "package main\n"})
	s.CreateRepo("globex", "x", map[string]string{"main.go": "package main\n"})
	s.SetPermission("acme/api", "alice", "write")
	s.SetPermission("acme/secret", "bob", "read")
	acmeGH := s.Install(w.AppID, "acme", nil, nil)
	globexGH := s.Install(w.AppID, "globex", nil, nil)

	w.acme = db.Installation.Create().SetGithubID(acmeGH).SetAccountLogin("acme").SetAccountID(s.UserID("acme")).SaveX(ctx)
	w.globex = db.Installation.Create().SetGithubID(globexGH).SetAccountLogin("globex").SetAccountID(s.UserID("globex")).SaveX(ctx)
	repo := func(inst *ent.Installation, owner, name string) *ent.Repository {
		return db.Repository.Create().SetGithubID(s.RepoID(owner + "/" + name)).SetOwner(owner).SetName(name).
			SetFullName(owner + "/" + name).SetInstallation(inst).SaveX(ctx)
	}
	w.api, w.secret, w.gx = repo(w.acme, "acme", "api"), repo(w.acme, "acme", "secret"), repo(w.globex, "globex", "x")
	w.security = db.Reviewer.Create().SetName("security").SetInstallation(w.acme).SaveX(ctx)
	w.perf = db.Reviewer.Create().SetName("perf").SetInstallation(w.acme).SaveX(ctx)
	w.gxRev = db.Reviewer.Create().SetName("gx").SetInstallation(w.globex).SaveX(ctx)

	n := 0
	seedRun := func(repo *ent.Repository, rev *ent.Reviewer, title string) (*ent.Run, *ent.Finding, *ent.RunEvent) {
		n++
		r := db.Run.Create().SetRepository(repo).SetReviewer(rev).SetTrigger(run.TriggerComment).SetPrNumber(n).
			SetPrTitle(title).SetHeadSha(strings.Repeat("a", 40)).SetStatus(run.StatusSucceeded).SetCostUsd(0.25).SaveX(ctx)
		f := db.Finding.Create().SetRun(r).SetHiddenID(fmt.Sprint("h", n)).SetPath("internal/" + title + ".go").
			SetSeverity("major").SetTitle(title + " finding").SetBody(title + " body").SaveX(ctx)
		e := db.RunEvent.Create().SetRun(r).SetToStatus("succeeded").SetMessage(title).SaveX(ctx)
		return r, f, e
	}
	var f1, f2, f3 *ent.Finding
	var e1, e2, e3 *ent.RunEvent
	w.runAPI, f1, e1 = seedRun(w.api, w.security, "public")
	w.runSec, f2, e2 = seedRun(w.secret, w.perf, "SECRETTITLE")
	w.runGx, f3, e3 = seedRun(w.gx, w.gxRev, "globexsecret")
	learn := func(inst *ent.Installation, repo *ent.Repository, key string) *ent.ReviewLearning {
		c := db.ReviewLearning.Create().SetInstallation(inst).SetDirective("do " + key).SetDedupeKey(key)
		if repo != nil {
			c.SetRepository(repo)
		}
		return c.SaveX(ctx)
	}
	l1, l2, l3, l4 := learn(w.acme, w.api, "l1"), learn(w.acme, w.secret, "l2"), learn(w.globex, nil, "l3"), learn(w.globex, w.gx, "l4")
	hook := func(inst *ent.Installation, repo string) *ent.WebhookEvent {
		return db.WebhookEvent.Create().SetDeliveryID("d-" + repo).SetEvent("pull_request").SetRepository(repo).SetInstallationID(inst.GithubID).
			SetPayload([]byte(`{"secret":"payload"}`)).SetStatus(webhookevent.StatusFailed).SaveX(ctx)
	}
	h1, h2, h3 := hook(w.acme, "acme/api"), hook(w.acme, "acme/secret"), hook(w.globex, "globex/x")
	// Backtests are read by the installation's admins only (carol): alice
	// reads none, not even acme's.
	bt := func(inst *ent.Installation, repo string) *ent.Backtest {
		return db.Backtest.Create().SetInstallation(inst).SetReviewerName("security").SetReviewersRepo(repo).
			SetPrNumber(1).SetHeadSha(strings.Repeat("b", 40)).SetReport("SECRETREPORT").SaveX(ctx)
	}
	bt1, bt2 := bt(w.acme, "acme/chakshu-reviewers"), bt(w.globex, "globex/chakshu-reviewers")

	// Users and their tokens: alice and bob sign in; bob makes a token.
	w.Login("alice")
	bob := w.Login("bob")
	bob.Token("read")
	var aliceID, bobID int
	for _, u := range db.User.Query().AllX(ctx) {
		switch u.Login {
		case "alice":
			aliceID = u.ID
		case "bob":
			bobID = u.ID
		}
	}
	bobTok := db.APIToken.Query().AllX(ctx)[0]

	w.readableIDs = map[string][]int{
		"Run": {w.runAPI.ID}, "Finding": {f1.ID}, "RunEvent": {e1.ID}, "Repository": {w.api.ID},
		"Installation": {w.acme.ID}, "Reviewer": {w.security.ID, w.perf.ID}, "ReviewLearning": {l1.ID},
		"WebhookEvent": {h1.ID}, "User": {aliceID},
	}
	w.secretIDs = map[string][]int{
		"Run": {w.runSec.ID, w.runGx.ID}, "Finding": {f2.ID, f3.ID}, "RunEvent": {e2.ID, e3.ID},
		"Repository": {w.secret.ID, w.gx.ID}, "Installation": {w.globex.ID}, "Reviewer": {w.gxRev.ID},
		"ReviewLearning": {l2.ID, l3.ID, l4.ID}, "WebhookEvent": {h2.ID, h3.ID}, "User": {bobID},
		"APIToken": {bobTok.ID}, "Backtest": {bt1.ID, bt2.ID},
	}
	return w
}
