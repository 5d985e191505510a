package ghsim

import (
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

type oauthCode struct {
	login    string
	clientID string
	expires  time.Time
}

// SetOAuthLogin chooses who "signs in" at /login/oauth/authorize (default:
// the first user created). A login= query parameter on the authorize URL
// overrides it per request.
func (s *Sim) SetOAuthLogin(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ensureAccount(login, "User")
	s.oauthLogin = login
}

func (s *Sim) defaultOAuthLogin() string {
	if s.oauthLogin != "" {
		return s.oauthLogin
	}
	var first *account
	for _, a := range s.accounts {
		if a.typ == "User" && (first == nil || a.id < first.id) {
			first = a
		}
	}
	if first == nil {
		return s.ensureAccount("octocat", "User").login
	}
	return first.login
}

func (s *Sim) serveOAuth(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/login/oauth/authorize":
		q := r.URL.Query()
		s.mu.Lock()
		var a *app
		for _, x := range s.apps {
			if x.clientID == q.Get("client_id") {
				a = x
			}
		}
		if a == nil {
			s.mu.Unlock()
			http.Error(w, "unknown client_id", http.StatusNotFound)
			return
		}
		login := q.Get("login")
		if login == "" {
			login = s.defaultOAuthLogin()
		}
		code := randHex(10)
		s.oauth[code] = &oauthCode{login: s.ensureAccount(login, "User").login, clientID: a.clientID, expires: s.now().Add(10 * time.Minute)}
		s.mu.Unlock()
		target, err := url.Parse(q.Get("redirect_uri"))
		if err != nil || target.Scheme == "" {
			http.Error(w, "redirect_uri required", http.StatusBadRequest)
			return
		}
		tq := target.Query()
		tq.Set("code", code)
		if st := q.Get("state"); st != "" {
			tq.Set("state", st)
		}
		target.RawQuery = tq.Encode()
		http.Redirect(w, r, target.String(), http.StatusFound)
	case "/login/oauth/access_token":
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		form, _ := url.ParseQuery(string(body))
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			form = url.Values{}
		}
		clientID, secret := form.Get("client_id"), form.Get("client_secret")
		if u, p, ok := r.BasicAuth(); ok {
			clientID, secret = u, p
		}
		s.mu.Lock()
		okClient := false
		for _, a := range s.apps {
			if a.clientID == clientID && a.secret == secret {
				okClient = true
			}
		}
		var tok *accessToken
		var refresh string
		refreshing := form.Get("grant_type") == "refresh_token"
		if refreshing {
			// "Refreshing user access tokens": the refresh token buys a new
			// pair; it and the old access token stop working.
			rt := s.refreshTokens[form.Get("refresh_token")]
			if rt != nil && okClient && rt.clientID == clientID && s.now().Before(rt.expires) {
				delete(s.refreshTokens, form.Get("refresh_token"))
				delete(s.tokens, rt.access)
				tok, refresh = s.mintUserToken(rt.login, clientID)
			}
		} else {
			c := s.oauth[form.Get("code")]
			delete(s.oauth, form.Get("code"))
			if c != nil && okClient && c.clientID == clientID && s.now().Before(c.expires) {
				tok, refresh = s.mintUserToken(c.login, clientID)
			}
		}
		s.mu.Unlock()
		resp := url.Values{}
		// GitHub checks the client first: a wrong client id or secret answers
		// incorrect_client_credentials whatever the code, a right client with
		// a bad code bad_verification_code, both with status 200 (docs
		// "Troubleshooting OAuth app access token request errors").
		switch {
		case !okClient:
			resp.Set("error", "incorrect_client_credentials")
			resp.Set("error_description", "The client_id and/or client_secret passed are incorrect.")
		case tok == nil && refreshing:
			resp.Set("error", "bad_refresh_token")
			resp.Set("error_description", "The refresh token passed is incorrect or expired.")
		case tok == nil:
			resp.Set("error", "bad_verification_code")
			resp.Set("error_description", "The code passed is incorrect or expired.")
		default:
			resp.Set("access_token", tok.token)
			resp.Set("expires_in", strconv.Itoa(int(userTokenLife/time.Second)))
			resp.Set("refresh_token", refresh)
			resp.Set("refresh_token_expires_in", strconv.Itoa(int(refreshTokenLife/time.Second)))
			resp.Set("token_type", "bearer")
			resp.Set("scope", "")
		}
		if strings.Contains(r.Header.Get("Accept"), "json") {
			m := obj{}
			for k := range resp {
				m[k] = resp.Get(k)
				if n, err := strconv.Atoi(resp.Get(k)); err == nil && strings.HasSuffix(k, "expires_in") {
					m[k] = n
				}
			}
			writeJSON(w, http.StatusOK, m)
			return
		}
		w.Header().Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
		_, _ = io.WriteString(w, resp.Encode())
	default:
		http.NotFound(w, r)
	}
}

