// Package auth signs people in to the portal (GitHub OAuth web flow, or a
// one-click sandbox login), keeps them signed in with a gorilla/sessions
// cookie, protects cookie-authenticated requests against CSRF, and accepts
// API tokens (Authorization: Bearer chkt_…). Every request it passes on
// carries its Viewer in the context.
package auth

import (
	"context"
	"slices"

	"github.com/chakshu-dev/chakshu/ent"
)

// Method is how a viewer authenticated.
type Method string

// Methods.
const (
	MethodSession Method = "session"
	MethodToken   Method = "token"
)

// Scopes of API tokens.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
)

// Viewer is who a request acts for.
type Viewer struct {
	// User is the signed-in user (the token's owner for API tokens).
	User *ent.User
	// Admin is true for global admins: configured admins (CHAKSHU_ADMINS)
	// and users whose is_admin flag is set in the database (the sandbox user).
	Admin bool
	// AdminInstallations are the ids of the installations (on organisations
	// the user owns, matched by the organisation's id) the user administers;
	// owning an organisation makes one admin of its installation only.
	AdminInstallations []int
	// Method says how the request authenticated.
	Method Method
	// Scope is the API token's scope (read or write); empty for sessions.
	Scope string
	// TokenID is the API token's id; zero for sessions.
	TokenID int
	// RepoGitHubIDs are GitHub ids of the repositories the user can read
	// (cached at login, refreshed when stale while the session lasts).
	RepoGitHubIDs []int64
	// oauthToken is the user's GitHub token (sessions only); never leaves this package.
	oauthToken string
}

// CanWrite reports whether the viewer may run mutations: sessions and write tokens.
func (v *Viewer) CanWrite() bool {
	return v != nil && (v.Method == MethodSession || v.Scope == ScopeWrite)
}

// AdminOf reports whether the viewer administers the installation with this id.
func (v *Viewer) AdminOf(installationID int) bool {
	return v != nil && (v.Admin || slices.Contains(v.AdminInstallations, installationID))
}

// AnyAdmin reports whether the viewer administers anything (global or one installation).
func (v *Viewer) AnyAdmin() bool { return v != nil && (v.Admin || len(v.AdminInstallations) > 0) }

// CanReadRepo reports whether the viewer can read the repository with this GitHub id.
func (v *Viewer) CanReadRepo(githubID int64) bool {
	return v != nil && (v.Admin || slices.Contains(v.RepoGitHubIDs, githubID))
}

type viewerKey struct{}

// WithViewer returns ctx carrying v.
func WithViewer(ctx context.Context, v *Viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

// FromContext returns the request's viewer, or nil when anonymous.
func FromContext(ctx context.Context) *Viewer {
	v, _ := ctx.Value(viewerKey{}).(*Viewer)
	return v
}
