// Package doctor checks a Chakshu configuration end to end — database, App
// key, webhook secret, public URL, each installation's permissions and
// repositories, the reviewers repo and the model upstream — and says how to
// fix each failure.
package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/migrate"
	entreviewer "github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/internal/appmanifest"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/version"
)

// WorkflowPath is where each reviewed repository keeps the workflow.
const WorkflowPath = ".github/workflows/chakshu.yml"

// Config says what to check.
type Config struct {
	// Settings are the settings under test (SettingsFrom).
	Settings Settings
	// DB is the database; nil opens it from Settings (and closes it after).
	DB *store.DB
	// GitHub is the App's client factory; nil builds one from Settings.
	GitHub *gh.Apps
	// HTTP reaches the public URL and the model upstream; nil means a client
	// with Timeout (each request is also bounded by Timeout).
	HTTP *http.Client
	// Timeout bounds each network check; zero means 5 s.
	Timeout time.Duration
	// Workflow is the current template; empty means action.WorkflowTemplate.
	Workflow string
	// Models is the model catalogue; nil reads CHAKSHU_MODEL_CATALOG.
	Models *models.Source
	// Now is the clock of model lifecycles and worker heartbeats; nil means time.Now.
	Now func() time.Time
	// Version is this server's version, which a runner built from source
	// must match; empty means version.Version.
	Version string
}

// Settings are the parts of Chakshu's settings doctor checks.
type Settings struct {
	// DatabaseURL and DataDir locate the database (CHAKSHU_DATABASE_URL, or
	// SQLite in CHAKSHU_DATA_DIR).
	DatabaseURL, DataDir string
	// DeadWorkerAfter is how recent a live worker's heartbeat is; 0 means
	// the default.
	DeadWorkerAfter time.Duration
	// WebhookSecrets are the accepted webhook secrets, newest first.
	WebhookSecrets []string
	// Sandbox is true when no GitHub App is configured.
	Sandbox bool
	// PublicURL is where GitHub and runners reach Chakshu.
	PublicURL string
	// OIDCIssuer is the Actions token issuer.
	OIDCIssuer string
	// OAuthClientID and OAuthClientSecret are the portal's login.
	OAuthClientID, OAuthClientSecret string
	// AppID, AppSlug and PrivateKey are the GitHub App; GitHubURL and
	// GitHubGraphQLURL its API.
	AppID                       int64
	AppSlug                     string
	PrivateKey                  []byte
	GitHubURL, GitHubGraphQLURL string
	// ModelURL and ModelAPIKey are the model gateway's upstream, Providers
	// the providers besides it, ModelCatalog the operator's catalogue file.
	ModelURL, ModelAPIKey string
	Providers             config.Providers
	ModelCatalog          string
}

// SettingsFrom takes doctor's part of a process's configuration.
func SettingsFrom(c *config.Config) Settings {
	return Settings{DatabaseURL: c.DatabaseURL, DataDir: c.DataDir, DeadWorkerAfter: c.DeadWorkerAfter,
		WebhookSecrets: c.WebhookSecrets, Sandbox: c.Sandbox, PublicURL: c.PublicURL, OIDCIssuer: c.OIDCIssuer,
		OAuthClientID: c.OAuthClientID, OAuthClientSecret: c.OAuthClientSecret, AppID: c.AppID, AppSlug: c.AppSlug,
		PrivateKey: c.PrivateKey, GitHubURL: c.GitHubURL, GitHubGraphQLURL: c.GitHubGraphQLURL,
		ModelURL: c.ModelURL, ModelAPIKey: c.ModelAPIKey, Providers: c.Providers, ModelCatalog: c.ModelCatalog}
}

// Check is one line of the report.
type Check struct {
	Name   string
	OK     bool
	Detail string
	// Fix says what to do when the check failed.
	Fix string
	// Info marks a line that is neither a pass nor a failure (a repository
	// not enrolled): OK is true, so it never fails the run.
	Info bool
}

// Status is "ok", "fail" or "info".
func (c Check) Status() string {
	switch {
	case !c.OK:
		return "fail"
	case c.Info:
		return "info"
	}
	return "ok"
}

// Failed counts the failed checks.
func Failed(cs []Check) int {
	n := 0
	for _, c := range cs {
		if !c.OK {
			n++
		}
	}
	return n
}

