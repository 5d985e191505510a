package app

import (
	"context"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	appsetup "github.com/chakshu-dev/chakshu/internal/appmanifest"
	"github.com/chakshu-dev/chakshu/server"
	"github.com/chakshu-dev/chakshu/server/auth"
	"github.com/chakshu-dev/chakshu/server/setuppage"
)

// setupTokenCookie keeps the one-time setup token between the pages of the
// flow (GitHub's redirect back to /setup/callback is a top-level GET, which
// carries a SameSite=Lax cookie).
const setupTokenCookie = "chakshu_setup_token"

// runSetupMode is `chakshu web` with no GitHub App configured: it serves the
// App manifest flow (/setup) and health, nothing else (no database, no
// portal, no sandbox), on CHAKSHU_ADDR, so an operator can create the App
// from the deployed process at its public URL. The page stores an App's
// credentials in the data dir, so whoever completes it decides which App
// this install trusts: it is open only with a one-time token that this
// process prints on start (stdout and the log), like an installer's first
// password. Creating the App on an Enterprise Server host follows
// CHAKSHU_GITHUB_URL (docs "Registering a GitHub App from a manifest",
// enterprise-server: the same /settings/apps/new paths on the instance's
// host). After the App is stored, restart with CHAKSHU_CONFIG_FILE.
func runSetupMode(ctx context.Context, o Options, log *slog.Logger) error {
	cfg := o.Config
	token := appsetup.NewState() + appsetup.NewState()
	allowed := func(r *http.Request) bool {
		got := r.URL.Query().Get("token")
		if c, err := r.Cookie(setupTokenCookie); got == "" && err == nil {
			got = c.Value
		}
		return subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
	}
	ln := o.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", cfg.Addr); err != nil {
			return fmt.Errorf("listen on CHAKSHU_ADDR %s: %w", cfg.Addr, err)
		}
	}
	public := cfg.ServedOn(ln.Addr().String()).PublicURL
	h, err := setuppage.New(setuppage.Config{PublicURL: public, GitHubURL: cfg.GitHubURL, WebURL: auth.WebURL(cfg.GitHubURL),
		DataDir: cfg.DataDir, Log: log, Allow: allowed,
		Saved: func(s *appsetup.Saved, c *appsetup.Credentials) {
			log.Info("setup: GitHub App stored; restart web and worker with its settings", "app_slug", c.Slug, "config_file", s.EnvFile)
		}})
	if err != nil {
		return err
	}
	var routes []server.Route
	for _, rt := range h.Routes() {
		next := rt.Handler
		routes = append(routes, server.Route{Pattern: rt.Pattern, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if q := r.URL.Query().Get("token"); q != "" && allowed(r) { // keep it for the rest of the flow
				http.SetCookie(w, &http.Cookie{Name: setupTokenCookie, Value: q, Path: "/setup", HttpOnly: true,
					Secure: r.TLS != nil || cfg.PublicURLHTTPS(), SameSite: http.SameSiteLaxMode, MaxAge: 3600})
			}
			next.ServeHTTP(w, r)
		})})
	}
	start := public + "/setup?token=" + token
	log.Warn("setup mode: no GitHub App is configured (CHAKSHU_APP_ID, CHAKSHU_PRIVATE_KEY); this process serves only /setup to create one", "open", start)
	fmt.Fprintf(o.Stdout, "No GitHub App is configured: open %s to create one (the link works for this process only).\n", start)
	hl := server.NewHealth(nil)
	hl.Start()
	if o.Started != nil {
		o.Started(ln.Addr().String())
	}
	return server.ServeDrain(ctx, ln, server.Handler(server.Config{Log: log, Health: hl, Routes: routes}), log, cfg.DrainTimeout)
}
