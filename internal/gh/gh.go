// Package gh builds GitHub clients for the App and its installations: go-github
// for REST and githubv4 for GraphQL, over a transport that retries what GitHub
// asks to be retried. Only base URLs change between GitHub.com, GitHub
// Enterprise Server and the simulator.
package gh

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v88/github"
	"github.com/shurcooL/githubv4"
)

// Config says which App to act as and where GitHub is.
type Config struct {
	AppID      int64
	PrivateKey []byte
	// BaseURL is the REST base, with a trailing slash (https://api.github.com/).
	BaseURL string
	// GraphQLURL is the GraphQL endpoint.
	GraphQLURL string
	// Transport under the retries; nil means http.DefaultTransport.
	Transport http.RoundTripper
	// Retry shapes the retries; zero values take the production defaults.
	Retry RetryPolicy
}

// Apps hands out clients. Installation clients are cached and refresh their
// tokens on their own.
type Apps struct {
	cfg  Config
	base http.RoundTripper // retrying transport

	mu    sync.Mutex
	insts map[string]*Installation // by installation id and scope
}

// Installation holds the clients of one installation.
type Installation struct {
	ID      int64
	REST    *github.Client
	GraphQL *githubv4.Client
	// HTTP is an authenticated client for calls go-github does not wrap.
	HTTP *http.Client
	// Token returns a current installation token (for the connector and checkout needs).
	Token func(ctx context.Context) (string, error)

	st *scopedTransport
}

// New validates cfg and returns the client factory.
func New(cfg Config) (*Apps, error) {
	if cfg.AppID == 0 || len(cfg.PrivateKey) == 0 {
		return nil, fmt.Errorf("github: app id and private key are required")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://api.github.com/"
	}
	if !strings.HasSuffix(cfg.BaseURL, "/") {
		cfg.BaseURL += "/"
	}
	if cfg.Transport == nil {
		cfg.Transport = http.DefaultTransport
	}
	a := &Apps{cfg: cfg, insts: map[string]*Installation{}}
	a.base = &RetryTransport{Base: cfg.Transport, Policy: cfg.Retry.withDefaults()}
	// Fail early on a bad key rather than at the first webhook.
	if _, err := ghinstallation.NewAppsTransport(a.base, cfg.AppID, cfg.PrivateKey); err != nil {
		return nil, fmt.Errorf("github: private key: %w", err)
	}
	return a, nil
}

func (a *Apps) restClient(hc *http.Client) *github.Client {
	return NewREST(hc, a.cfg.BaseURL)
}

// NewREST returns a go-github client on hc with base as its REST (and upload) base.
func NewREST(hc *http.Client, base string) *github.Client {
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	upload := base
	if base == "https://api.github.com/" {
		upload = "https://uploads.github.com/"
	}
	c, err := github.NewClient(github.WithHTTPClient(hc), github.WithURLs(&base, &upload), github.WithDisableRateLimitCheck())
	if err != nil {
		panic(err) // base was validated by the caller
	}
	return c
}

// App returns a client authenticated as the App itself (JWT).
func (a *Apps) App() *github.Client {
	tr, _ := ghinstallation.NewAppsTransport(a.base, a.cfg.AppID, a.cfg.PrivateKey)
	tr.BaseURL = strings.TrimSuffix(a.cfg.BaseURL, "/")
	return a.restClient(&http.Client{Transport: tr, Timeout: 60 * time.Second})
}

// Installation returns the clients of installation id, authenticated with
// a token narrowed to ScopeDefault.
func (a *Apps) Installation(id int64) (*Installation, error) {
	return a.InstallationFor(id, ScopeDefault)
}

// InstallationFor returns the clients of installation id whose token carries
// exactly scope (or what the installation grants of it). Every token Chakshu
// mints is narrowed to the operation using it.
func (a *Apps) InstallationFor(id int64, scope Scope) (*Installation, error) {
	key := fmt.Sprintf("%d/%s", id, scope)
	a.mu.Lock()
	defer a.mu.Unlock()
	if in, ok := a.insts[key]; ok {
		return in, nil
	}
	st, err := a.newScoped(id, scope)
	if err != nil {
		return nil, err
	}
	hc := &http.Client{Transport: st, Timeout: 60 * time.Second}
	in := &Installation{
		ID:      id,
		REST:    a.restClient(hc),
		GraphQL: githubv4.NewEnterpriseClient(a.cfg.GraphQLURL, hc),
		HTTP:    hc,
		Token:   st.Token,
		st:      st,
	}
	a.insts[key] = in
	return in, nil
}

// Regrant makes every token of installation id ask for its full scope again
// at its next use: the owner accepted the App's new permissions
// (installation event, action new_permissions_accepted), so a token cut down
// to what was granted before need not wait out regrantAfter.
func (a *Apps) Regrant(id int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, in := range a.insts {
		if in.ID == id {
			in.st.regrant()
		}
	}
}

// ShortSHA is a commit's first seven characters, as GitHub shows it.
func ShortSHA(sha string) string { return sha[:min(len(sha), 7)] }
