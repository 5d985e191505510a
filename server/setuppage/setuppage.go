// Package setuppage serves the GitHub App manifest flow as a plain server-rendered
// page: GET /setup builds the manifest and posts it to GitHub's "new App" page,
// GET /setup/callback converts the code GitHub returns and stores the App's
// settings in the data dir.
package setuppage

import (
	"crypto/subtle"
	"encoding/json"
	"html/template"
	"log/slog"
	"net/http"
	"regexp"
	"time"

	"github.com/chakshu-dev/chakshu/internal/appmanifest"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/server"
)

// Config builds the handler.
type Config struct {
	// PublicURL is CHAKSHU_PUBLIC_URL (the manifest's webhook, redirect and callback URLs).
	PublicURL string
	// GitHubURL is the REST base (conversion); WebURL GitHub's web side (the "new App" page).
	GitHubURL, WebURL string
	// DataDir receives app.env and app-key.pem.
	DataDir string
	// AppName is the App's name on GitHub; empty means "Chakshu".
	AppName string
	// Allow says whether the request may use the flow (no App configured yet,
	// or an admin). Required.
	Allow func(*http.Request) bool
	// HTTP calls GitHub; nil means a client with a 30 s timeout.
	HTTP *http.Client
	// Log receives operator errors; nil discards.
	Log *slog.Logger
	// Saved, when set, is called after the App's settings were stored.
	Saved func(*appmanifest.Saved, *appmanifest.Credentials)
}

// Handler serves the flow.
type Handler struct{ cfg Config }

// New validates cfg.
func New(cfg Config) (*Handler, error) {
	if cfg.Allow == nil || cfg.PublicURL == "" || cfg.GitHubURL == "" || cfg.WebURL == "" || cfg.DataDir == "" {
		return nil, errMissing
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Handler{cfg: cfg}, nil
}

type setupError string

func (e setupError) Error() string { return string(e) }

const errMissing = setupError("setup page: Allow, PublicURL, GitHubURL, WebURL and DataDir are required")

// Routes are GET /setup and GET /setup/callback (the manifest's redirect URL).
func (h *Handler) Routes() []server.Route {
	return []server.Route{
		{Pattern: "GET /setup", Handler: http.HandlerFunc(h.start)},
		{Pattern: "GET " + appmanifest.RedirectPath, Handler: http.HandlerFunc(h.callback)},
	}
}

const stateCookie = "chakshu_setup_state"

var orgName = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`)

var page = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Chakshu · create the GitHub App</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem}
code,pre{background:#f3f3f3;padding:.1rem .3rem}table{border-collapse:collapse}td,th{text-align:left;padding:.2rem .6rem;border-bottom:1px solid #ddd}</style>
</head><body><h1>Create Chakshu's GitHub App</h1>
{{if .Error}}<p role="alert"><strong>{{.Error}}</strong></p>{{end}}
{{if .Saved}}<p>The App <strong>{{.Slug}}</strong> was created. Its settings are in <code>{{.EnvFile}}</code> (mode 0600) and its key in <code>{{.KeyFile}}</code>.</p>
<ol><li>Add <code>CHAKSHU_MODEL_API_KEY</code> (and <code>CHAKSHU_DATABASE_URL</code> for PostgreSQL) to that file.</li>
<li>Restart Chakshu with <code>CHAKSHU_CONFIG_FILE={{.EnvFile}}</code>.</li>
<li><a href="{{.InstallURL}}">Install the App</a> on your organisation, then run <code>chakshu doctor</code>.</li></ol>
{{else if .Manifest}}<p>Chakshu will ask GitHub for these permissions and events (<code>{{.PublicURL}}</code> receives the webhooks):</p>
<table><tr><th>permission</th><th>access</th><th>why</th></tr>{{range .Permissions}}<tr><td>{{.Name}}</td><td>{{.Access}}</td><td>{{.Why}}</td></tr>{{end}}</table>
<p>Events: {{range $i, $e := .Events}}{{if $i}}, {{end}}<code>{{$e}}</code>{{end}}.</p>
<form method="post" action="{{.Action}}"><input type="hidden" name="manifest" value="{{.Manifest}}">
<button type="submit">Create the App on GitHub for {{if .Org}}{{.Org}}{{else}}my account{{end}}</button></form>
{{else}}<form method="get" action="/setup"><label>GitHub organisation <input name="org" required pattern="[A-Za-z0-9][A-Za-z0-9-]*"></label>
<button type="submit">Continue</button></form>{{end}}
</body></html>`))