// Write prints one line per check (and the fix under a failure).
func Write(w io.Writer, cs []Check) {
	for _, c := range cs {
		mark := map[string]string{"ok": "ok  ", "fail": "FAIL", "info": "--  "}[c.Status()]
		line := fmt.Sprintf("%s %s", mark, c.Name)
		if c.Detail != "" {
			line += ": " + c.Detail
		}
		fmt.Fprintln(w, line)
		if !c.OK && c.Fix != "" {
			fmt.Fprintf(w, "     fix: %s\n", c.Fix)
		}
	}
	if n := Failed(cs); n > 0 {
		fmt.Fprintf(w, "%d of %d checks failed\n", n, len(cs))
	} else {
		fmt.Fprintf(w, "all %d checks passed\n", len(cs))
	}
}

type run struct {
	cfg    Config
	s      Settings
	out    []Check
	dbOK   bool
	client *http.Client
}

func (r *run) add(name string, ok bool, detail, fix string) {
	r.out = append(r.out, Check{Name: name, OK: ok, Detail: detail, Fix: fix})
}

func (r *run) info(name, detail string) {
	r.out = append(r.out, Check{Name: name, OK: true, Info: true, Detail: detail})
}

// Run performs every check and returns them in order.
func Run(ctx context.Context, cfg Config) []Check {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Workflow == "" {
		cfg.Workflow = action.WorkflowTemplate
	}
	if cfg.Version == "" {
		cfg.Version = version.Version
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	r := &run{cfg: cfg, s: cfg.Settings, client: cfg.HTTP}
	if r.client == nil {
		r.client = &http.Client{Timeout: cfg.Timeout}
	}
	db := cfg.DB
	if db == nil {
		var err error
		db, err = store.Open(ctx, store.Options{DatabaseURL: r.s.DatabaseURL, DataDir: r.s.DataDir})
		if err != nil {
			r.add("database reachable", false, redact.Error(err), "check CHAKSHU_DATABASE_URL (or CHAKSHU_DATA_DIR for SQLite) and that the database server is up")
			db = nil
		} else {
			defer db.Close()
		}
	}
	if db != nil {
		r.database(ctx, db)
	}
	r.workers(ctx, db) // live.go
	r.webhookSecret()
	r.publicURL(ctx)
	r.oidcIssuer(ctx)  // live.go
	r.oauthClient(ctx) // live.go
	r.github(ctx, db)
	r.model(ctx)
	r.modelsInUse(ctx, db) // models.go
	r.providers(ctx)       // providers.go
	return r.out
}

func (r *run) database(ctx context.Context, db *store.DB) {
	pctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	if err := db.Ping(pctx); err != nil {
		r.add("database reachable", false, redact.Error(err), "check CHAKSHU_DATABASE_URL and that the database server is up")
		return
	}
	r.add("database reachable", true, db.Dialect, "")
	var missing []string
	for _, t := range migrate.Tables {
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = `"` + c.Name + `"`
		}
		q := fmt.Sprintf(`SELECT %s FROM "%s" WHERE 1=0`, strings.Join(cols, ", "), t.Name)
		rows, err := db.SQL.QueryContext(ctx, q)
		if err != nil {
			missing = append(missing, t.Name)
			continue
		}
		rows.Close()
	}
	if len(missing) > 0 {
		r.add("database migrated", false, "missing or older tables: "+strings.Join(missing, ", "), "run `chakshu migrate` (also done at every start of web/worker)")
		return
	}
	r.dbOK = true
	r.add("database migrated", true, fmt.Sprintf("%d tables at the current schema", len(migrate.Tables)), "")
}

func (r *run) webhookSecret() {
	switch {
	case len(r.s.WebhookSecrets) == 0:
		r.add("webhook secret set", false, "CHAKSHU_WEBHOOK_SECRET is empty", "set CHAKSHU_WEBHOOK_SECRET to the secret in the App's settings")
	case !r.s.Sandbox && slices.Contains(r.s.WebhookSecrets, config.SandboxSecret):
		r.add("webhook secret set", false, "the sandbox's well-known secret is accepted", "set CHAKSHU_WEBHOOK_SECRET to a random secret (openssl rand -hex 32) here and in the App's settings")
	case len(r.s.WebhookSecrets[0]) < 16 && !r.s.Sandbox:
		r.add("webhook secret set", false, "shorter than 16 characters", "use a random secret (openssl rand -hex 32) here and in the App's settings")
	default:
		r.add("webhook secret set", true, fmt.Sprintf("%d accepted", len(r.s.WebhookSecrets)), "")
	}
}

func (r *run) publicURL(ctx context.Context) {
	u := strings.TrimRight(r.s.PublicURL, "/") + "/healthz"
	fix := "make CHAKSHU_PUBLIC_URL (" + r.s.PublicURL + ") reach a running `chakshu web` (load balancer, DNS, TLS); GitHub and runners use it"
	resp, err := r.get(ctx, u, nil)
	if err != nil {
		r.add("public URL reachable", false, "GET "+u+": "+redact.Error(err), fix)
		return
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		r.add("public URL reachable", false, fmt.Sprintf("GET %s answered %d", u, resp.StatusCode), fix)
		return
	}
	r.add("public URL reachable", true, u, "")
}