// A GitHub App's user access token expires after 8 hours and comes with a
// refresh token good for 6 months, unless the App opted out (docs
// "Refreshing user access tokens"; GitHub's example answer has
// "expires_in": 28800, "refresh_token_expires_in": 15811200,
// omniauth/omniauth-github#99). Tokens are ghu_, refresh tokens ghr_.
const (
	userTokenLife    = 8 * time.Hour
	refreshTokenLife = 15811200 * time.Second
)

type refreshToken struct {
	login, clientID, access string
	expires                 time.Time
}

// mintUserToken issues login's user access token and its refresh token.
// Called with s.mu held.
func (s *Sim) mintUserToken(login, clientID string) (*accessToken, string) {
	tok := s.mintToken(0, login, "ghu_")
	tok.expires = s.now().Add(userTokenLife)
	rt := "ghr_" + randAlnum(76)
	s.refreshTokens[rt] = &refreshToken{login: login, clientID: clientID, access: tok.token, expires: s.now().Add(refreshTokenLife)}
	return tok, rt
}

func (c *reqCtx) userOnly() bool {
	if c.tok == nil || c.tok.user == "" {
		c.fail(http.StatusForbidden, "Resource not accessible by integration")
		return false
	}
	return true
}

func hGetAuthUser(c *reqCtx) {
	if !c.userOnly() {
		return
	}
	a := c.s.accounts[strings.ToLower(c.tok.user)]
	m := c.s.publicUserJSON(a)
	for k, v := range (obj{"private_gists": 0, "total_private_repos": 0, "owned_private_repos": 0, "disk_usage": 0, "collaborators": 0,
		"two_factor_authentication": true, "user_view_type": "private"}) {
		m[k] = v
	}
	c.json(http.StatusOK, m)
}

// userInstalls lists installations with at least one repo login can read.
func (s *Sim) userInstalls(login string) []*installation {
	var out []*installation
	for _, in := range s.sortedInstalls() {
		for _, r := range s.instRepos(in) {
			if s.permission(r, login) != "none" {
				out = append(out, in)
				break
			}
		}
	}
	return out
}

func hUserInstallations(c *reqCtx) {
	if !c.userOnly() {
		return
	}
	var items []any
	for _, in := range c.s.userInstalls(c.tok.user) {
		items = append(items, c.s.installationJSON(in))
	}
	total := len(items)
	c.json(http.StatusOK, obj{"total_count": total, "installations": c.paginate(items)})
}

func hUserInstallationRepos(c *reqCtx) {
	if !c.userOnly() {
		return
	}
	in := c.installation()
	if in == nil {
		return
	}
	var items []any
	for _, r := range c.s.instRepos(in) {
		if c.s.permission(r, c.tok.user) != "none" {
			m := c.s.repoJSON(r)
			p := c.s.permission(r, c.tok.user)
			m["permissions"] = obj{"admin": p == "admin", "maintain": permRank[p] >= 4, "push": permRank[p] >= 3, "triage": permRank[p] >= 2, "pull": true}
			items = append(items, m)
		}
	}
	if len(items) == 0 {
		c.notFound()
		return
	}
	total := len(items)
	c.json(http.StatusOK, obj{"total_count": total, "repository_selection": "selected", "repositories": c.paginate(items)})
}

func hUserRepos(c *reqCtx) {
	if !c.userOnly() {
		return
	}
	var rs []*repo
	for _, r := range c.s.repos {
		if c.s.permission(r, c.tok.user) != "none" {
			rs = append(rs, r)
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].fullName() < rs[j].fullName() })
	var items []any
	for _, r := range rs {
		items = append(items, c.s.repoJSON(r))
	}
	c.json(http.StatusOK, c.paginate(items))
}

// hManifestConversion turns any code into a new app (the sandbox's "create
// the GitHub App" step).
func hManifestConversion(c *reqCtx) {
	code := c.v("code")
	key := sharedKey(1 + len(c.s.apps))
	slug := "chakshu-" + strings.ToLower(code)
	if len(slug) > 30 {
		slug = slug[:30]
	}
	a := &app{id: c.s.id(), slug: slug, name: slug, key: key, clientID: "Iv1." + randHex(8), secret: randHex(20)}
	c.s.apps[a.id] = a
	c.s.ensureAccount(slug+"[bot]", "Bot")
	m := c.s.appJSON(a)
	m["client_secret"] = a.secret
	m["webhook_secret"] = randHex(16)
	m["pem"] = string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	m["id"] = a.id
	_ = strconv.Itoa
	c.json(http.StatusCreated, m)
}
