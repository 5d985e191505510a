package auth

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/user"
)

// refreshAhead is how long before its expiry a stored user token is
// refreshed.
const refreshAhead = 10 * time.Minute

// storedToken is a user's GitHub token as it is sealed at rest. GitHub App
// user access tokens expire after 8 hours and come with a refresh token
// (valid 6 months; using it ends it and the old access token): docs
// "Refreshing user access tokens", "Generating a user access token for a
// GitHub App" (response: access_token, expires_in 28800, refresh_token,
// refresh_token_expires_in, scope, token_type). Expiry times are on
// Chakshu's clock. An App that opted out of expiry gets neither field.
type storedToken struct {
	Access        string    `json:"access_token"`
	Refresh       string    `json:"refresh_token,omitempty"`
	Expiry        time.Time `json:"expiry,omitzero"`
	RefreshExpiry time.Time `json:"refresh_expiry,omitzero"`
}

// parseStored reads a sealed token's plaintext: the JSON above, or a bare
// access token as older versions stored it.
func parseStored(b []byte) storedToken {
	var st storedToken
	if len(b) > 0 && b[0] == '{' && json.Unmarshal(b, &st) == nil && st.Access != "" {
		return st
	}
	return storedToken{Access: string(b)}
}

// fromOAuth is what GitHub answered, with its lifetimes moved onto
// Chakshu's clock (oauth2 dates them by the machine's).
func (a *Auth) fromOAuth(t *oauth2.Token) storedToken {
	now := a.cfg.Now()
	st := storedToken{Access: t.AccessToken, Refresh: t.RefreshToken}
	if t.ExpiresIn > 0 {
		st.Expiry = now.Add(time.Duration(t.ExpiresIn) * time.Second)
	} else if !t.Expiry.IsZero() {
		st.Expiry = now.Add(time.Until(t.Expiry))
	}
	if v, ok := t.Extra("refresh_token_expires_in").(float64); ok && v > 0 {
		st.RefreshExpiry = now.Add(time.Duration(v) * time.Second)
	} else if s, ok := t.Extra("refresh_token_expires_in").(string); ok {
		if d, err := time.ParseDuration(strings.TrimSpace(s) + "s"); err == nil && d > 0 {
			st.RefreshExpiry = now.Add(d)
		}
	}
	return st
}

// sealToken seals st for user u.
func (a *Auth) sealToken(u *ent.User, st storedToken) ([]byte, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	return a.sealer.Seal(b, tokenAD(u))
}

// dueForRefresh reports a stored token that expires within refreshAhead
// and can be refreshed.
func (a *Auth) dueForRefresh(st storedToken) bool {
	return a.oauth != nil && st.Refresh != "" && !st.Expiry.IsZero() && !a.cfg.Now().Add(refreshAhead).Before(st.Expiry)
}

// refreshToken trades st's refresh token for a new pair (grant_type
// refresh_token) and stores it in place of sealed, the ciphertext it was
// read from. If another request refreshed it first (the used refresh token
// is refused, and the stored one has changed), that one is used.
func (a *Auth) refreshToken(ctx context.Context, u *ent.User, sealed []byte, st storedToken) (storedToken, error) {
	if !st.RefreshExpiry.IsZero() && a.cfg.Now().After(st.RefreshExpiry) {
		return st, errTokenRevoked // six months unused: only a new sign-in helps
	}
	t, err := a.oauth.TokenSource(a.ctxWithHTTP(ctx), &oauth2.Token{RefreshToken: st.Refresh}).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if !errors.As(err, &re) {
			return st, err // GitHub did not answer: try again later
		}
		if cur, cerr := a.db.User.Get(ctx, u.ID); cerr == nil && len(cur.GithubTokenSealed) > 0 && string(cur.GithubTokenSealed) != string(sealed) {
			if pt, oerr := a.sealer.Open(cur.GithubTokenSealed, tokenAD(u)); oerr == nil {
				return parseStored(pt), nil
			}
		}
		return st, errTokenRevoked // bad_refresh_token: refused or expired
	}
	next := a.fromOAuth(t)
	if next.Refresh == "" {
		next.Refresh = st.Refresh
	}
	ct, err := a.sealToken(u, next)
	if err != nil {
		return st, err
	}
	if _, err := a.db.User.Update().Where(user.ID(u.ID), user.GithubTokenSealedEQ(sealed)).SetGithubTokenSealed(ct).Save(ctx); err != nil {
		return st, err
	}
	return next, nil
}
