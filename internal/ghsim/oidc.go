package ghsim

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const oidcKeyID = "ghsim-actions-1"

func (s *Sim) serveOIDC(w http.ResponseWriter, r *http.Request) {
	switch strings.TrimPrefix(r.URL.Path, s.oidcPrefix()) {
	case "/.well-known/openid-configuration":
		iss := s.IssuerURL()
		writeJSON(w, http.StatusOK, obj{
			"issuer": iss, "jwks_uri": iss + "/.well-known/jwks", "subject_types_supported": []string{"public", "pairwise"},
			"response_types_supported": []string{"id_token"}, "id_token_signing_alg_values_supported": []string{"RS256"},
			"scopes_supported": []string{"openid"},
			"claims_supported": []string{"sub", "aud", "exp", "iat", "iss", "jti", "nbf", "ref", "sha", "repository", "repository_id",
				"repository_owner", "repository_owner_id", "run_id", "run_number", "run_attempt", "actor", "actor_id", "workflow",
				"workflow_ref", "workflow_sha", "job_workflow_ref", "job_workflow_sha", "event_name", "ref_type", "runner_environment"},
		})
	case "/.well-known/jwks":
		pub := s.oidcKey.PublicKey
		writeJSON(w, http.StatusOK, obj{"keys": []any{obj{
			"kty": "RSA", "alg": "RS256", "use": "sig", "kid": oidcKeyID,
			"n": base64.RawURLEncoding.EncodeToString(pub.N.Bytes()),
			"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(pub.E)).Bytes()),
		}}})
	default:
		http.NotFound(w, r)
	}
}

// TokenOptions shape a forged token (IssueTokenWithClaims).
type TokenOptions struct {
	// Key signs the token instead of the issuer's key (a wrong key).
	Key *rsa.PrivateKey
	// KeyID is the header kid; "" means the issuer's.
	KeyID string
	// Alg overrides the header alg (e.g. "none" or "HS256"); the signature is
	// then garbage.
	Alg string
}

// IssueActionsToken mints the Actions OIDC token GitHub would give run runID
// for audience, with GitHub's claim set.
func (s *Sim) IssueActionsToken(runID int64, audience string) (string, error) {
	s.mu.Lock()
	w := s.runs[runID]
	if w == nil {
		s.mu.Unlock()
		return "", fmt.Errorf("ghsim: no workflow run %d", runID)
	}
	claims := s.actionsClaims(w, audience)
	s.mu.Unlock()
	return s.sign(claims, TokenOptions{})
}

// ActionsClaims returns the claims IssueActionsToken would put in a token
// for run runID, for tests that tweak one and mint with IssueTokenWithClaims.
func (s *Sim) ActionsClaims(runID int64, audience string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.runs[runID]
	if w == nil {
		panic(fmt.Sprintf("ghsim: no workflow run %d", runID))
	}
	return s.actionsClaims(w, audience)
}

func (s *Sim) actionsClaims(w *workflowRun, audience string) map[string]any {
	r := s.mustRepo(w.repo)
	owner := s.accounts[strings.ToLower(r.owner)]
	actor := s.ensureAccount(w.actor, "User")
	now := time.Now()
	defaultSHA := r.branches[r.defaultBranch]
	wfRef := fmt.Sprintf("%s/.github/workflows/%s@refs/heads/%s", r.fullName(), w.workflow, w.ref)
	return map[string]any{
		"iss": s.IssuerURL(), "aud": audience, "sub": fmt.Sprintf("repo:%s:ref:refs/heads/%s", r.fullName(), w.ref),
		"exp": now.Add(5 * time.Minute).Unix(), "iat": now.Unix(), "nbf": now.Add(-5 * time.Second).Unix(),
		"jti": newUUID(), "ref": "refs/heads/" + w.ref, "sha": w.sha, "ref_type": "branch", "ref_protected": "false",
		"repository": r.fullName(), "repository_id": strconv.FormatInt(r.id, 10), "repository_owner": r.owner,
		"repository_owner_id": strconv.FormatInt(owner.id, 10), "repository_visibility": map[bool]string{true: "private", false: "public"}[r.private],
		"run_id": strconv.FormatInt(w.id, 10), "run_number": strconv.Itoa(w.runNumber), "run_attempt": strconv.Itoa(w.attempt),
		"actor": actor.login, "actor_id": strconv.FormatInt(actor.id, 10), "workflow": "Chakshu", "workflow_ref": wfRef,
		"workflow_sha": w.sha, "job_workflow_ref": wfRef, "job_workflow_sha": w.sha, "event_name": "workflow_dispatch",
		"runner_environment": "github-hosted", "head_ref": "", "base_ref": "", "enterprise": "", "environment": nil,
		"default_branch_sha": defaultSHA,
	}
}

// IssueTokenWithClaims signs arbitrary claims (for security tests: wrong
// issuer, expired, other repository, wrong key with opts.Key…).
func (s *Sim) IssueTokenWithClaims(claims map[string]any, opts TokenOptions) (string, error) {
	return s.sign(claims, opts)
}

func (s *Sim) sign(claims map[string]any, opts TokenOptions) (string, error) {
	key := s.oidcKey
	if opts.Key != nil {
		key = opts.Key
	}
	hdr := obj{"typ": "JWT", "alg": firstNonEmpty(opts.Alg, "RS256"), "kid": firstNonEmpty(opts.KeyID, oidcKeyID), "x5t": "ghsim"}
	if _, ok := claims["environment"]; ok && claims["environment"] == nil {
		delete(claims, "environment")
	}
	hb, _ := json.Marshal(hdr)
	cb, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("ghsim: marshal claims: %w", err)
	}
	signing := base64.RawURLEncoding.EncodeToString(hb) + "." + base64.RawURLEncoding.EncodeToString(cb)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		return "", fmt.Errorf("ghsim: sign token: %w", err)
	}
	if opts.Alg != "" && opts.Alg != "RS256" {
		sig = []byte("garbage")
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// OIDCKey is the issuer's signing key (public part served in the JWKS).
func (s *Sim) OIDCKey() *rsa.PrivateKey { return s.oidcKey }

// serveIDTokenRequest answers the runner's ACTIONS_ID_TOKEN_REQUEST_URL.
func (s *Sim) serveIDTokenRequest(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(strings.TrimPrefix(r.URL.Path, "/_actions/idtoken/"), 10, 64)
	s.mu.Lock()
	run := s.runs[id]
	s.mu.Unlock()
	f := strings.Fields(r.Header.Get("Authorization"))
	if run == nil || len(f) != 2 || !strings.EqualFold(f[0], "bearer") || f[1] != run.idToken {
		writeJSON(w, http.StatusUnauthorized, obj{"message": "Unauthorized"})
		return
	}
	if run.status == "completed" {
		writeJSON(w, http.StatusUnauthorized, obj{"message": "The run is no longer active"})
		return
	}
	aud := r.URL.Query().Get("audience")
	if aud == "" {
		aud = "https://github.com/" + run.repo[:strings.Index(run.repo, "/")]
	}
	tok, err := s.IssueActionsToken(id, aud)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, obj{"message": "internal error"})
		return
	}
	writeJSON(w, http.StatusOK, obj{"count": len(tok), "value": tok})
}
