package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	entworker "github.com/chakshu-dev/chakshu/ent/worker"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/server/auth"
)

// maxAnswer bounds what doctor reads of a discovery document, key set or
// token answer.
const maxAnswer = 1 << 20

// workers checks that at least one worker heartbeats: without one nothing
// is dispatched or published, whatever else is right.
func (r *run) workers(ctx context.Context, db *store.DB) {
	if db == nil || !r.dbOK {
		return
	}
	after := r.s.DeadWorkerAfter
	if after <= 0 {
		after = config.DefaultDeadWorkerAfter
	}
	live, err := db.Worker.Query().Where(entworker.Stopped(false), entworker.HeartbeatAtGTE(r.cfg.Now().Add(-after))).All(ctx)
	if err != nil {
		r.add("workers heartbeating", false, redact.Error(err), "check the database")
		return
	}
	if len(live) == 0 {
		r.add("workers heartbeating", false, fmt.Sprintf("no worker has heartbeated in the last %s: nothing is dispatched or published", after),
			"start `chakshu worker` (or `chakshu all`) with this CHAKSHU_DATABASE_URL; a worker that runs but is not seen here does not reach this database")
		return
	}
	versions := map[string]int{}
	for _, w := range live {
		versions[w.Version]++
	}
	var vs []string
	for v, n := range versions {
		vs = append(vs, fmt.Sprintf("%d at %s", n, v))
	}
	sort.Strings(vs)
	r.add("workers heartbeating", true, fmt.Sprintf("%d live (%s)", len(live), strings.Join(vs, ", ")), "")
}

// oidcIssuer reads the Actions OIDC issuer's discovery document and key set,
// as the runner API does to verify a runner's token: the document names the
// same issuer and its jwks_uri serves at least one key.
func (r *run) oidcIssuer(ctx context.Context) {
	if r.s.Sandbox || r.s.OIDCIssuer == "" {
		return // the sandbox's issuer is its simulator, started with the process
	}
	name := "OIDC issuer " + r.s.OIDCIssuer
	fix := "CHAKSHU_OIDC_ISSUER must be the Actions token issuer of your GitHub (github.com: " +
		"https://token.actions.githubusercontent.com; Enterprise Server: https://HOST/_services/token) and reachable from Chakshu"
	u := strings.TrimRight(r.s.OIDCIssuer, "/") + "/.well-known/openid-configuration"
	var disc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := r.getJSON(ctx, u, &disc); err != nil {
		r.add(name, false, "GET "+u+": "+err.Error(), fix)
		return
	}
	if strings.TrimRight(disc.Issuer, "/") != strings.TrimRight(r.s.OIDCIssuer, "/") || disc.JWKSURI == "" {
		r.add(name, false, fmt.Sprintf("the discovery document names issuer %q and jwks_uri %q", disc.Issuer, disc.JWKSURI), fix)
		return
	}
	var keys struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := r.getJSON(ctx, disc.JWKSURI, &keys); err != nil {
		r.add(name, false, "GET "+disc.JWKSURI+": "+err.Error(), fix)
		return
	}
	if len(keys.Keys) == 0 {
		r.add(name, false, disc.JWKSURI+" serves no keys", fix)
		return
	}
	r.add(name, true, fmt.Sprintf("discovery and %d signing keys", len(keys.Keys)), "")
}

func (r *run) getJSON(ctx context.Context, u string, v any) error {
	resp, err := r.get(ctx, u, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return fmt.Errorf("%s", redact.Error(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("answered %d", resp.StatusCode)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(v); err != nil {
		return fmt.Errorf("not JSON: %s", redact.Error(err))
	}
	return nil
}

// oauthClient checks the portal login's OAuth client without a user: GitHub
// answers a code exchange with a code that cannot exist by
// bad_verification_code when the client id and secret are right, and by
// incorrect_client_credentials when they are not, both with status 200
// (docs "Troubleshooting OAuth app access token request errors").
func (r *run) oauthClient(ctx context.Context) {
	if r.s.Sandbox {
		return // the sandbox signs in without GitHub
	}
	const name = "OAuth client (portal login)"
	if r.s.OAuthClientID == "" {
		r.add(name, false, "CHAKSHU_OAUTH_CLIENT_ID is not set: nobody can sign in to the portal, and web refuses to start",
			"set CHAKSHU_OAUTH_CLIENT_ID and CHAKSHU_OAUTH_CLIENT_SECRET to the App's client id and a client secret (App settings → General)")
		return
	}
	u := auth.WebURL(r.s.GitHubURL) + "/login/oauth/access_token"
	form := url.Values{"client_id": {r.s.OAuthClientID}, "client_secret": {r.s.OAuthClientSecret}, "code": {"chakshu-doctor-no-such-code"}}
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		r.add(name, false, err.Error(), "check CHAKSHU_GITHUB_URL")
		return
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := r.client.Do(req)
	if err != nil {
		r.add(name, false, "POST "+u+": "+redact.Error(err), "check the network path to GitHub")
		return
	}
	defer resp.Body.Close()
	var ans struct {
		Error       string `json:"error"`
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(&ans); err != nil || resp.StatusCode != http.StatusOK {
		r.add(name, false, fmt.Sprintf("POST %s answered %d", u, resp.StatusCode), "check CHAKSHU_GITHUB_URL")
		return
	}
	switch ans.Error {
	case "bad_verification_code":
		r.add(name, true, "GitHub accepts client "+r.s.OAuthClientID, "")
	case "incorrect_client_credentials":
		r.add(name, false, "GitHub refuses client "+r.s.OAuthClientID+" with this secret",
			"set CHAKSHU_OAUTH_CLIENT_ID to the App's client id and CHAKSHU_OAUTH_CLIENT_SECRET to one of its client secrets (App settings → General → Client secrets)")
	default:
		r.add(name, false, fmt.Sprintf("unexpected answer %q", redact.String(ans.Error)), "check CHAKSHU_OAUTH_CLIENT_ID and CHAKSHU_GITHUB_URL")
	}
}

// Report is `chakshu doctor --json`: a stable shape for pipelines.
type Report struct {
	// OK is true when no check failed.
	OK bool `json:"ok"`
	// Failed counts the failed checks; Total all of them.
	Failed int           `json:"failed"`
	Total  int           `json:"total"`
	Checks []ReportCheck `json:"checks"`
}

// ReportCheck is one check of a Report.
type ReportCheck struct {
	Name string `json:"name"`
	// Status is "ok", "fail" or "info" (neither: a repository not enrolled).
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
	Fix    string `json:"fix,omitempty"`
}

// WriteJSON writes the checks as one Report.
func WriteJSON(w io.Writer, cs []Check) error {
	rep := Report{Failed: Failed(cs), Total: len(cs), Checks: []ReportCheck{}}
	rep.OK = rep.Failed == 0
	for _, c := range cs {
		rep.Checks = append(rep.Checks, ReportCheck{Name: c.Name, Status: c.Status(), Detail: c.Detail, Fix: c.Fix})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
