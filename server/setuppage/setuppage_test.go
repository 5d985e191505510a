package setuppage

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/appmanifest"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/server"
)

type flow struct {
	srv  *httptest.Server
	hc   *http.Client
	dir  string
	sim  *ghsim.Sim
	open bool
}

func newFlow(t *testing.T) *flow {
	t.Helper()
	f := &flow{sim: ghsimtest.New(t), dir: t.TempDir(), open: true}
	h, err := New(Config{PublicURL: "https://chakshu.example.com", GitHubURL: f.sim.URL(), WebURL: f.sim.WebURL(),
		DataDir: f.dir, Allow: func(*http.Request) bool { return f.open }})
	if err != nil {
		t.Fatal(err)
	}
	f.srv = httptest.NewServer(server.Handler(server.Config{Routes: h.Routes()}))
	t.Cleanup(f.srv.Close)
	jar, _ := cookiejar.New(nil)
	f.hc = &http.Client{Jar: jar}
	return f
}

func (f *flow) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := f.hc.Get(f.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

var (
	actionRe   = regexp.MustCompile(`action="([^"]+)"`)
	manifestRe = regexp.MustCompile(`name="manifest" value="([^"]+)"`)
)

func TestManifestFlow(t *testing.T) {
	f := newFlow(t)
	if code, body := f.get(t, "/setup"); code != 200 || !strings.Contains(body, `name="org"`) {
		t.Fatalf("GET /setup: %d, want the organisation form:\n%s", code, body)
	}
	code, body := f.get(t, "/setup?org=acme")
	if code != 200 {
		t.Fatalf("GET /setup?org=acme: %d\n%s", code, body)
	}
	action := html.UnescapeString(actionRe.FindStringSubmatch(body)[1])
	prefix := f.sim.WebURL() + "/organizations/acme/settings/apps/new?state="
	if !strings.HasPrefix(action, prefix) {
		t.Fatalf("form posts to %s, want %s…", action, prefix)
	}
	state := strings.TrimPrefix(action, prefix)
	var m appmanifest.Manifest
	if err := json.Unmarshal([]byte(html.UnescapeString(manifestRe.FindStringSubmatch(body)[1])), &m); err != nil {
		t.Fatal(err)
	}
	if m.RedirectURL != "https://chakshu.example.com/setup/callback" || m.HookAttributes.URL != "https://chakshu.example.com/webhooks/github" ||
		len(m.DefaultPermissions) != 7 || len(m.DefaultEvents) != 6 {
		t.Fatalf("manifest in the form: %+v", m)
	}

	// A forged or replayed answer (wrong state) stores nothing.
	if code, _ := f.get(t, "/setup/callback?code=x&state=forged"); code != http.StatusBadRequest {
		t.Fatalf("callback with a wrong state: %d, want 400", code)
	}
	code, body = f.get(t, "/setup/callback?code=fromgithub&state="+state)
	if code != 200 || !strings.Contains(body, "app.env") {
		t.Fatalf("callback: %d\n%s", code, body)
	}
	env, err := os.ReadFile(filepath.Join(f.dir, "app.env"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CHAKSHU_APP_ID=", "CHAKSHU_APP_SLUG=chakshu-fromgithub", "CHAKSHU_PRIVATE_KEY_FILE=", "CHAKSHU_WEBHOOK_SECRET=",
		"CHAKSHU_OAUTH_CLIENT_ID=", "CHAKSHU_OAUTH_CLIENT_SECRET=", "CHAKSHU_SECRET_KEY=", "CHAKSHU_PUBLIC_URL=https://chakshu.example.com"} {
		if !strings.Contains(string(env), want) {
			t.Errorf("app.env lacks %s:\n%s", want, env)
		}
	}
	if strings.Contains(body, "PRIVATE KEY") {
		t.Fatal("the page shows the private key")
	}
	// The state is single use.
	if code, _ := f.get(t, "/setup/callback?code=again&state="+state); code != http.StatusBadRequest {
		t.Fatalf("second callback with the same state: %d, want 400", code)
	}
}

func TestSetupClosed(t *testing.T) {
	f := newFlow(t)
	f.open = false
	for _, p := range []string{"/setup", "/setup?org=acme", "/setup/callback?code=x&state=y"} {
		if code, _ := f.get(t, p); code != http.StatusForbidden {
			t.Errorf("GET %s when closed: %d, want 403", p, code)
		}
	}
	f.open = true
	if code, _ := f.get(t, "/setup?org=not%20an%20org"); code != http.StatusBadRequest {
		t.Errorf("bad org: %d, want 400", code)
	}
}
