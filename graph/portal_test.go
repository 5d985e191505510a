package graph

import (
	"testing"

	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestGitHubWebURL: signed-in viewers (sessions and tokens) read GitHub's web
// base for the links the portal builds; anonymous callers do not.
func TestGitHubWebURL(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		q := `{ githubWebURL }`
		if code := e.anon().do(q, nil).code(); code != string(CodeUnauthenticated) {
			t.Errorf("anonymous: %s, want %s", code, CodeUnauthenticated)
		}
		alice := e.login("alice")
		for _, c := range []*client{alice, alice.token("read"), e.login("carol")} {
			r := c.do(q, nil)
			r.ok(t)
			var d struct{ GithubWebURL string }
			r.into(t, &d)
			if d.GithubWebURL != e.sim.WebURL() {
				t.Errorf("%s: githubWebURL = %q, want the simulator's web base %q", c.who, d.GithubWebURL, e.sim.WebURL())
			}
		}
	})
}

// TestWebBase: the configured web base wins (the sandbox points it at the
// simulator's pages); otherwise it is derived from the API base.
func TestWebBase(t *testing.T) {
	cases := []struct{ api, web, want string }{
		{"https://api.github.com/", "", "https://github.com"},
		{"https://ghe.example/api/v3/", "", "https://ghe.example"},
		{"http://127.0.0.1:9/api/v3/", "http://127.0.0.1:9/sim/", "http://127.0.0.1:9/sim"},
	}
	for _, c := range cases {
		if got := webBase(Config{Settings: Settings{GitHubURL: c.api}, GitHubWebURL: c.web}); got != c.want {
			t.Errorf("webBase(%q, %q) = %q, want %q", c.api, c.web, got, c.want)
		}
	}
	// A sandbox pull request page parses against that base.
	ref, err := ParsePRURL("http://127.0.0.1:9/sim/acme/payments-api/pull/3", "http://127.0.0.1:9/sim")
	if err != nil || ref != (PullRequestRef{Owner: "acme", Repo: "payments-api", Number: 3}) {
		t.Errorf("sandbox PR URL: %+v %v", ref, err)
	}
}