type view struct {
	Error, PublicURL, Org, Action, Manifest string
	Permissions                             []appmanifest.Permission
	Events                                  []string
	Saved                                   bool
	Slug, EnvFile, KeyFile, InstallURL      string
}

func (h *Handler) render(w http.ResponseWriter, status int, v view) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	_ = page.Execute(w, v)
}

func (h *Handler) start(w http.ResponseWriter, r *http.Request) {
	if !h.cfg.Allow(r) {
		server.WriteError(w, http.StatusForbidden, "FORBIDDEN", "the setup page is open only while no GitHub App is configured, or to admins")
		return
	}
	org := r.URL.Query().Get("org")
	if org == "" {
		h.render(w, http.StatusOK, view{})
		return
	}
	if !orgName.MatchString(org) {
		h.render(w, http.StatusBadRequest, view{Error: "That is not a GitHub organisation name."})
		return
	}
	state := appmanifest.NewState()
	http.SetCookie(w, &http.Cookie{Name: stateCookie, Value: state, Path: "/setup", HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode, MaxAge: 3600})
	m, err := json.Marshal(appmanifest.BuildManifest(h.cfg.AppName, h.cfg.PublicURL))
	if err != nil {
		server.WriteError(w, http.StatusInternalServerError, "INTERNAL", "could not build the manifest")
		return
	}
	h.render(w, http.StatusOK, view{PublicURL: h.cfg.PublicURL, Org: org, Manifest: string(m),
		Action: appmanifest.NewAppURL(h.cfg.WebURL, org, state), Permissions: appmanifest.Permissions, Events: appmanifest.Events})
}

func (h *Handler) callback(w http.ResponseWriter, r *http.Request) {
	if !h.cfg.Allow(r) {
		server.WriteError(w, http.StatusForbidden, "FORBIDDEN", "the setup page is open only while no GitHub App is configured, or to admins")
		return
	}
	q := r.URL.Query()
	c, err := r.Cookie(stateCookie)
	if err != nil || q.Get("state") == "" || subtle.ConstantTimeCompare([]byte(c.Value), []byte(q.Get("state"))) != 1 {
		h.render(w, http.StatusBadRequest, view{Error: "This answer from GitHub does not match a setup started in this browser. Start again at /setup."})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: stateCookie, Path: "/setup", MaxAge: -1})
	creds, err := appmanifest.Convert(r.Context(), h.cfg.HTTP, h.cfg.GitHubURL, q.Get("code"))
	if err != nil {
		h.cfg.Log.Error("setup: manifest conversion", "err", redact.Error(err))
		h.render(w, http.StatusBadGateway, view{Error: "GitHub did not hand over the new App (the code may have expired). Start again at /setup."})
		return
	}
	saved, err := appmanifest.Save(h.cfg.DataDir, h.cfg.PublicURL, creds)
	if err != nil {
		h.cfg.Log.Error("setup: store the App's settings", "err", redact.Error(err), "app_slug", creds.Slug)
		h.render(w, http.StatusInternalServerError, view{Error: "The App " + creds.Slug + " was created on GitHub but its settings could not be stored in the data dir (see the log). Delete the App on GitHub and start again."})
		return
	}
	h.cfg.Log.Info("setup: GitHub App created", "app_slug", creds.Slug, "app_id", creds.ID, "config_file", saved.EnvFile)
	if h.cfg.Saved != nil {
		h.cfg.Saved(saved, creds)
	}
	install := creds.HTMLURL
	if install != "" {
		install += "/installations/new"
	}
	h.render(w, http.StatusOK, view{Saved: true, Slug: creds.Slug, EnvFile: saved.EnvFile, KeyFile: saved.KeyFile, InstallURL: install})
}