func (r *run) get(ctx context.Context, u string, hdr http.Header) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := r.client.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error { b.cancel(); return b.ReadCloser.Close() }

func (r *run) model(ctx context.Context) {
	u := strings.TrimRight(r.s.ModelURL, "/") + "/v1/models"
	hdr := http.Header{"Anthropic-Version": {"2023-06-01"}}
	if r.s.ModelAPIKey != "" {
		hdr.Set("X-Api-Key", r.s.ModelAPIKey)
	}
	resp, err := r.get(ctx, u, hdr)
	if err != nil {
		r.add("model upstream answering", false, redact.Error(err), "check CHAKSHU_MODEL_URL ("+r.s.ModelURL+") and the network path to it")
		return
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		r.add("model upstream answering", false, fmt.Sprintf("%s refused the key (%d)", r.s.ModelURL, resp.StatusCode), "set CHAKSHU_MODEL_API_KEY to a valid key for CHAKSHU_MODEL_URL")
	case resp.StatusCode >= 500:
		r.add("model upstream answering", false, fmt.Sprintf("%s answered %d", r.s.ModelURL, resp.StatusCode), "the upstream is failing; check its status or CHAKSHU_MODEL_URL")
	default:
		r.add("model upstream answering", true, r.s.ModelURL, "")
	}
}

