package ghsim

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// recorder buffers a response so it can be validated (and an interceptor's
// answer put in its place)
// before it is sent.
type recorder struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.h }
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = 200
	}
	return r.body.Write(b)
}
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

func (s *Sim) serveHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, APIPrefix+"/") || path == APIPrefix:
		s.serveAPI(w, r, strings.TrimPrefix(path, APIPrefix))
	case path == "/api/graphql":
		s.countAPI(graphQLKey)
		if s.before(w, r, graphQLKey) {
			return
		}
		release, ok := s.admit(w, r, graphQLKey)
		if !ok {
			return
		}
		defer release()
		s.serveGraphQL(w, r)
	case strings.HasPrefix(path, s.oidcPrefix()+"/"):
		s.count("GET " + path)
		s.serveOIDC(w, r)
	case strings.HasPrefix(path, "/_actions/idtoken/"):
		s.count("GET /_actions/idtoken")
		s.serveIDTokenRequest(w, r)
	case strings.HasPrefix(path, "/login/oauth/"):
		s.count(r.Method + " " + path)
		s.serveOAuth(w, r)
	case strings.HasPrefix(path, "/sim/"):
		s.serveHTML(w, r)
	default:
		s.count(r.Method + " " + path)
		http.NotFound(w, r)
	}
}

func (s *Sim) count(key string) {
	s.mu.Lock()
	s.calls[key]++
	s.mu.Unlock()
}

// countAPI counts a request to GitHub's API (REST or GraphQL), the kind its
// rate limits apply to; the Actions token service, OIDC discovery, OAuth
// and the HTML pages are counted by count alone.
func (s *Sim) countAPI(key string) {
	s.mu.Lock()
	s.calls[key]++
	s.apiKeys[key] = true
	s.mu.Unlock()
}

