package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v88/github"
	"github.com/gorilla/csrf"
	"golang.org/x/oauth2"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/user"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/server"
)

// Session values.
const (
	keyUserID = "uid"
	keyToken  = "tok"
	keyIssued = "iat"
	// keyIssuedNano is the issue time in nanoseconds: a sign-out and a new
	// login in the same second must not end the new session.
	keyIssuedNano = "iatn"
	keyNonce      = "n"
)

// maxRepoPages caps how many pages of /user/repos a login reads (100 a page).
const maxRepoPages = 50

// sessionViewer returns the viewer of a valid, unexpired session cookie, or
// nil; its repository access is refreshed from GitHub when older than ttl.
func (a *Auth) sessionViewer(w http.ResponseWriter, r *http.Request, ttl time.Duration) (*Viewer, error) {
	if _, err := r.Cookie(SessionCookie); err != nil {
		return nil, nil
	}
	s, err := a.sessions.Get(r, SessionCookie)
	if err != nil || s.IsNew {
		return nil, nil // tampered, expired or from an old key: anonymous
	}
	uid, _ := s.Values[keyUserID].(int)
	iat, _ := s.Values[keyIssued].(int64)
	if uid == 0 || a.cfg.Now().Sub(time.Unix(iat, 0)) > a.cfg.SessionMaxAge {
		return nil, nil
	}
	if a.sessionFromPrevious(r) {
		// Signed under a previous secret key: the same session (same issue
		// time), re-issued under the current one.
		if err := s.Save(r, w); err != nil {
			a.log.Warn("re-issue session under the current secret key", "err", err)
		}
	}
	u, err := a.db.User.Get(r.Context(), uid)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load user %d: %w", uid, err)
	}
	issued := time.Unix(iat, 0)
	if n, ok := s.Values[keyIssuedNano].(int64); ok {
		issued = time.Unix(0, n)
	}
	if u.SignedOutAt != nil && !issued.After(*u.SignedOutAt) {
		return nil, nil // signed out since (logout ends every session of the user)
	}
	tok, _ := s.Values[keyToken].(string)
	if tok != "" && (u.RepoAccessRefreshedAt == nil || a.cfg.Now().Sub(*u.RepoAccessRefreshedAt) > ttl) {
		nu, err := a.refreshAccess(r.Context(), u, tok)
		switch {
		case errors.Is(err, errTokenRevoked):
			a.clearSession(w, r)
			return nil, nil
		case err != nil: // GitHub is unwell: keep the cached list a little longer
			a.log.Warn("refresh repository access", "user", u.Login, "err", err)
		default:
			u = nu
		}
	}
	return &Viewer{User: u, Admin: a.isAdmin(u), AdminInstallations: u.AdminInstallations, Method: MethodSession, RepoGitHubIDs: u.RepoAccess, oauthToken: tok}, nil
}

var errTokenRevoked = errors.New("github token revoked")

// githubUser is what login learns about a user from GitHub.
type githubUser struct {
	ID        int64
	Login     string
	Name      string
	AvatarURL string
	Repos     []int64
	// AdminInstallations: installations on organisations the user owns.
	AdminInstallations []int
}

func (a *Auth) userClient(ctx context.Context, token string) *github.Client {
	ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token, TokenType: "bearer"})
	return gh.NewREST(oauth2.NewClient(a.ctxWithHTTP(ctx), ts), a.apiURL)
}

// fetchUser reads the user, the repositories they can read, and whether they
// own an organisation Chakshu is installed on.
func (a *Auth) fetchUser(ctx context.Context, token string) (*githubUser, error) {
	c := a.userClient(ctx, token)
	me, resp, err := c.Users.Get(ctx, "")
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusUnauthorized {
			return nil, errTokenRevoked
		}
		return nil, fmt.Errorf("get user: %w", err)
	}
	gu := &githubUser{ID: me.GetID(), Login: me.GetLogin(), Name: me.GetName(), AvatarURL: me.GetAvatarURL()}
	if gu.ID == 0 || gu.Login == "" {
		return nil, errors.New("get user: no id or login")
	}
	if gu.Repos, err = a.fetchRepos(ctx, c); err != nil {
		return nil, err
	}
	if gu.AdminInstallations, err = a.ownedInstallations(ctx, c); err != nil {
		return nil, err
	}
	return gu, nil
}