func (r *run) github(ctx context.Context, db *store.DB) {
	if r.s.Sandbox {
		r.add("GitHub App configured", false, "no CHAKSHU_APP_ID / CHAKSHU_PRIVATE_KEY: sandbox mode", "run `chakshu setup` (or open /setup) to create the App, then point CHAKSHU_CONFIG_FILE at the app.env it writes")
		return
	}
	apps := r.cfg.GitHub
	if apps == nil {
		var err error
		if apps, err = gh.New(gh.Config{AppID: r.s.AppID, PrivateKey: r.s.PrivateKey, BaseURL: r.s.GitHubURL, GraphQLURL: r.s.GitHubGraphQLURL,
			Retry: gh.RetryPolicy{Attempts: 1}}); err != nil {
			r.add("App key valid", false, redact.Error(err), "check CHAKSHU_APP_ID and CHAKSHU_PRIVATE_KEY(_FILE)")
			return
		}
	}
	app, _, err := apps.App().Apps.Get(ctx, "")
	if err != nil {
		r.add("App key valid", false, "GET /app: "+ghError(err), "CHAKSHU_APP_ID must be the App's id and CHAKSHU_PRIVATE_KEY(_FILE) one of its keys (App settings → Private keys → Generate); check the server clock")
		return
	}
	if app.GetSlug() != r.s.AppSlug {
		r.add("App key valid", false, fmt.Sprintf("the key is App %q but CHAKSHU_APP_SLUG is %q", app.GetSlug(), r.s.AppSlug), "set CHAKSHU_APP_SLUG="+app.GetSlug())
	} else {
		r.add("App key valid", true, fmt.Sprintf("App %s (id %d)", app.GetSlug(), app.GetID()), "")
	}
	r.ghes(ctx, apps)
	var insts []*github.Installation
	opt := &github.ListOptions{PerPage: 100}
	for {
		page, resp, err := apps.App().Apps.ListInstallations(ctx, opt)
		if err != nil {
			r.add("installations", false, "GET /app/installations: "+ghError(err), "retry; if it persists check GitHub's status")
			return
		}
		insts = append(insts, page...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	if len(insts) == 0 {
		r.add("installations", false, "the App is installed nowhere", "install it: "+app.GetHTMLURL()+"/installations/new")
		return
	}
	r.add("installations", true, fmt.Sprintf("%d", len(insts)), "")
	for _, in := range insts {
		r.installation(ctx, apps, db, in)
	}
}

func ghError(err error) string {
	var ge *github.ErrorResponse
	if errors.As(err, &ge) && ge.Response != nil {
		return fmt.Sprintf("GitHub answered %d %s", ge.Response.StatusCode, redact.String(ge.Message))
	}
	return redact.Error(err)
}

var levels = map[string]int{"read": 1, "write": 2, "admin": 3}

func (r *run) installation(ctx context.Context, apps *gh.Apps, db *store.DB, in *github.Installation) {
	acct := in.GetAccount().GetLogin()
	name := fmt.Sprintf("installation %s (%d)", acct, in.GetID())
	granted := map[string]string{}
	if b, err := json.Marshal(in.GetPermissions()); err == nil {
		_ = json.Unmarshal(b, &granted)
	}
	var lacking []string
	for _, p := range appmanifest.Permissions {
		if levels[granted[p.Name]] < levels[p.Access] {
			lacking = append(lacking, p.Name+":"+p.Access+" ("+p.Why+")")
		}
	}
	if in.SuspendedAt != nil {
		r.add(name+" active", false, "suspended", "unsuspend the App in "+acct+"'s settings → GitHub Apps")
	}
	if len(lacking) > 0 {
		r.add(name+" permissions", false, "not granted: "+strings.Join(lacking, ", "),
			"grant them in the App's settings → Permissions & events, then have an owner of "+acct+" accept the new permissions (settings → GitHub Apps → Chakshu)")
	} else {
		r.add(name+" permissions", true, "actions, checks, pull requests, contents, issues, members, metadata", "")
	}
	client, err := apps.Installation(in.GetID())
	if err != nil {
		r.add(name+" token", false, redact.Error(err), "check the App key")
		return
	}
	var row *ent.Installation
	if db != nil && r.dbOK {
		row, err = db.Installation.Query().Where(installation.GithubID(in.GetID())).Only(ctx)
		if err != nil && !ent.IsNotFound(err) {
			r.add(name+" recorded", false, redact.Error(err), "check the database")
			return
		}
	}
	revRepo := acct + "/chakshu-reviewers"
	if row != nil {
		revRepo = reviewerconfig.ReviewersRepo(row)
	}
	var repos []*github.Repository
	opt := &github.ListOptions{PerPage: 100}
	for {
		page, resp, err := client.REST.Apps.ListRepos(ctx, opt)
		if err != nil {
			r.add(name+" repositories", false, "GET /installation/repositories: "+ghError(err), "retry; check the installation's repository access")
			return
		}
		repos = append(repos, page.Repositories...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	for _, repo := range repos {
		if strings.EqualFold(repo.GetFullName(), revRepo) {
			continue
		}
		r.workflow(ctx, client, repo)
	}
	r.reviewersRepo(ctx, client, db, row, name, revRepo)
}

func (r *run) reviewersRepo(ctx context.Context, client *gh.Installation, db *store.DB, row *ent.Installation, name, full string) {
	check := "reviewers repo " + full
	owner, repoName, _ := strings.Cut(full, "/")
	if _, _, err := client.REST.Repositories.Get(ctx, owner, repoName); err != nil {
		r.add(check, false, "not found: "+ghError(err), "create "+full+" with reviewers/<name>/reviewer.yaml (docs/reviewers.md) and give the App access to it")
		return
	}
	if db == nil || !r.dbOK {
		r.add(check, false, "sync state unknown: the database check failed", "fix the database first")
		return
	}
	if row == nil {
		r.add(check, false, "the installation is not recorded in the database", "check webhook deliveries reach "+r.s.PublicURL+"/webhooks/github (App settings → Advanced) and that a worker runs")
		return
	}
	if row.LastSyncError != "" {
		r.add(check, false, "last sync failed: "+redact.String(row.LastSyncError), "fix "+full+" (the portal's Reviewers page shows the error); a push re-syncs")
		return
	}
	if row.LastSyncAt == nil {
		r.add(check, false, "never synced", "make sure a `chakshu worker` runs; a push to "+full+" triggers a sync")
		return
	}
	bad, err := db.Reviewer.Query().Where(entreviewer.HasInstallationWith(installation.ID(row.ID)), entreviewer.SyncErrorNEQ("")).All(ctx)
	if err != nil {
		r.add(check, false, redact.Error(err), "check the database")
		return
	}
	if len(bad) > 0 {
		var names []string
		for _, b := range bad {
			names = append(names, b.Name+" ("+redact.String(b.SyncError)+")")
		}
		r.add(check, false, "reviewers with sync errors: "+strings.Join(names, "; "), "fix their files in "+full+"; the last good version stays in force meanwhile")
		return
	}
	n, err := db.Reviewer.Query().Where(entreviewer.HasInstallationWith(installation.ID(row.ID)), entreviewer.Enabled(true)).Count(ctx)
	if err != nil {
		r.add(check, false, redact.Error(err), "check the database")
		return
	}
	if n == 0 {
		r.add(check, false, "synced, but it defines no reviewer", "add reviewers/<name>/reviewer.yaml to "+full)
		return
	}
	r.add(check, true, fmt.Sprintf("%d reviewers synced at %s", n, gh.ShortSHA(row.LastSyncCommit)), "")
}
