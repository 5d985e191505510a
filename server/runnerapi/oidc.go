package runnerapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/chakshu-dev/chakshu/ent"
)

// maxOIDCBody caps what the issuer's discovery document and key set may weigh.
const maxOIDCBody = 1 << 20

// tokenVerifier verifies a raw Actions token's signature, issuer, audience and times.
type tokenVerifier interface {
	Verify(ctx context.Context, raw string) (*oidc.IDToken, error)
}

// actionsClaims are the claims of a GitHub Actions OIDC token Chakshu
// matches. Ids are strings in these tokens.
type actionsClaims struct {
	RepositoryID string `json:"repository_id"`
	Repository   string `json:"repository"`
	RunID        string `json:"run_id"`
	WorkflowRef  string `json:"workflow_ref"`
	Ref          string `json:"ref"`
	EventName    string `json:"event_name"`
}

// cappedTransport fails answers larger than max bytes.
type cappedTransport struct {
	base http.RoundTripper
	max  int64
}

func (t cappedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &cappedBody{rc: resp.Body, left: t.max}
	return resp, nil
}

type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more than allowed means the answer is too large.
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n > 0 {
			return 0, errors.New("oidc: issuer answer is too large")
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// oidcVerifier returns the verifier, discovering the issuer on first use (and
// again after a failed discovery).
func (a *API) oidcVerifier(ctx context.Context) (tokenVerifier, error) {
	a.oidcMu.Lock()
	defer a.oidcMu.Unlock()
	if a.verifier != nil {
		return a.verifier, nil
	}
	hc := *a.cfg.HTTPClient
	hc.Transport = cappedTransport{base: a.cfg.HTTPClient.Transport, max: maxOIDCBody}
	dctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, &hc), 15*time.Second)
	defer cancel()
	p, err := oidc.NewProvider(dctx, a.cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("oidc discovery of %s: %w", a.cfg.Issuer, err)
	}
	var doc struct {
		JWKSURL string `json:"jwks_uri"`
	}
	if err := p.Claims(&doc); err != nil || doc.JWKSURL == "" {
		return nil, fmt.Errorf("oidc discovery of %s: no jwks_uri", a.cfg.Issuer)
	}
	ks := &keySet{url: doc.JWKSURL, client: &hc, every: keyRefetchEvery, now: time.Now}
	a.verifier = oidc.NewVerifier(a.cfg.Issuer, ks, &oidc.Config{ClientID: a.cfg.Audience, SupportedSigningAlgs: []string{oidc.RS256}})
	return a.verifier, nil
}

// errClaim is a claim that does not match the run; its text is for the log only.
type errClaim struct{ msg string }

func (e *errClaim) Error() string { return e.msg }

// checkClaims matches the token's claims with the stored run (DESIGN §2.5).
// sub is never matched: its format changes across repositories.
func checkClaims(c actionsClaims, rn *ent.Run, repo *ent.Repository) error {
	if err := checkRepoClaims(c, repo); err != nil {
		return err
	}
	if rn.ActionsRunID == 0 || c.RunID != strconv.FormatInt(rn.ActionsRunID, 10) {
		return &errClaim{fmt.Sprintf("run_id %q is not the run's Actions run %d", c.RunID, rn.ActionsRunID)}
	}
	return nil
}

// checkRepoClaims matches every claim but run_id: the repository, the
// workflow file on the default branch and the event.
func checkRepoClaims(c actionsClaims, repo *ent.Repository) error {
	branch := repo.DefaultBranch
	switch {
	case c.RepositoryID == "" || c.RepositoryID != strconv.FormatInt(repo.GithubID, 10):
		return &errClaim{fmt.Sprintf("repository_id %q is not the run's repository %d", c.RepositoryID, repo.GithubID)}
	case c.EventName != "workflow_dispatch":
		return &errClaim{fmt.Sprintf("event_name %q is not workflow_dispatch", c.EventName)}
	case c.Ref != "refs/heads/"+branch:
		return &errClaim{fmt.Sprintf("ref %q is not the default branch %q", c.Ref, branch)}
	}
	wantPath := "/.github/workflows/chakshu.yml@refs/heads/" + branch
	repoPart, ok := strings.CutSuffix(c.WorkflowRef, wantPath)
	if !ok || !strings.EqualFold(repoPart, repo.FullName) {
		return &errClaim{fmt.Sprintf("workflow_ref %q is not %s%s", c.WorkflowRef, repo.FullName, wantPath)}
	}
	return nil
}