func (a *Auth) fetchRepos(ctx context.Context, c *github.Client) ([]int64, error) {
	opts := &github.RepositoryListByAuthenticatedUserOptions{ListOptions: github.ListOptions{PerPage: 100}}
	ids := []int64{}
	for page := 0; page < maxRepoPages; page++ {
		repos, resp, err := c.Repositories.ListByAuthenticatedUser(ctx, opts)
		if err != nil {
			if resp != nil && resp.StatusCode == http.StatusUnauthorized {
				return nil, errTokenRevoked
			}
			return nil, fmt.Errorf("list user repositories: %w", err)
		}
		for _, r := range repos {
			if r.GetID() != 0 {
				ids = append(ids, r.GetID())
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return ids, nil
}

// refreshAccess re-reads the user's readable repositories, and whether they
// own an organisation the App is installed on, with their token.
func (a *Auth) refreshAccess(ctx context.Context, u *ent.User, token string) (*ent.User, error) {
	c := a.userClient(ctx, token)
	ids, err := a.fetchRepos(ctx, c)
	if err != nil {
		return nil, err
	}
	owned, err := a.ownedInstallations(ctx, c)
	if err != nil {
		return nil, err
	}
	// is_admin (global) is no longer granted by org ownership: cleared here so
	// a flag set that way by an older version does not outlive this refresh.
	return a.db.User.UpdateOne(u).SetRepoAccess(ids).SetIsAdmin(false).SetAdminInstallations(owned).
		SetRepoAccessRefreshedAt(a.cfg.Now()).Save(ctx)
}

// login starts the OAuth web flow, or offers the sandbox login.
func (a *Auth) login(w http.ResponseWriter, r *http.Request) {
	ret := SafeReturn(r.URL.Query().Get("return_to"))
	if a.oauth == nil {
		if a.SandboxLogin() {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			sandboxPage.Execute(w, map[string]any{"CSRF": csrf.TemplateField(r), "Return": ret, "Admin": config.SandboxUser, "Dev": a.sandboxDev()}) //nolint:errcheck
			return
		}
		server.WriteError(w, http.StatusNotFound, "NOT_FOUND", "login with GitHub is not configured (CHAKSHU_OAUTH_CLIENT_ID)")
		return
	}
	st, _ := a.states.New(r, stateCookie)
	state := randomString(24)
	verifier := oauth2.GenerateVerifier()
	st.Values["state"] = state
	st.Values["verifier"] = verifier
	st.Values["return"] = ret
	if err := st.Save(r, w); err != nil {
		a.log.Error("save oauth state", "err", err)
		server.WriteError(w, http.StatusInternalServerError, "INTERNAL", "internal error")
		return
	}
	http.Redirect(w, r, a.oauth.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier)), http.StatusFound)
}

// callback finishes the OAuth web flow: checks the state, exchanges the code,
// reads the user and their repositories, and starts a fresh session.
func (a *Auth) callback(w http.ResponseWriter, r *http.Request) {
	if a.oauth == nil {
		server.WriteError(w, http.StatusNotFound, "NOT_FOUND", "login with GitHub is not configured")
		return
	}
	st, err := a.states.Get(r, stateCookie)
	state, _ := st.Values["state"].(string)
	verifier, _ := st.Values["verifier"].(string)
	ret, _ := st.Values["return"].(string)
	// The state is single-use.
	st.Options.MaxAge = -1
	st.Save(r, w) //nolint:errcheck
	q := r.URL.Query()
	if err != nil || state == "" || q.Get("state") != state {
		server.WriteError(w, http.StatusBadRequest, "INVALID", "login expired or was started elsewhere; please sign in again")
		return
	}
	if e := q.Get("error"); e != "" {
		server.WriteError(w, http.StatusForbidden, "FORBIDDEN", "GitHub did not authorise the login")
		return
	}
	ctx := a.ctxWithHTTP(r.Context())
	tok, err := a.oauth.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		a.log.Warn("oauth exchange", "err", err)
		server.WriteError(w, http.StatusBadGateway, "INTERNAL", "GitHub refused the login; please sign in again")
		return
	}
	gu, err := a.fetchUser(r.Context(), tok.AccessToken)
	if err != nil {
		a.log.Warn("oauth user", "err", err)
		server.WriteError(w, http.StatusBadGateway, "INTERNAL", "could not read your GitHub account; please sign in again")
		return
	}
	u, err := a.upsertUser(r.Context(), gu)
	if err != nil {
		a.log.Error("save user", "err", err)
		server.WriteError(w, http.StatusInternalServerError, "INTERNAL", "internal error")
		return
	}
	if err := a.storeGitHubToken(r.Context(), u, tok); err != nil {
		a.log.Error("store github token", "err", err)
		server.WriteError(w, http.StatusInternalServerError, "INTERNAL", "internal error")
		return
	}
	if err := a.startSession(w, r, u, tok.AccessToken); err != nil {
		a.log.Error("start session", "err", err)
		server.WriteError(w, http.StatusInternalServerError, "INTERNAL", "internal error")
		return
	}
	a.log.Info("signed in", "user", u.Login, "repos", len(gu.Repos))
	http.Redirect(w, r, ret, http.StatusFound)
}

func (a *Auth) upsertUser(ctx context.Context, gu *githubUser) (*ent.User, error) {
	now := a.cfg.Now()
	id, err := a.db.User.Create().SetGithubID(gu.ID).SetLogin(gu.Login).SetName(gu.Name).
		SetAvatarURL(gu.AvatarURL).SetLastLoginAt(now).
		SetRepoAccess(gu.Repos).SetIsAdmin(false).SetAdminInstallations(gu.AdminInstallations).SetRepoAccessRefreshedAt(now).
		OnConflictColumns(user.FieldGithubID).UpdateNewValues().ID(ctx)
	if err != nil {
		return nil, fmt.Errorf("upsert user %s: %w", gu.Login, err)
	}
	return a.db.User.Get(ctx, id)
}

