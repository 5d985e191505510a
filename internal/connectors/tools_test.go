package connectors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/gh/ghtest"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

type env struct {
	db   *store.DB
	reg  *Registry
	inst *ent.Installation
	cred *Credentials
}

func newEnv(t *testing.T, db *store.DB, github GitHub, ghInst int64) *env {
	ctx := context.Background()
	s, _ := NewSealer(key(3))
	e := &env{db: db, cred: &Credentials{DB: db.Client, Sealer: s}}
	e.inst = db.Installation.Create().SetGithubID(ghInst).SetAccountLogin("acme").SaveX(ctx)
	var err error
	e.reg, err = New(Config{DB: db.Client, Log: slog.New(slog.DiscardHandler), Credentials: e.cred, GitHub: github, AllowPlainHTTP: true, AllowLoopback: true, MaxOutputBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) scope(c reviewerconfig.Config) Scope {
	return Scope{InstallationID: e.inst.ID, GitHubInstallationID: e.inst.GithubID, Repo: "acme/widget", Config: c}
}

func call(t *testing.T, e *env, s Scope, name, input string) runnerproto.ToolResponse {
	t.Helper()
	resp, err := e.reg.Call(context.Background(), s, name, json.RawMessage(input))
	if err != nil {
		t.Fatalf("Call(%s): %v", name, err)
	}
	return resp
}

func TestHTTPConnector(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var evilHits atomic.Int32
		evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			evilHits.Add(1)
			io.WriteString(w, `{"stolen":"`+r.Header.Get("Authorization")+`"}`)
		}))
		defer evil.Close()
		var seenAuth atomic.Value
		api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seenAuth.Store(r.Header.Get("Authorization"))
			switch {
			case r.URL.Path == "/issue/PROJ-1":
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"key":"PROJ-1","summary":"login broken","leak":"token ghp_abcdefghijklmnopqrstuvwxyz0123"}`)
			case r.URL.Path == "/issue/MOVED-1":
				http.Redirect(w, r, "/issue/PROJ-1", http.StatusFound)
			case r.URL.Path == "/issue/AWAY-1":
				http.Redirect(w, r, evil.URL+"/steal", http.StatusFound)
			case r.URL.Path == "/issue/BIG-1":
				io.WriteString(w, strings.Repeat("a", 20000))
			default:
				http.NotFound(w, r)
			}
		}))
		defer api.Close()

		e := newEnv(t, db, nil, 1)
		if err := e.cred.Set(ctx, e.inst.ID, "http", "jira", "Bearer jira-secret-value", "admin",
			[]string{strings.TrimPrefix(api.URL, "http://")}); err != nil {
			t.Fatal(err)
		}
		cfg := reviewerconfig.Config{Connectors: []string{"http"}, HTTP: []reviewerconfig.HTTPEndpoint{
			{Name: "jira_issue", Description: "Get a Jira issue", URL: api.URL + "/issue/{key}",
				Params: map[string]string{"key": `[A-Z]+-[0-9]+`}, Header: "Authorization", Credential: "jira"},
			{Name: "jira_elsewhere", URL: evil.URL + "/{key}", Credential: "jira"},
			{Name: "templated_host", URL: "http://{host}/x"},
		}}
		s := e.scope(cfg)
		names := []string{}
		for _, d := range e.reg.Tools(s) {
			names = append(names, d.Name)
		}
		if strings.Join(names, ",") != "http.jira_elsewhere,http.jira_issue" {
			t.Fatalf("tools = %v; an endpoint with a templated host must not be offered", names)
		}

		resp := call(t, e, s, "http.jira_issue", `{"key":"PROJ-1"}`)
		if resp.Error != "" {
			t.Fatalf("error %q", resp.Error)
		}
		if seenAuth.Load() != "Bearer jira-secret-value" {
			t.Fatalf("credential header not sent: %v", seenAuth.Load())
		}
		var out struct {
			Status int
			Body   map[string]string
		}
		json.Unmarshal(resp.Output, &out)
		if out.Status != 200 || out.Body["summary"] != "login broken" {
			t.Fatalf("output %s", resp.Output)
		}
		if strings.Contains(string(resp.Output), "ghp_") {
			t.Fatalf("output not redacted: %s", resp.Output)
		}

		// Same-host redirect is followed.
		if resp := call(t, e, s, "http.jira_issue", `{"key":"MOVED-1"}`); resp.Error != "" || !strings.Contains(string(resp.Output), "PROJ-1") {
			t.Fatalf("same-host redirect: %+v", resp)
		}
		// A redirect to another host is refused and never reached.
		if resp := call(t, e, s, "http.jira_issue", `{"key":"AWAY-1"}`); !strings.Contains(resp.Error, "not its declared host") {
			t.Fatalf("redirect away: %+v", resp)
		}
		// The credential's hosts are the admin's: another declared host gets nothing.
		if resp := call(t, e, s, "http.jira_elsewhere", `{"key":"PROJ-1"}`); !strings.Contains(resp.Error, "may not be sent to") {
			t.Fatalf("credential to another host: %+v", resp)
		}
		if evilHits.Load() != 0 {
			t.Fatal("the undeclared host was reached")
		}
		// Oversized answers are cut.
		if resp := call(t, e, s, "http.jira_issue", `{"key":"BIG-1"}`); !resp.Truncated || len(resp.Output) > 4096 {
			t.Fatalf("big answer: truncated=%v len=%d", resp.Truncated, len(resp.Output))
		}
		for _, c := range []struct{ name, input, want string }{
			{"param pattern", `{"key":"../../admin"}`, "must match"},
			{"path injection", `{"key":"PROJ-1/../../x"}`, "must match"},
			{"missing param", `{}`, "required"},
			{"unknown param", `{"key":"PROJ-1","host":"evil"}`, "unknown parameter"},
			{"not an object", `["PROJ-1"]`, "invalid input"},
		} {
			t.Run(c.name, func(t *testing.T) {
				if resp := call(t, e, s, "http.jira_issue", c.input); !strings.Contains(resp.Error, c.want) {
					t.Fatalf("got %+v, want error containing %q", resp, c.want)
				}
			})
		}
		// Tools not declared by this reviewer are refused.
		for _, name := range []string{"http.other", "github.get_file", "shell.exec", "http.templated_host"} {
			if _, err := e.reg.Call(ctx, s, name, json.RawMessage(`{}`)); !errors.Is(err, ErrNotDeclared) {
				t.Errorf("%s: %v, want ErrNotDeclared", name, err)
			}
		}
		// A reviewer without the endpoint cannot call it, even in the same installation.
		if _, err := e.reg.Call(ctx, e.scope(reviewerconfig.Config{}), "http.jira_issue", json.RawMessage(`{"key":"PROJ-1"}`)); !errors.Is(err, ErrNotDeclared) {
			t.Fatalf("undeclared reviewer: %v", err)
		}
		// Without its credential the endpoint says so.
		e.cred.Delete(ctx, e.inst.ID, "http", "jira")
		if resp := call(t, e, s, "http.jira_issue", `{"key":"PROJ-1"}`); !strings.Contains(resp.Error, "not set") {
			t.Fatalf("missing credential: %+v", resp)
		}
	})
}

func TestHTTPConnectorRefusesPlainHTTPByDefault(t *testing.T) {
	r, _ := New(Config{DB: &ent.Client{}})
	if _, ok := r.httpTool(reviewerconfig.HTTPEndpoint{Name: "x", URL: "http://example.com/{id}"}); ok {
		t.Fatal("plain http endpoint offered")
	}
	if _, ok := r.httpTool(reviewerconfig.HTTPEndpoint{Name: "x", URL: "https://example.com/{id}"}); !ok {
		t.Fatal("https endpoint not offered")
	}
}

func TestGitHubConnector(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		sim := ghsimtest.New(t)
		appID, pem := sim.CreateApp("chakshu")
		sim.CreateOrg("acme")
		sim.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n"})
		sim.CreateRepo("acme", "shared", map[string]string{"docs/policy.md": "# Policy\nNo secrets.\n", "docs/x.md": "x"})
		sim.CreateRepo("acme", "public-elsewhere", map[string]string{"a.md": "a"})
		instID := sim.Install(appID, "acme", []string{"acme/widget", "acme/shared"}, nil)
		apps := ghtest.Apps(t, sim, appID, pem, ghtest.Retry(gh.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}))
		e := newEnv(t, db, apps, instID)
		e.reg.cfg.MaxOutputBytes = DefaultMaxOutput
		for i, n := range []string{"widget", "shared"} {
			db.Repository.Create().SetGithubID(int64(100 + i)).SetOwner("acme").SetName(n).SetFullName("acme/" + n).SetInstallation(e.inst).ExecX(ctx)
		}
		s := e.scope(reviewerconfig.Config{Connectors: []string{"github"}, GitHubRepos: []string{"acme/shared", "acme/public-elsewhere", "globex/tools"}})
		if n := len(e.reg.Tools(s)); n != 3 {
			t.Fatalf("%d github tools, want 3", n)
		}
		resp := call(t, e, s, "github.get_file", `{"repo":"acme/shared","path":"docs/policy.md","ref":"main"}`)
		var f struct{ Content string }
		json.Unmarshal(resp.Output, &f)
		if resp.Error != "" || f.Content != "# Policy\nNo secrets.\n" {
			t.Fatalf("get_file: %+v", resp)
		}
		resp = call(t, e, s, "github.get_file", `{"repo":"acme/shared","path":"docs"}`)
		if resp.Error != "" || !strings.Contains(string(resp.Output), "policy.md") {
			t.Fatalf("get_file dir: %+v %s", resp, resp.Output)
		}
		for _, c := range []struct{ name, tool, input, want string }{
			{"other installation", "github.get_file", `{"repo":"acme/public-elsewhere","path":"a.md"}`, "not one of this installation"},
			{"missing file", "github.get_file", `{"repo":"acme/shared","path":"nope.md"}`, "not found"},
			{"dot dot", "github.get_file", `{"repo":"acme/shared","path":"../x"}`, "without .."},
			{"bad repo", "github.get_file", `{"repo":"acme","path":"x"}`, "owner/name"},
			{"extra field", "github.get_file", `{"repo":"acme/shared","path":"x","token":"y"}`, "invalid input"},
			{"search qualifier", "github.search_issues", `{"query":"bug repo:other/repo"}`, "may not name"},
			{"search org", "github.search_issues", `{"query":"org:evil bug"}`, "may not name"},
			{"issue other installation", "github.get_issue", `{"repo":"acme/public-elsewhere","number":1}`, "not one of this installation"},
		} {
			t.Run(c.name, func(t *testing.T) {
				if resp := call(t, e, s, c.tool, c.input); !strings.Contains(resp.Error, c.want) {
					t.Fatalf("got %+v, want error containing %q", resp, c.want)
				}
			})
		}
		// Issues and pull requests, for real against the simulator.
		sim.CreateBranch("acme/widget", "fix", "main")
		sim.Commit("acme/widget", "fix", map[string]string{"main.go": "package main\n// retry\n"}, "retry")
		pr := sim.OpenPR("acme/widget", "fix", "main", "Retry the payment call", "Fixes the flaky payment timeout.", "alice", false)
		bug := sim.CreateIssue("acme/widget", "Payment timeout", "Payments time out after 30 s.", "bob", "bug")
		sim.Comment("acme/widget", bug, "carol", "Also seen with refunds.")
		sim.Comment("acme/widget", pr, "bob", "Looks right.")
		other := sim.CreateIssue("acme/shared", "Payment policy", "Document payment retries.", "alice")
		sim.CreateIssue("acme/public-elsewhere", "Payment secrets", "payment", "mallory")
		// Another installation of the same app (another org), known to Chakshu.
		sim.CreateOrg("globex")
		sim.CreateRepo("globex", "tools", map[string]string{"a": "a"})
		globexIssue := sim.CreateIssue("globex/tools", "Payment bug at globex", "payment", "gus")
		globexInst := sim.Install(appID, "globex", nil, nil)
		gi := db.Installation.Create().SetGithubID(globexInst).SetAccountLogin("globex").SaveX(ctx)
		db.Repository.Create().SetGithubID(900).SetOwner("globex").SetName("tools").SetFullName("globex/tools").SetInstallation(gi).ExecX(ctx)

		type issueOut struct {
			Repo, Title, State, Author, Body, URL string
			Number                                int
			PullRequest                           bool `json:"pull_request"`
			Labels                                []string
			HeadRef                               string `json:"head_ref"`
			BaseRef                               string `json:"base_ref"`
			Comments                              []map[string]string
		}
		var is issueOut
		resp = call(t, e, s, "github.get_issue", fmt.Sprintf(`{"repo":"acme/widget","number":%d}`, bug))
		if resp.Error != "" || json.Unmarshal(resp.Output, &is) != nil || is.Title != "Payment timeout" || is.PullRequest || is.State != "open" ||
			is.Author != "bob" || strings.Join(is.Labels, ",") != "bug" || len(is.Comments) != 1 || is.Comments[0]["author"] != "carol" ||
			is.Comments[0]["body"] != "Also seen with refunds." || is.Number != bug {
			t.Fatalf("get_issue: %+v %s", resp, resp.Output)
		}
		is = issueOut{}
		resp = call(t, e, s, "github.get_issue", fmt.Sprintf(`{"repo":"acme/widget","number":%d}`, pr))
		if resp.Error != "" || json.Unmarshal(resp.Output, &is) != nil || !is.PullRequest || is.HeadRef != "fix" || is.BaseRef != "main" ||
			len(is.Comments) != 1 || is.Comments[0]["author"] != "bob" {
			t.Fatalf("get_issue of a PR: %+v %s", resp, resp.Output)
		}
		is = issueOut{}
		resp = call(t, e, s, "github.get_issue", fmt.Sprintf(`{"repo":"acme/shared","number":%d}`, other))
		if resp.Error != "" || json.Unmarshal(resp.Output, &is) != nil || is.Title != "Payment policy" || is.Repo != "acme/shared" {
			t.Fatalf("get_issue of another repo of the installation: %+v %s", resp, resp.Output)
		}
		if resp := call(t, e, s, "github.get_issue", `{"repo":"acme/widget","number":99}`); !strings.Contains(resp.Error, "not found") {
			t.Fatalf("missing issue: %+v", resp)
		}
		// A repository of another installation is refused before GitHub is asked,
		// even though the app could read it with that installation's token.
		calls := sim.TotalCalls("GET ")
		for _, in := range []string{fmt.Sprintf(`{"repo":"globex/tools","number":%d}`, globexIssue), `{"repo":"GLOBEX/tools","number":1}`} {
			if resp := call(t, e, s, "github.get_issue", in); !strings.Contains(resp.Error, "not one of this installation") {
				t.Fatalf("issue of another installation %s: %+v", in, resp)
			}
		}
		if resp := call(t, e, s, "github.search_issues", `{"repo":"globex/tools","query":"payment"}`); !strings.Contains(resp.Error, "not one of this installation") {
			t.Fatalf("search in another installation: %+v", resp)
		}
		if n := sim.TotalCalls("GET "); n != calls {
			t.Fatalf("refused calls reached GitHub (%d calls)", n-calls)
		}
		// The globex installation sees its own repository (the scope is the installation, not the app).
		gs := Scope{InstallationID: gi.ID, GitHubInstallationID: globexInst, Repo: "globex/tools", Config: reviewerconfig.Config{Connectors: []string{"github"}, GitHubRepos: []string{"acme/widget"}}}
		if resp := call(t, e, gs, "github.get_issue", fmt.Sprintf(`{"number":%d}`, globexIssue)); resp.Error != "" || !strings.Contains(string(resp.Output), "globex") {
			t.Fatalf("globex's own issue: %+v %s", resp, resp.Output)
		}
		if resp := call(t, e, gs, "github.get_issue", `{"repo":"acme/widget","number":1}`); !strings.Contains(resp.Error, "not one of this installation") {
			t.Fatalf("globex reads acme: %+v", resp)
		}

		type searchOut struct {
			Repo  string
			Total int
			Items []struct {
				Number      int
				Title       string
				PullRequest bool `json:"pull_request"`
			}
		}
		search := func(sc Scope, input string) searchOut {
			t.Helper()
			var out searchOut
			resp := call(t, e, sc, "github.search_issues", input)
			if resp.Error != "" || json.Unmarshal(resp.Output, &out) != nil {
				t.Fatalf("search %s: %+v %s", input, resp, resp.Output)
			}
			return out
		}
		// The run's repository by default: no hit from acme/shared, the
		// uninstalled repository or the other installation.
		got := search(s, `{"query":"payment"}`)
		if got.Repo != "acme/widget" || got.Total != 2 || len(got.Items) != 2 {
			t.Fatalf("search payment: %+v", got)
		}
		for _, it := range got.Items {
			if it.Number != pr && it.Number != bug || it.PullRequest != (it.Number == pr) {
				t.Fatalf("search payment: %+v", got)
			}
		}
		if got := search(s, `{"query":"payment is:issue label:bug state:open"}`); got.Total != 1 || got.Items[0].Number != bug || got.Items[0].Title != "Payment timeout" {
			t.Fatalf("search with qualifiers: %+v", got)
		}
		if got := search(s, `{"query":"refunds"}`); got.Total != 1 || got.Items[0].Number != bug {
			t.Fatalf("search in comments: %+v", got)
		}
		if got := search(s, `{"repo":"acme/shared","query":"payment"}`); got.Repo != "acme/shared" || got.Total != 1 || got.Items[0].Number != other {
			t.Fatalf("search another repo of the installation: %+v", got)
		}
		if got := search(gs, `{"query":"payment"}`); got.Total != 1 || got.Items[0].Number != globexIssue {
			t.Fatalf("globex search: %+v", got)
		}
		for _, q := range []string{`{"query":"payment user:globex"}`, `{"query":"payment (repo:globex/tools)"}`, `{"query":"payment -repo:acme/widget"}`, `{"query":"payment owner:globex"}`} {
			if resp := call(t, e, s, "github.search_issues", q); !strings.Contains(resp.Error, "may not name") {
				t.Fatalf("search %s: %+v", q, resp)
			}
		}

		// Tools without the github connector declared are refused.
		if _, err := e.reg.Call(ctx, e.scope(reviewerconfig.Config{Connectors: []string{"http"}}), "github.get_file", json.RawMessage(`{}`)); !errors.Is(err, ErrNotDeclared) {
			t.Fatalf("undeclared github: %v", err)
		}
	})
}
