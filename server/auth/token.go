package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"golang.org/x/oauth2"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/apitoken"
)

// TokenPrefix starts every API token.
const TokenPrefix = "chkt_"

// tokenShown is how many characters of a token are stored to recognise it.
const tokenShown = len(TokenPrefix) + 6

var errBadToken = errors.New("bad api token")

// HashToken is how API tokens are stored: hex SHA-256 of the whole token.
func HashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// NewToken returns a fresh API token secret: chkt_ and 43 characters of base64url (256 bits).
func NewToken() string { return TokenPrefix + randomString(32) }

// TokenDisplayPrefix is the part of a token kept in clear to recognise it.
func TokenDisplayPrefix(token string) string {
	if len(token) < tokenShown {
		return token
	}
	return token[:tokenShown]
}

// tokenViewer authenticates an Authorization header value, returning the
// token as read; its owner's access is refreshed when older than ttl.
func (a *Auth) tokenViewer(ctx context.Context, header string, ttl time.Duration) (*Viewer, *ent.APIToken, error) {
	scheme, tok, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return nil, nil, errBadToken
	}
	tok = strings.TrimSpace(tok)
	if !strings.HasPrefix(tok, TokenPrefix) || len(tok) < 20 || len(tok) > 200 {
		return nil, nil, errBadToken
	}
	t, err := a.db.APIToken.Query().Where(apitoken.TokenHash(HashToken(tok))).WithOwner().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil, errBadToken
	}
	if err != nil {
		return nil, nil, fmt.Errorf("look up api token: %w", err)
	}
	now := a.cfg.Now()
	if t.RevokedAt != nil || (t.ExpiresAt != nil && !now.Before(*t.ExpiresAt)) || t.Edges.Owner == nil {
		return nil, nil, errBadToken
	}
	// Record use at most once a minute per token: a write per request would
	// contend with the webhook intake on SQLite. With the rate limit on, its
	// write per request records the use instead (ratelimit.go).
	if a.limits == nil && (t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) > time.Minute) {
		err := a.db.APIToken.Update().Where(apitoken.ID(t.ID),
			apitoken.Or(apitoken.LastUsedAtIsNil(), apitoken.LastUsedAtLT(now.Add(-time.Minute)))).
			SetLastUsedAt(now).Exec(ctx)
		if err != nil {
			a.log.Warn("record api token use", "err", err)
		}
	}
	u := a.tokenOwnerAccess(ctx, t.Edges.Owner, ttl)
	return &Viewer{User: u, Admin: a.isAdmin(u), AdminInstallations: u.AdminInstallations, Method: MethodToken, Scope: string(t.Scope), TokenID: t.ID, RepoGitHubIDs: u.RepoAccess}, t, nil
}

// tokenAD binds a sealed GitHub token to its user.
func tokenAD(u *ent.User) []byte { return []byte(fmt.Sprintf("user/%d/github-token", u.ID)) }

// storeGitHubToken keeps the user's GitHub token from this login, with its
// refresh token, sealed, so their API tokens can refresh their access while
// the portal session is gone (usertoken.go).
func (a *Auth) storeGitHubToken(ctx context.Context, u *ent.User, tok *oauth2.Token) error {
	sealed, err := a.sealToken(u, a.fromOAuth(tok))
	if err != nil {
		return err
	}
	return a.db.User.UpdateOne(u).SetGithubTokenSealed(sealed).Exec(ctx)
}

// tokenOwnerAccess returns the token owner with access no older than
// ttl (TokenAccessTTL for requests): refreshed from GitHub with the owner's stored GitHub token
// when stale. When it cannot be refreshed (no stored token, GitHub revoked
// it, or GitHub does not answer) the owner acts with no repositories and no
// installation admin rights: someone removed from the organisation loses
// access within the hour, not at their next portal login.
func (a *Auth) tokenOwnerAccess(ctx context.Context, u *ent.User, ttl time.Duration) *ent.User {
	now := a.cfg.Now()
	if u.RepoAccessRefreshedAt != nil && now.Sub(*u.RepoAccessRefreshedAt) <= ttl {
		return u
	}
	locked := *u
	locked.RepoAccess, locked.AdminInstallations = nil, nil // is_admin: the sandbox user only, not from GitHub
	if len(u.GithubTokenSealed) == 0 {
		return &locked
	}
	pt, err := a.sealer.Open(u.GithubTokenSealed, tokenAD(u))
	if err != nil {
		a.log.Warn("open stored github token", "user", u.Login, "err", err)
		return &locked
	}
	st := parseStored(pt)
	refreshed := false
	if a.dueForRefresh(st) {
		st, err = a.refreshToken(ctx, u, u.GithubTokenSealed, st)
		refreshed = err == nil
	}
	var nu *ent.User
	if err == nil {
		nu, err = a.refreshAccess(ctx, u, st.Access)
	}
	if errors.Is(err, errTokenRevoked) && !refreshed && st.Refresh != "" && a.oauth != nil {
		// GitHub ended the access token before the expiry Chakshu noted:
		// its refresh token may still be good.
		if st, err = a.refreshToken(ctx, u, u.GithubTokenSealed, st); err == nil {
			nu, err = a.refreshAccess(ctx, u, st.Access)
		}
	}
	if errors.Is(err, errTokenRevoked) {
		// Until they sign in again: no access, and no GitHub call per request.
		if err := a.db.User.UpdateOne(u).ClearGithubTokenSealed().SetRepoAccess([]int64{}).
			SetAdminInstallations([]int{}).Exec(ctx); err != nil {
			a.log.Warn("clear revoked github token", "user", u.Login, "err", err)
		}
		return &locked
	}
	if err != nil {
		a.log.Warn("refresh api token owner's access", "user", u.Login, "err", err)
		return &locked
	}
	return nu
}
