package ghsim_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
)

func TestOIDCForgedTokens(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	runs := make(chan ghsim.WorkflowRun, 1)
	f.sim.OnDispatch(func(r ghsim.WorkflowRun) { runs <- r })
	if _, _, err := f.inst.REST.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "widget", "chakshu.yml",
		github.CreateWorkflowDispatchEventRequest{Ref: "main", ReturnRunDetails: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	run := <-runs
	provider, err := oidc.NewProvider(ctx, f.sim.IssuerURL())
	if err != nil {
		t.Fatal(err)
	}
	verify := func(tok string) error {
		_, err := provider.Verifier(&oidc.Config{ClientID: "chakshu"}).Verify(ctx, tok)
		return err
	}
	good, err := f.sim.IssueActionsToken(run.ID, "chakshu")
	if err != nil || verify(good) != nil {
		t.Fatalf("genuine token: %v %v", err, verify(good))
	}
	claims := f.sim.ActionsClaims(run.ID, "chakshu")
	if claims["repository_id"] != itoa(f.sim.RepoID("acme/widget")) || claims["run_id"] != itoa(run.ID) || claims["ref"] != "refs/heads/main" {
		t.Fatalf("claims = %v", claims)
	}
	tests := []struct {
		name string
		edit func(map[string]any)
		opts ghsim.TokenOptions
	}{
		{"expired", func(c map[string]any) { c["exp"] = time.Now().Add(-time.Minute).Unix() }, ghsim.TokenOptions{}},
		{"other audience", func(c map[string]any) { c["aud"] = "someone-else" }, ghsim.TokenOptions{}},
		{"other issuer", func(c map[string]any) { c["iss"] = "https://token.actions.githubusercontent.com" }, ghsim.TokenOptions{}},
		{"wrong key", func(map[string]any) {}, ghsim.TokenOptions{Key: otherKey(t)}},
		{"alg none", func(map[string]any) {}, ghsim.TokenOptions{Alg: "none"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := f.sim.ActionsClaims(run.ID, "chakshu")
			tc.edit(c)
			tok, err := f.sim.IssueTokenWithClaims(c, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if verify(tok) == nil {
				t.Fatal("forged token verified")
			}
		})
	}
	// The runner's request endpoint wants the run's bearer token.
	req, _ := http.NewRequest("GET", run.IDTokenRequestURL+"&audience=chakshu", nil)
	req.Header.Set("Authorization", "bearer not-the-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong request token: %d", resp.StatusCode)
	}
}

func TestExpiredInstallationToken(t *testing.T) {
	s := ghsimtest.New(t)
	s.CreateRepo("acme", "widget", map[string]string{"a": "b\n"})
	appID, _ := s.CreateApp("chakshu")
	tok := s.InstallationToken(s.Install(appID, "acme", nil, nil))
	s.ExpireTokens()
	req, _ := http.NewRequest("GET", s.URL()+"repos/acme/widget", nil)
	req.Header.Set("Authorization", "token "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d", resp.StatusCode)
	}
}
