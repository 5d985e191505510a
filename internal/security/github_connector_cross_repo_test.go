package security

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/connectors"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/gh/ghtest"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestGitHubConnectorCrossRepo: the github connector reads the reviewed
// repository; another repository of the installation only when the
// reviewer's reviewer.yaml lists it under github_repos; and never a private
// repository's content into a run on a public repository, listed or not.
func TestGitHubConnectorCrossRepo(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		sim := ghsimtest.New(t)
		appID, pem := sim.CreateApp("chakshu")
		sim.CreateOrg("acme")
		sim.CreateRepo("acme", "site", map[string]string{"index.md": "public site\n"})
		sim.SetPublic("acme/site", true)
		sim.CreateRepo("acme", "app", map[string]string{"main.go": "package main\n"})
		sim.CreateRepo("acme", "private-infra", map[string]string{"secrets.md": "root password: hunter2\n"})
		sim.CreateRepo("acme", "docs", map[string]string{"policy.md": "# Policy\n"})
		sim.SetPublic("acme/docs", true)
		repos := []string{"acme/site", "acme/app", "acme/private-infra", "acme/docs"}
		ghInst := sim.Install(appID, "acme", repos, nil)
		apps := ghtest.Apps(t, sim, appID, pem, ghtest.Retry(gh.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}))
		inst := db.Installation.Create().SetGithubID(ghInst).SetAccountLogin("acme").SaveX(ctx)
		for i, full := range repos {
			owner, name, _ := strings.Cut(full, "/")
			// Chakshu's own record says nothing about visibility here:
			// the connector must not trust a default.
			db.Repository.Create().SetGithubID(int64(500 + i)).SetOwner(owner).SetName(name).SetFullName(full).SetInstallation(inst).ExecX(ctx)
		}
		reg, err := connectors.New(connectors.Config{DB: db.Client, Log: slog.New(slog.DiscardHandler), GitHub: apps})
		if err != nil {
			t.Fatal(err)
		}
		get := func(runRepo string, listed []string, target, path string) (string, string) {
			t.Helper()
			s := connectors.Scope{InstallationID: inst.ID, GitHubInstallationID: ghInst, Repo: runRepo,
				Config: reviewerconfig.Config{Connectors: []string{"github"}, GitHubRepos: listed}}
			in, _ := json.Marshal(map[string]string{"repo": target, "path": path})
			resp, err := reg.Call(ctx, s, "github.get_file", in)
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			return string(resp.Output), resp.Error
		}
		for _, c := range []struct {
			name, run string
			listed    []string
			target    string
			path      string
			ok        bool
		}{
			{"the reviewed repository", "acme/app", nil, "acme/app", "main.go", true},
			{"the reviewed repository, any case", "acme/app", nil, "ACME/App", "main.go", true},
			{"another repository, not listed", "acme/app", nil, "acme/docs", "policy.md", false},
			{"a private repository, not listed", "acme/app", nil, "acme/private-infra", "secrets.md", false},
			{"listed, private from private", "acme/app", []string{"acme/private-infra"}, "acme/private-infra", "secrets.md", true},
			{"listed, public from public", "acme/site", []string{"acme/docs"}, "acme/docs", "policy.md", true},
			{"listed, private into a public run", "acme/site", []string{"acme/private-infra"}, "acme/private-infra", "secrets.md", false},
			{"private into a public run, not listed", "acme/site", nil, "acme/private-infra", "secrets.md", false},
		} {
			t.Run(c.name, func(t *testing.T) {
				out, errMsg := get(c.run, c.listed, c.target, c.path)
				if c.ok && errMsg != "" {
					t.Fatalf("refused: %s", errMsg)
				}
				if !c.ok && (errMsg == "" || strings.Contains(out, "hunter2") || strings.Contains(out, "Policy")) {
					t.Fatalf("allowed: %s / %s", out, errMsg)
				}
			})
		}
		// The same rule for issues and search.
		s := connectors.Scope{InstallationID: inst.ID, GitHubInstallationID: ghInst, Repo: "acme/site",
			Config: reviewerconfig.Config{Connectors: []string{"github"}, GitHubRepos: []string{"acme/private-infra"}}}
		for tool, in := range map[string]string{
			"github.get_issue":     `{"repo":"acme/private-infra","number":1}`,
			"github.search_issues": `{"repo":"acme/private-infra","query":"password"}`,
		} {
			resp, err := reg.Call(ctx, s, tool, json.RawMessage(in))
			if err != nil || resp.Error == "" || bytes.Contains(resp.Output, []byte("hunter2")) {
				t.Errorf("%s on a private repository from a public run: %+v %v", tool, resp, err)
			}
		}
	})
}

// TestGitHubReposValidatedAtSync: github_repos is checked when the
// reviewer is synced.
func TestGitHubReposValidatedAtSync(t *testing.T) {
	for src, want := range map[string]string{
		"connectors: [github]\ngithub_repos: [acme/docs, acme/infra]\n": "",
		"connectors: [github]\ngithub_repos: [not-a-repo]\n":            "owner/name",
		"github_repos: [acme/docs]\n":                                   "connectors does not list github",
		"connectors: [github]\ngithub_repos: acme/docs\n":               "list",
	} {
		cfg, err := reviewerconfig.ParseReviewerYAML("reviewers/x/reviewer.yaml", []byte(src))
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", src, err)
		case want == "" && strings.Join(cfg.GitHubRepos, ",") != "acme/docs,acme/infra":
			t.Errorf("%q: github_repos = %v", src, cfg.GitHubRepos)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: error %v, want one saying %q", src, err, want)
		}
	}
}
