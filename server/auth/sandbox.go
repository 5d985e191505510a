package auth

import (
	"context"
	"html/template"
	"net/http"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/user"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/server"
)

// SandboxDev is the sandbox's non-admin login: a user of the simulated GitHub
// who can read some repositories only. Signing in as them mints their
// simulated user token and reads their account and repositories from the
// simulator, exactly as the OAuth login does on GitHub, so what they may see
// comes from the simulated permissions and refreshes like a real login's.
type SandboxDev struct {
	// Login is the simulated user's login; empty offers only the sandbox admin.
	Login string
	// Token mints a user token for login on the simulated GitHub.
	Token func(login string) string
}

// SandboxGitHubID is the GitHub id recorded for the sandbox admin (not a real account).
const SandboxGitHubID = -1

// sandboxDev returns the non-admin sandbox login, or "" when none is offered.
func (a *Auth) sandboxDev() string {
	if !a.SandboxLogin() || a.cfg.SandboxDev.Token == nil {
		return ""
	}
	return a.cfg.SandboxDev.Login
}

// sandboxUsers lists the sandbox logins on offer, the admin first.
func (a *Auth) sandboxUsers() []string {
	if !a.SandboxLogin() {
		return nil
	}
	if dev := a.sandboxDev(); dev != "" {
		return []string{config.SandboxUser, dev}
	}
	return []string{config.SandboxUser}
}

// sandbox signs in as the sandbox admin, or as the non-admin sandbox user when
// the form asks for them (login=…); sandbox mode without OAuth only.
func (a *Auth) sandbox(w http.ResponseWriter, r *http.Request) {
	if !a.SandboxLogin() {
		server.WriteError(w, http.StatusNotFound, "NOT_FOUND", "sandbox login is only available in sandbox mode")
		return
	}
	var (
		u     *ent.User
		token string
		err   error
	)
	switch login := r.FormValue("login"); login {
	case "", config.SandboxUser:
		u, err = a.sandboxAdmin(r.Context())
	case a.sandboxDev():
		token = a.cfg.SandboxDev.Token(login)
		var gu *githubUser
		if gu, err = a.fetchUser(r.Context(), token); err == nil {
			u, err = a.upsertUser(r.Context(), gu)
		}
	default:
		server.WriteError(w, http.StatusBadRequest, "INVALID", "the sandbox offers no such login")
		return
	}
	if err == nil {
		err = a.startSession(w, r, u, token)
	}
	if err != nil {
		a.log.Error("sandbox login", "err", err)
		server.WriteError(w, http.StatusInternalServerError, "INTERNAL", "internal error")
		return
	}
	ret := SafeReturn(r.FormValue("return_to"))
	if strings.Contains(r.Header.Get("Accept"), "text/html") {
		http.Redirect(w, r, ret, http.StatusSeeOther)
		return
	}
	server.WriteJSON(w, http.StatusOK, map[string]any{"ok": true, "returnTo": ret})
}

// sandboxAdmin finds or creates the sandbox admin.
func (a *Auth) sandboxAdmin(ctx context.Context) (*ent.User, error) {
	now := a.cfg.Now()
	u, err := a.db.User.Query().Where(user.Login(config.SandboxUser)).Only(ctx)
	if ent.IsNotFound(err) {
		return a.db.User.Create().SetGithubID(SandboxGitHubID).SetLogin(config.SandboxUser).
			SetName("Sandbox Admin").SetIsAdmin(true).SetLastLoginAt(now).SetRepoAccessRefreshedAt(now).Save(ctx)
	}
	if err != nil {
		return nil, err
	}
	return a.db.User.UpdateOne(u).SetLastLoginAt(now).Save(ctx)
}

var sandboxPage = template.Must(template.New("sandbox").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in · Chakshu sandbox</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem">
<h1>Chakshu sandbox</h1>
<p>No GitHub OAuth client is configured, so the sandbox signs you in as one of its simulated users:
<strong>{{.Admin}}</strong> (an admin){{if .Dev}} or <strong>{{.Dev}}</strong> (reads some repositories only, not an admin){{end}}.</p>
<form method="post" action="/auth/sandbox">{{.CSRF}}
<input type="hidden" name="return_to" value="{{.Return}}">
<button type="submit" name="login" value="{{.Admin}}" autofocus>Sign in as {{.Admin}}</button>
{{if .Dev}}<button type="submit" name="login" value="{{.Dev}}">Sign in as {{.Dev}}</button>{{end}}</form>
</body></html>`))