func (s *Sim) serveAPI(w http.ResponseWriter, r *http.Request, path string) {
	rt, vars, methodMismatch := s.match(r.Method, path)
	if rt == nil {
		key := r.Method + " " + path
		s.count(key)
		s.validationError(fmt.Errorf("unknown endpoint %s %s (the simulator does not serve it)", r.Method, path))
		status := http.StatusNotFound
		if methodMismatch {
			status = http.StatusNotFound
		}
		writeJSON(w, status, map[string]any{"message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404"})
		return
	}
	key := rt.method + " " + strings.ReplaceAll(rt.template, "...}", "}")
	s.countAPI(key)
	if s.before(w, r, key) {
		return
	}
	release, ok := s.admit(w, r, key)
	if !ok {
		return
	}
	defer release()
	if s.limits != nil && s.limits.Latency > 0 {
		time.Sleep(s.limits.Latency)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 20<<20))
	if err != nil {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	tpl := strings.ReplaceAll(rt.template, "...}", "}")
	if v := s.opts.Validator; v != nil {
		if err := v.Request(r, rt.method, tpl, vars, body); err != nil {
			s.validationError(fmt.Errorf("request %s %s does not match GitHub's OpenAPI description: %v", r.Method, path, err))
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	rec := &recorder{h: http.Header{}}
	c := &reqCtx{s: s, w: rec, r: r, vars: vars, route: rt}
	s.mu.Lock()
	if s.authenticate(c) {
		rt.h(c)
	}
	pending := s.pending
	s.pending = nil
	s.mu.Unlock()
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	rec.h.Set("X-GitHub-Request-Id", fmt.Sprintf("SIM:%X", time.Now().UnixNano()&0xffffff))
	if w.Header().Get("X-RateLimit-Limit") == "" { // the realistic mode set its own
		rec.h.Set("X-RateLimit-Limit", "5000")
		rec.h.Set("X-RateLimit-Remaining", "4999")
		rec.h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
		rec.h.Set("X-RateLimit-Used", "1")
		rec.h.Set("X-RateLimit-Resource", "core")
	}
	if v := s.opts.Validator; v != nil {
		if err := v.Response(r, rt.method, tpl, vars, body, rec.status, rec.h, rec.body.Bytes()); err != nil {
			s.validationError(fmt.Errorf("simulator's response %d to %s %s does not match GitHub's OpenAPI description: %v", rec.status, r.Method, path, err))
		}
	}
	if st := s.after(key); st != 0 {
		s.deliver(pending) // the write happened: its webhooks go out
		writeJSON(w, st, obj{"message": "Server Error", "status": strconv.Itoa(st)})
		return
	}
	for k, v := range rec.h {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body.Bytes())
	s.deliver(pending)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// authenticate checks the Authorization header against the route's needs.
// Called with s.mu held.
func (s *Sim) authenticate(c *reqCtx) bool {
	h := c.r.Header.Get("Authorization")
	cred := ""
	if f := strings.Fields(h); len(f) == 2 && (strings.EqualFold(f[0], "bearer") || strings.EqualFold(f[0], "token")) {
		cred = f[1]
	}
	if c.route.auth == authNone {
		if cred != "" {
			c.tok = s.tokens[cred]
		}
		return true
	}
	if cred == "" {
		c.fail(http.StatusUnauthorized, "Requires authentication")
		return false
	}
	if strings.Count(cred, ".") == 2 {
		a, msg := s.verifyAppJWT(cred)
		if a == nil {
			c.fail(http.StatusUnauthorized, msg)
			return false
		}
		if c.route.auth != authApp {
			c.fail(http.StatusForbidden, "Resource not accessible by integration")
			return false
		}
		c.app = a
		return true
	}
	t := s.tokens[cred]
	if t == nil || s.now().After(t.expires) {
		c.fail(http.StatusUnauthorized, "Bad credentials")
		return false
	}
	if c.route.auth == authApp {
		c.fail(http.StatusUnauthorized, "A JSON web token could not be decoded")
		return false
	}
	c.tok = t
	return true
}

// verifyAppJWT checks an app JWT (RS256, iss = app id or client id, iat/exp
// within GitHub's limits).
func (s *Sim) verifyAppJWT(tok string) (*app, string) {
	parts := strings.Split(tok, ".")
	hdr, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	payload, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, "A JSON web token could not be decoded"
	}
	var h struct {
		Alg string `json:"alg"`
	}
	var cl struct {
		Iss any   `json:"iss"`
		Iat int64 `json:"iat"`
		Exp int64 `json:"exp"`
	}
	if json.Unmarshal(hdr, &h) != nil || json.Unmarshal(payload, &cl) != nil || h.Alg != "RS256" {
		return nil, "A JSON web token could not be decoded"
	}
	iss := fmt.Sprint(cl.Iss)
	if f, ok := cl.Iss.(float64); ok {
		iss = strconv.FormatInt(int64(f), 10)
	}
	var a *app
	for _, x := range s.apps {
		if strconv.FormatInt(x.id, 10) == iss || x.clientID == iss {
			a = x
		}
	}
	if a == nil {
		return nil, "'Issuer' claim ('iss') must be an Integer"
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(&a.key.PublicKey, crypto.SHA256, sum[:], sig) != nil {
		return nil, "A JSON web token could not be decoded"
	}
	now := time.Now().Unix()
	if cl.Exp < now {
		return nil, "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"
	}
	if cl.Exp-cl.Iat > 600 || cl.Iat > now+60 {
		return nil, "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued"
	}
	return a, ""
}

// repo resolves {owner}/{repo} and checks the caller may see it; on failure
// it has written the 404. Called with s.mu held.
func (c *reqCtx) repo() *repo {
	r := c.s.repos[strings.ToLower(c.v("owner")+"/"+c.v("repo"))]
	if r == nil || !c.s.canSee(c.tok, r) {
		c.notFound()
		return nil
	}
	return r
}

func (s *Sim) canSee(t *accessToken, r *repo) bool {
	if t == nil {
		return !r.private
	}
	if t.inst != 0 {
		in := s.installs[t.inst]
		return in != nil && s.instCovers(in, r)
	}
	return !r.private || s.permission(r, t.user) != "none"
}

func (s *Sim) instCovers(in *installation, r *repo) bool {
	if !strings.EqualFold(in.account, r.owner) {
		return false
	}
	return in.all || in.repos[strings.ToLower(r.fullName())]
}

// need checks that the caller holds perm at level, writing the error if not.
func (c *reqCtx) need(r *repo, perm, level string) bool {
	if c.s.hasPerm(c.tok, r, perm, level) {
		return true
	}
	if c.tok == nil {
		c.fail(http.StatusUnauthorized, "Requires authentication")
	} else {
		c.fail(http.StatusForbidden, "Resource not accessible by integration")
	}
	return false
}

// actor is the login acting through the request: the installation's bot or
// the OAuth user.
func (c *reqCtx) actor() *account {
	if c.tok == nil {
		return nil
	}
	if c.tok.user != "" {
		return c.s.accounts[strings.ToLower(c.tok.user)]
	}
	in := c.s.installs[c.tok.inst]
	if in == nil {
		return nil
	}
	return c.s.botOf(in.appID)
}
