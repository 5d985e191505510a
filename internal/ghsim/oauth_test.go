package ghsim_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
)

func TestOAuthWebFlow(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.sim.CreateRepo("acme", "hidden", map[string]string{"a": "b\n"})
	f.sim.AddInstallationRepos(f.instID, "acme/hidden")
	id, secret := f.sim.AppClientCredentials(f.appID)
	conf := &oauth2.Config{ClientID: id, ClientSecret: secret, RedirectURL: "http://127.0.0.1:1/callback",
		Endpoint: oauth2.Endpoint{AuthURL: f.sim.WebURL() + "/login/oauth/authorize", TokenURL: f.sim.WebURL() + "/login/oauth/access_token"}}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(conf.AuthCodeURL("st4te") + "&login=alice")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || loc.Query().Get("state") != "st4te" || loc.Query().Get("code") == "" {
		t.Fatalf("authorize: %d %s", resp.StatusCode, loc)
	}
	tok, err := conf.Exchange(ctx, loc.Query().Get("code"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conf.Exchange(ctx, loc.Query().Get("code")); err == nil {
		t.Error("a code was accepted twice")
	}
	// A GitHub App's user token: ghu_, 8 hours, with a ghr_ refresh token
	// good for 6 months (docs "Refreshing user access tokens").
	if !strings.HasPrefix(tok.AccessToken, "ghu_") || !strings.HasPrefix(tok.RefreshToken, "ghr_") || time.Until(tok.Expiry).Round(time.Minute) != 8*time.Hour ||
		tok.Extra("refresh_token_expires_in") == nil {
		t.Fatalf("token %+v (refresh_token_expires_in %v), want an expiring ghu_ with a ghr_ refresh token", tok, tok.Extra("refresh_token_expires_in"))
	}
	rest := gh.NewREST(conf.Client(ctx, tok), f.sim.URL())
	u, _, err := rest.Users.Get(ctx, "")
	if err != nil || u.GetLogin() != "alice" {
		t.Fatalf("user = %v %v", u, err)
	}
	insts, _, err := rest.Apps.ListUserInstallations(ctx, nil)
	if err != nil || len(insts) != 1 {
		t.Fatalf("installations = %v %v", insts, err)
	}
	repos, _, err := rest.Apps.ListUserRepos(ctx, insts[0].GetID(), nil)
	// alice can write acme/widget but has no access to acme/hidden.
	if err != nil || repos.GetTotalCount() != 1 || repos.Repositories[0].GetFullName() != "acme/widget" || !repos.Repositories[0].GetPermissions().GetPush() {
		t.Fatalf("repos = %+v %v", repos, err)
	}
	if h := f.hooks.of("installation_repositories", "added"); len(h) != 1 {
		t.Errorf("installation_repositories hooks = %d", len(h))
	}
}

func TestManifestConversion(t *testing.T) {
	s := ghsimtest.New(t)
	resp, err := http.Post(s.URL()+"app-manifests/abc123/conversions", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

func TestFaultsAreDeterministic(t *testing.T) {
	outcomes := func() []int {
		s := ghsimtest.New(t, ghsim.Options{Seed: 42})
		s.CreateRepo("acme", "widget", map[string]string{"a": "b\n"})
		appID, _ := s.CreateApp("chakshu")
		tok := s.InstallationToken(s.Install(appID, "acme", nil, nil))
		ghsimtest.InjectFault(s, ghsimtest.Fault{Match: "GET /repos/{owner}/{repo}", Kind: ghsimtest.FaultRateLimit, Rate: 0.5, RetryAfter: 7})
		var out []int
		for i := 0; i < 20; i++ {
			req, _ := http.NewRequest("GET", s.URL()+"repos/acme/widget", nil)
			req.Header.Set("Authorization", "token "+tok)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode == 429 && resp.Header.Get("Retry-After") != "7" {
				t.Errorf("Retry-After = %q", resp.Header.Get("Retry-After"))
			}
			out = append(out, resp.StatusCode)
		}
		return out
	}
	a, b := outcomes(), outcomes()
	n429 := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("runs differ: %v vs %v", a, b)
		}
		if a[i] == 429 {
			n429++
		}
	}
	if n429 == 0 || n429 == len(a) {
		t.Errorf("rate 0.5 gave %d/20 failures", n429)
	}
}

func TestFaultLatency(t *testing.T) {
	s := ghsimtest.New(t)
	ghsimtest.InjectFault(s, ghsimtest.Fault{Match: "GET /oidc*", Kind: ghsimtest.FaultLatency, Latency: 50 * time.Millisecond})
	ghsimtest.InjectFault(s, ghsimtest.Fault{Match: "POST /graphql", Kind: ghsimtest.FaultLatency, Latency: 80 * time.Millisecond})
	start := time.Now()
	resp, err := http.Post(s.GraphQLURL(), "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d := time.Since(start); d < 80*time.Millisecond {
		t.Errorf("latency %v", d)
	}
}

// The refresh grant trades a refresh token for a new pair; the used refresh
// token and the old access token stop working; a used or unknown refresh
// token is answered bad_refresh_token (docs "Refreshing user access tokens").
func TestOAuthRefreshGrant(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id, secret := f.sim.AppClientCredentials(f.appID)
	conf := &oauth2.Config{ClientID: id, ClientSecret: secret, RedirectURL: "http://127.0.0.1:1/callback",
		Endpoint: oauth2.Endpoint{AuthURL: f.sim.WebURL() + "/login/oauth/authorize", TokenURL: f.sim.WebURL() + "/login/oauth/access_token"}}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(conf.AuthCodeURL("s") + "&login=alice")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	first, err := conf.Exchange(ctx, loc.Query().Get("code"))
	if err != nil {
		t.Fatal(err)
	}
	refresh := func(rt string) (*oauth2.Token, error) {
		return conf.TokenSource(ctx, &oauth2.Token{RefreshToken: rt}).Token()
	}
	second, err := refresh(first.RefreshToken)
	if err != nil || second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken || time.Until(second.Expiry).Round(time.Minute) != 8*time.Hour {
		t.Fatalf("refresh: %+v %v, want a new pair", second, err)
	}
	login := func(tok *oauth2.Token) int {
		_, resp, _ := gh.NewREST(conf.Client(ctx, &oauth2.Token{AccessToken: tok.AccessToken}), f.sim.URL()).Users.Get(ctx, "")
		return resp.StatusCode
	}
	if st := login(second); st != 200 {
		t.Fatalf("new access token: %d", st)
	}
	if st := login(first); st != 401 {
		t.Fatalf("old access token after the refresh: %d, want 401", st)
	}
	var re *oauth2.RetrieveError
	if _, err := refresh(first.RefreshToken); !errors.As(err, &re) || re.ErrorCode != "bad_refresh_token" {
		t.Fatalf("a used refresh token: %v, want bad_refresh_token", err)
	}
}
