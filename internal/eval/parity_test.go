package eval

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/job"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestEvalJobIsTheRunnerAPIsJob: for the same reviewer and the same pull
// request facts, `chakshu eval` hands its runner the job the runner API
// hands a dispatched run (internal/job Build): model, forced tool choice,
// cost and turn caps, wall time, samples and agree, rules, skills, files,
// diff and both prompts. Eval once built its job by hand and left out
// samples and agree; this keeps the two from drifting again.
func TestEvalJobIsTheRunnerAPIsJob(t *testing.T) {
	cfg := reviewerconfig.Defaults()
	cfg.Model = "claude-opus-5-5"
	cfg.Samples, cfg.Agree = 3, 2
	cfg.MaxTurns, cfg.MaxCostUSD, cfg.MaxFindings = 17, 1.25, 7
	skills := []runnerproto.Skill{{Name: "authz", Description: "Authorization checks", Content: "# authz\n"}}
	local := reviewerconfig.Local{Name: "security", Config: cfg, ClaudeMD: "# Security rules\nCheck auth.\n", Skills: skills}
	catalog := models.Static(models.Builtin())

	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		sim := ghsimtest.New(t)
		appID, pem := sim.CreateApp("chakshu")
		sim.CreateOrg("acme")
		sim.CreateUser("alice")
		sim.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
		instID := sim.Install(appID, "acme", []string{"acme/widget"}, nil)
		apps, err := gh.New(gh.Config{AppID: appID, PrivateKey: pem, BaseURL: sim.URL(), GraphQLURL: sim.GraphQLURL(),
			Retry: gh.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		// The case's branches as eval names them; a PR without a description, as a corpus case has none.
		sim.CreateBranch("acme/widget", "eval/head", "main")
		sim.Commit("acme/widget", "eval/head", map[string]string{
			"auth/login.go": "package auth\n\nfunc Check(tok, want string) bool {\n\treturn tok == want\n}\n",
			"main.go":       "package main\n\nfunc main() { println(\"hi\") }\n",
		}, "add login")
		n := sim.OpenPR("acme/widget", "eval/head", "main", "Add login", "", "alice", false)

		ins := db.Installation.Create().SetGithubID(instID).SetAccountLogin("acme").SaveX(ctx)
		repo := db.Repository.Create().SetGithubID(sim.RepoID("acme/widget")).SetOwner("acme").SetName("widget").
			SetFullName("acme/widget").SetDefaultBranch("main").SetInstallation(ins).SaveX(ctx)
		stored := make([]map[string]any, len(skills))
		for i, s := range skills {
			stored[i] = map[string]any{"name": s.Name, "description": s.Description, "content": s.Content}
		}
		rv := db.Reviewer.Create().SetName(local.Name).SetInstallation(ins).SetClaudeMd(local.ClaudeMD).
			SetConfig(&cfg).SetSkills(stored).SaveX(ctx)
		rn := db.Run.Create().SetRepository(repo).SetReviewer(rv).SetKind(run.KindReview).SetTrigger(run.TriggerComment).
			SetPrNumber(n).SetHeadSha(sim.PR("acme/widget", n).HeadSHA).SetStatus(run.StatusDispatched).SaveX(ctx)
		rn = db.Run.Query().Where(run.ID(rn.ID)).WithReviewer().
			WithRepository(func(q *ent.RepositoryQuery) { q.WithInstallation() }).OnlyX(ctx)

		const base, token = "http://chakshu.test/api/runner/v1/runs/1", "chkr_token"
		api, err := job.New(job.Config{DB: db.Client, GitHub: apps, Models: catalog}).
			Build(ctx, rn, job.Start{BaseURL: base, RunToken: token, TokenHash: "hash"})
		if err != nil {
			t.Fatal(err)
		}

		// Eval's path, on the same facts: the case at the PR's commits with its diff and files.
		k := &Case{Owner: "acme", Repo: "widget", Number: n, Title: api.PR.Title, URL: api.PR.URL}
		pr := &prRepo{head: api.PR.HeadSHA, base: api.PR.BaseSHA, diff: api.Diff, files: api.Files}
		ev, err := reviewJob(newJobs(catalog), k, pr, local, rn.ID, base, token)
		if err != nil {
			t.Fatal(err)
		}

		if api.Samples != 3 || api.Agree != 2 || api.MaxTurns != 17 || api.MaxCostUSD != 1.25 || api.ForcedToolChoice == nil {
			t.Fatalf("the runner API's job does not carry the reviewer's config: samples %d agree %d turns %d cost %v forced %v",
				api.Samples, api.Agree, api.MaxTurns, api.MaxCostUSD, api.ForcedToolChoice)
		}
		// A corpus case has no author: the one fact eval cannot give.
		api.PR.Author = ""
		api.Prompt = strings.Replace(api.Prompt, "<pr_author>\nalice\n</pr_author>", "<pr_author>\n\n</pr_author>", 1)
		if d := cmp.Diff(api, ev); d != "" {
			t.Errorf("eval's job differs from the runner API's (-api +eval):\n%s", d)
		}
	})
}
