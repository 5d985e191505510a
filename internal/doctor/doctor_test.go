package doctor

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/internal/closedport"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/gh/ghtest"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/server"
)

// closedURL is an http URL that refuses connections.
func closedURL(t *testing.T) string {
	return "http://" + closedport.Addr(t)
}

func failed(cs []Check) []string {
	var out []string
	for _, c := range cs {
		if !c.OK {
			out = append(out, c.Name)
		}
	}
	return out
}

func TestDoctor(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		sim := ghsimtest.New(t)
		appID, key := sim.CreateApp("chakshu")
		sim.CreateOrg("acme")
		sim.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n", WorkflowPath: action.WorkflowTemplate})
		sim.CreateRepo("acme", "chakshu-reviewers", map[string]string{"reviewers/docs/reviewer.yaml": "# all defaults\n"})
		instID := sim.Install(appID, "acme", nil, nil)

		row, err := db.Installation.Create().SetGithubID(instID).SetAccountLogin("acme").Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		apps := ghtest.Apps(t, sim, appID, key)
		syncer, err := reviewerconfig.NewSyncer(reviewerconfig.SyncerConfig{DB: db, Clients: apps, Log: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := syncer.Sync(ctx, row.ID); err != nil {
			t.Fatal(err)
		}
		// A worker heartbeating now.
		db.Worker.Create().SetWorkerID("w1").SetVersion("dev").SetHeartbeatAt(time.Now()).ExecX(ctx)
		clientID, clientSecret := sim.AppClientCredentials(appID)
		web := httptest.NewServer(server.Handler(server.Config{Ready: db.Ping}))
		t.Cleanup(web.Close)
		model := httptest.NewServer(scriptedmodel.Handler())
		t.Cleanup(model.Close)

		healthy := func() Settings {
			return Settings{AppID: appID, AppSlug: "chakshu", PrivateKey: key, WebhookSecrets: []string{"a-long-random-webhook-secret"},
				GitHubURL: sim.URL(), GitHubGraphQLURL: sim.GraphQLURL(), PublicURL: web.URL, ModelURL: model.URL, ModelAPIKey: "k",
				OIDCIssuer: sim.IssuerURL(), OAuthClientID: clientID, OAuthClientSecret: clientSecret, DeadWorkerAfter: 90 * time.Second}
		}
		check := func(t *testing.T, cfg Settings, want []string) []Check {
			t.Helper()
			cs := Run(ctx, Config{Settings: cfg, DB: db, Version: "1.4.0"})
			if d := cmp.Diff(want, failed(cs)); d != "" {
				var b bytes.Buffer
				Write(&b, cs)
				t.Fatalf("failed checks (-want +got):\n%s\n%s", d, b.String())
			}
			for _, c := range cs {
				if !c.OK && c.Fix == "" {
					t.Errorf("%s failed without a fix", c.Name)
				}
			}
			return cs
		}
		detail := func(cs []Check, name string) string {
			for _, c := range cs {
				if c.Name == name {
					return c.Detail
				}
			}
			return ""
		}
		inst := "installation acme (" + itoa(instID) + ") permissions"

		t.Run("healthy", func(t *testing.T) {
			cs := check(t, healthy(), nil)
			names := make([]string, len(cs))
			for i, c := range cs {
				names[i] = c.Name
			}
			want := []string{"database reachable", "database migrated", "workers heartbeating", "webhook secret set", "public URL reachable",
				"OIDC issuer " + sim.IssuerURL(), "OAuth client (portal login)", "App key valid",
				"GitHub server", "installations", inst, "workflow acme/widget", "reviewers repo acme/chakshu-reviewers", "model upstream answering", "model claude-sonnet-5-5"}
			if d := cmp.Diff(want, names); d != "" {
				t.Fatalf("checks (-want +got):\n%s", d)
			}
			var b bytes.Buffer
			Write(&b, cs)
			if !strings.Contains(b.String(), "all 15 checks passed") {
				t.Fatalf("report:\n%s", b.String())
			}
		})
		t.Run("not enrolled", func(t *testing.T) {
			// A repository without the workflow is not enrolled: said so, not a failure.
			sim.Commit("acme/widget", "main", map[string]string{WorkflowPath: ""}, "drop the workflow")
			cs := check(t, healthy(), nil)
			if !strings.Contains(detail(cs, "workflow acme/widget"), "not enrolled") {
				t.Fatalf("detail: %q", detail(cs, "workflow acme/widget"))
			}
			var b bytes.Buffer
			Write(&b, cs)
			if !strings.Contains(b.String(), "--   workflow acme/widget: not enrolled") {
				t.Fatalf("report:\n%s", b.String())
			}
			b.Reset()
			if err := WriteJSON(&b, cs); err != nil {
				t.Fatal(err)
			}
			var rep Report
			if err := json.Unmarshal(b.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			var st map[string]string = map[string]string{}
			for _, c := range rep.Checks {
				st[c.Name] = c.Status
			}
			if !rep.OK || rep.Failed != 0 || rep.Total != len(cs) || st["workflow acme/widget"] != "info" || st["database reachable"] != "ok" {
				t.Fatalf("JSON report: %s", b.String())
			}
		})
		t.Run("stale workflow", func(t *testing.T) {
			tpl := action.WorkflowTemplate
			for _, c := range []struct{ name, text, want string }{
				{"wider permissions", strings.Replace(tpl, "contents: read", "contents: write", 1) + "# old\n", "permissions: contents is write, want read"},
				{"extra permission", strings.Replace(tpl, "contents: read", "contents: read\n  pull-requests: write", 1), "pull-requests: write is extra"},
				{"extra trigger", strings.Replace(tpl, "on:\n  workflow_dispatch:", "on:\n  push:\n  workflow_dispatch:", 1), "triggers are push, workflow_dispatch"},
				{"input dropped", strings.Replace(tpl, "      head_sha:\n        description: Head commit to review\n        required: true\n        type: string\n", "", 1), "head_sha missing"},
				{"Node 20 checkout", strings.Replace(tpl, "actions/checkout@df4cb1c069e1874edd31b4311f1884172cec0e10 # v6.0.3", "actions/checkout@v4", 1), "checkout is actions/checkout@v4, a Node 20 action"},
				{"checkout of the PR's current head", strings.Replace(tpl, "ref: ${{ inputs.head_sha }}", "ref: refs/pull/${{ inputs.pr_number }}/head", 1), "checkout with: ref is refs/pull/${{ inputs.pr_number }}/head, want ${{ inputs.head_sha }} (the PR's current head; backtests replay older commits"},
				{"checkout keeps credentials", strings.Replace(tpl, "persist-credentials: false", "persist-credentials: true", 1), "checkout with: persist-credentials is true, want false"},
				{"download unverified", strings.Replace(tpl, "sha256sum --check --status --strict chakshu-action.sha256", "true", 1), "does not check it against the SHA-256"},
				{"runner step changed", strings.Replace(tpl, "CHAKSHU_CHECKOUT: ${{ github.workspace }}/pr", "CHAKSHU_CHECKOUT: ${{ github.workspace }}", 1), "the step running chakshu-action: CHAKSHU_CHECKOUT is"},
				{"runner built from source, no version", oldTemplate, "the runner built from source (chakshu-dev/chakshu/action@main) names no version"},
				{"runner built from source, other version", strings.Replace(oldTemplate, "run-id: ${{ inputs.run_id }}", "run-id: ${{ inputs.run_id }}\n          version: 1.3.9", 1), "is version 1.3.9, but this server is 1.4.0"},
				// Older than run_ids: it still works (one Actions run per
				// reviewer) but costs a job per reviewer.
				{"no run_ids", strings.Replace(tpl, "      run_ids:\n", "      not_run_ids:\n", 1), "run_ids missing"},
				{"run_ids not handed to the runner", strings.Replace(tpl, "          CHAKSHU_RUN_IDS: ${{ inputs.run_ids }}\n", "", 1), "CHAKSHU_RUN_IDS is \"\""},
				{"run_ids not handed to the runner built from source", strings.Replace(fromSourceCurrent, "          run-ids: ${{ inputs.run_ids }}\n", "", 1), "gets run-ids \"\""},
			} {
				if c.text == tpl {
					t.Fatalf("%s: the template changed; update this case", c.name)
				}
				sim.Commit("acme/widget", "main", map[string]string{WorkflowPath: c.text}, c.name)
				cs := check(t, healthy(), []string{"workflow acme/widget"})
				if got := detail(cs, "workflow acme/widget"); !strings.Contains(got, "differs from this version's template") || !strings.Contains(got, c.want) {
					t.Fatalf("%s: detail %q, want %q", c.name, got, c.want)
				}
			}
			// The same meaning in another form is current: CRLF, comments,
			// other key order and quoting.
			sim.Commit("acme/widget", "main", map[string]string{WorkflowPath: strings.ReplaceAll(tpl, "\n", "\r\n")}, "current template, CRLF")
			check(t, healthy(), nil)
			reordered := strings.Replace(tpl, "permissions:\n  id-token: write\n  contents: read\n", "permissions:\n  contents: 'read'   # read only\n  id-token: \"write\"\n", 1)
			if reordered == tpl {
				t.Fatal("the template's permissions block changed; update this case")
			}
			sim.Commit("acme/widget", "main", map[string]string{WorkflowPath: "# our copy\n" + reordered}, "reformatted")
			check(t, healthy(), nil)
			// Pins are not meaning: checkout pinned to a release tag or another
			// commit, and the documented build from source pinned to a release
			// of the server's version, are current.
			for name, text := range map[string]string{
				"checkout tag":             strings.Replace(tpl, "actions/checkout@df4cb1c069e1874edd31b4311f1884172cec0e10", "actions/checkout@v6.0.3", 1),
				"checkout commit":          strings.Replace(tpl, "actions/checkout@df4cb1c069e1874edd31b4311f1884172cec0e10", "actions/checkout@0123456789abcdef0123456789abcdef01234567", 1),
				"from source at a release": fromSourceCurrent,
			} {
				sim.Commit("acme/widget", "main", map[string]string{WorkflowPath: text}, name)
				if cs := check(t, healthy(), nil); detail(cs, "workflow acme/widget") != "current on main" {
					t.Fatalf("%s: %q", name, detail(cs, "workflow acme/widget"))
				}
			}
			sim.Commit("acme/widget", "main", map[string]string{WorkflowPath: tpl}, "back to the template")
		})
		t.Run("OAuth client refused", func(t *testing.T) {
			cfg := healthy()
			cfg.OAuthClientSecret = "not-the-secret"
			cs := check(t, cfg, []string{"OAuth client (portal login)"})
			if !strings.Contains(detail(cs, "OAuth client (portal login)"), "GitHub refuses client") {
				t.Fatal(detail(cs, "OAuth client (portal login)"))
			}
			cfg.OAuthClientID, cfg.OAuthClientSecret = "", ""
			check(t, cfg, []string{"OAuth client (portal login)"})
		})
		t.Run("OIDC issuer wrong", func(t *testing.T) {
			cfg := healthy()
			cfg.OIDCIssuer = web.URL // answers, but serves no discovery document
			check(t, cfg, []string{"OIDC issuer " + web.URL})
			cfg.OIDCIssuer = closedURL(t)
			check(t, cfg, []string{"OIDC issuer " + cfg.OIDCIssuer})
		})
		t.Run("no live worker", func(t *testing.T) {
			// The worker's last heartbeat is 90 s old: at the limit it is
			// alive; one second past it, dead; a stopped worker never counts.
			beat := time.Now().Add(-90 * time.Second)
			db.Worker.Update().SetHeartbeatAt(beat).ExecX(ctx)
			defer db.Worker.Update().SetHeartbeatAt(time.Now()).SetStopped(false).ExecX(ctx)
			at := func(now time.Time) []Check {
				cs := Run(ctx, Config{Settings: healthy(), DB: db, Version: "1.4.0", Now: func() time.Time { return now }})
				return cs
			}
			if f := failed(at(beat.Add(90 * time.Second))); len(f) != 0 {
				t.Fatalf("at the limit: %v", f)
			}
			if d := cmp.Diff([]string{"workers heartbeating"}, failed(at(beat.Add(91*time.Second)))); d != "" {
				t.Fatalf("past the limit (-want +got):\n%s", d)
			}
			db.Worker.Update().SetHeartbeatAt(time.Now()).SetStopped(true).ExecX(ctx)
			check(t, healthy(), []string{"workers heartbeating"})
		})
		t.Run("missing actions permission", func(t *testing.T) {
			perms := ghsim.DefaultPermissions()
			delete(perms, "actions")
			perms["checks"] = "read"
			sim.SetInstallationPermissions(instID, perms)
			defer sim.SetInstallationPermissions(instID, ghsim.DefaultPermissions())
			cs := check(t, healthy(), []string{inst})
			if got := detail(cs, inst); !strings.HasPrefix(got, "not granted: actions:write (start .github/workflows/chakshu.yml") ||
				!strings.Contains(got, ", checks:write (") {
				t.Fatalf("detail: %q", got)
			}
		})
		t.Run("contents write not accepted", func(t *testing.T) {
			perms := ghsim.DefaultPermissions()
			perms["contents"] = "read"
			sim.SetInstallationPermissions(instID, perms)
			defer sim.SetInstallationPermissions(instID, ghsim.DefaultPermissions())
			cs := check(t, healthy(), []string{inst})
			if got := detail(cs, inst); !strings.HasPrefix(got, "not granted: contents:write (resolve Chakshu's own outdated review threads") {
				t.Fatalf("detail: %q", got)
			}
		})
		t.Run("bad key", func(t *testing.T) {
			k, _ := rsa.GenerateKey(rand.Reader, 2048)
			cfg := healthy()
			cfg.PrivateKey = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
			check(t, cfg, []string{"App key valid"})
		})
		t.Run("wrong slug", func(t *testing.T) {
			cfg := healthy()
			cfg.AppSlug = "other"
			cs := check(t, cfg, []string{"App key valid"})
			if !strings.Contains(detail(cs, "App key valid"), `CHAKSHU_APP_SLUG is "other"`) {
				t.Fatal(detail(cs, "App key valid"))
			}
		})
		t.Run("unreachable public URL and model", func(t *testing.T) {
			cfg := healthy()
			cfg.PublicURL, cfg.ModelURL = closedURL(t), closedURL(t)
			check(t, cfg, []string{"public URL reachable", "model upstream answering", "model claude-sonnet-5-5"})
		})
		t.Run("weak webhook secret", func(t *testing.T) {
			cfg := healthy()
			cfg.WebhookSecrets = []string{config.SandboxSecret}
			check(t, cfg, []string{"webhook secret set"})
		})
		t.Run("reviewer sync error", func(t *testing.T) {
			sim.Commit("acme/chakshu-reviewers", "main", map[string]string{"reviewers/docs/reviewer.yaml": "max_findings: lots\n"}, "break it")
			if _, err := syncer.Sync(ctx, row.ID); err == nil {
				t.Log("sync reported no error; the doctor must still see the recorded one")
			}
			check(t, healthy(), []string{"reviewers repo acme/chakshu-reviewers"})
		})
		t.Run("sandbox", func(t *testing.T) {
			cfg := healthy()
			cfg.Sandbox = true
			check(t, cfg, []string{"GitHub App configured"})
		})
	})
}

// GET /meta on Enterprise Server names its version; doctor says which
// behaviours apply and fails on a github.com OIDC issuer.
func TestDoctorEnterpriseServer(t *testing.T) {
	ctx := context.Background()
	sim := ghsimtest.New(t, ghsim.Options{EnterpriseVersion: "3.19.0"})
	appID, key := sim.CreateApp("chakshu")
	apps := ghtest.Apps(t, sim, appID, key)
	issuer := config.DefaultOIDCIssuerFor(sim.URL())
	if issuer != sim.IssuerURL() {
		t.Fatalf("default issuer for %s = %s, want the server's %s", sim.URL(), issuer, sim.IssuerURL())
	}
	for _, tc := range []struct {
		name, issuer string
		ok           bool
	}{{"default issuer", issuer, true}, {"github.com issuer", config.DefaultOIDCIssuer, false}} {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{s: Settings{GitHubURL: sim.URL(), OIDCIssuer: tc.issuer}}
			r.ghes(ctx, apps)
			if len(r.out) != 1 || r.out[0].OK != tc.ok || !strings.Contains(r.out[0].Detail, "Enterprise Server 3.19.0: workflow dispatch without return_run_details") {
				t.Fatalf("checks: %+v", r.out)
			}
		})
	}
	if got := config.DefaultOIDCIssuerFor(config.DefaultGitHubURL); got != config.DefaultOIDCIssuer {
		t.Fatalf("github.com issuer = %s", got)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestDoctorUnmigratedDatabase(t *testing.T) {
	model := httptest.NewServer(scriptedmodel.Handler())
	t.Cleanup(model.Close)
	cfg := Settings{Sandbox: true, DataDir: t.TempDir(), WebhookSecrets: []string{config.SandboxSecret},
		PublicURL: closedURL(t), ModelURL: model.URL}
	cs := Run(context.Background(), Config{Settings: cfg})
	if d := cmp.Diff([]string{"database migrated", "public URL reachable", "GitHub App configured"}, failed(cs)); d != "" {
		t.Fatalf("failed checks (-want +got):\n%s", d)
	}
}

// fromSourceCurrent is the documented build from source (docs/production.md),
// pinned to a release of the server's version.
var fromSourceCurrent = strings.NewReplacer("action@main", "action@v1.4.0",
	"run-id: ${{ inputs.run_id }}", "run-id: ${{ inputs.run_id }}\n          run-ids: ${{ inputs.run_ids }}\n          version: 1.4.0",
	"      pr_number:\n", "      run_ids:\n        required: false\n        type: string\n      pr_number:\n",
	"ref: refs/pull/${{ inputs.pr_number }}/head", "ref: ${{ inputs.head_sha }}").Replace(oldTemplate)

// oldTemplate is the previous wave's workflow: it built the runner from
// Chakshu's source with setup-go and a shared cache.
const oldTemplate = `name: Chakshu
on:
  workflow_dispatch:
    inputs:
      run_id:
        required: true
        type: string
      pr_number:
        required: true
        type: string
      head_sha:
        required: true
        type: string
permissions:
  id-token: write
  contents: read
jobs:
  review:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@df4cb1c069e1874edd31b4311f1884172cec0e10 # v6.0.3
        with:
          ref: refs/pull/${{ inputs.pr_number }}/head
          persist-credentials: false
          path: pr
      - name: Review with Chakshu
        uses: chakshu-dev/chakshu/action@main
        with:
          chakshu-url: ${{ vars.CHAKSHU_URL }}
          run-id: ${{ inputs.run_id }}
`