// startSession replaces any session with a new one (new nonce: the cookie
// value changes at every login).
func (a *Auth) startSession(w http.ResponseWriter, r *http.Request, u *ent.User, token string) error {
	s, err := a.sessions.New(r, SessionCookie)
	if s == nil {
		return fmt.Errorf("new session: %w", err)
	}
	s.IsNew = true
	now := a.cfg.Now()
	s.Values = map[any]any{
		keyUserID:     u.ID,
		keyIssued:     now.Unix(),
		keyIssuedNano: now.UnixNano(),
		keyNonce:      randomString(16),
		keyToken:      token,
	}
	return s.Save(r, w)
}

func (a *Auth) clearSession(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: a.secure, SameSite: http.SameSiteLaxMode})
}

// logout ends the session, and every other session of the user: session
// cookies are not stored, so the sign-out time on the user is what tells an
// open WebSocket (which rechecks its cookie, Revalidate) or a copied cookie
// that the session is over.
func (a *Auth) logout(w http.ResponseWriter, r *http.Request) {
	if v := FromContext(r.Context()); v != nil && v.Method == MethodSession {
		// Rounded up to the microsecond PostgreSQL keeps, so the session
		// signing out (issued in nanoseconds) is not after it.
		out := a.cfg.Now().Truncate(time.Microsecond).Add(time.Microsecond)
		if err := a.db.User.UpdateOneID(v.User.ID).SetSignedOutAt(out).Exec(r.Context()); err != nil {
			a.log.Error("record sign-out", "user", v.User.Login, "err", err)
			server.WriteError(w, http.StatusInternalServerError, "INTERNAL", "internal error")
			return
		}
	}
	a.clearSession(w, r)
	if strings.Contains(r.Header.Get("Accept"), "text/html") {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	server.WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// Me is the body of GET /api/me.
type Me struct {
	Authenticated bool    `json:"authenticated"`
	User          *MeUser `json:"user,omitempty"`
	// CSRFToken goes in the X-CSRF-Token header of cookie-authenticated POSTs.
	CSRFToken string `json:"csrfToken"`
	// Login says which login buttons to show.
	Login MeLogin `json:"login"`
}

// MeUser is the signed-in user.
type MeUser struct {
	ID        int    `json:"id"`
	Login     string `json:"login"`
	Name      string `json:"name"`
	AvatarURL string `json:"avatarUrl"`
	IsAdmin   bool   `json:"isAdmin"`
	// CanWrite is false for read-scoped API tokens.
	CanWrite bool `json:"canWrite"`
}

// MeLogin lists the login methods on offer.
type MeLogin struct {
	GitHub  bool `json:"github"`
	Sandbox bool `json:"sandbox"`
	// SandboxUsers are the sandbox logins on offer (POST /auth/sandbox login=…):
	// the admin first, then the non-admin when the sandbox seeds one.
	SandboxUsers []string `json:"sandboxUsers,omitempty"`
}

func (a *Auth) me(w http.ResponseWriter, r *http.Request) {
	tok := csrf.Token(r)
	w.Header().Set(CSRFHeader, tok)
	w.Header().Set("Cache-Control", "no-store")
	body := Me{CSRFToken: tok, Login: MeLogin{GitHub: a.oauth != nil, Sandbox: a.SandboxLogin(), SandboxUsers: a.sandboxUsers()}}
	if v := FromContext(r.Context()); v != nil {
		body.Authenticated = true
		body.User = &MeUser{ID: v.User.ID, Login: v.User.Login, Name: v.User.Name, AvatarURL: v.User.AvatarURL, IsAdmin: v.AnyAdmin(), CanWrite: v.CanWrite()}
	}
	server.WriteJSON(w, http.StatusOK, body)
}

// SafeReturn keeps redirects after login on this site: a path starting with
// exactly one slash, made of printable ASCII without backslashes, whose
// percent-decoded form has no control characters or backslashes and does not
// start with two slashes either. Anything else becomes "/". Browsers remove
// tabs and newlines anywhere in a URL and read "\" as "/", so "/\t/evil.com"
// and "/\evil.com" would otherwise leave the site as "//evil.com".
func SafeReturn(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return "/"
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c <= ' ' || c >= 0x7f || c == '\\' {
			return "/"
		}
	}
	dec, err := url.PathUnescape(p)
	if err != nil || strings.HasPrefix(dec, "//") {
		return "/"
	}
	for i := 0; i < len(dec); i++ {
		if c := dec[i]; c < ' ' || c == 0x7f || c == '\\' {
			return "/"
		}
	}
	return p
}

func randomString(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
