package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/chakshu-dev/chakshu/internal/appmanifest"
	"github.com/chakshu-dev/chakshu/server"
	"github.com/chakshu-dev/chakshu/server/auth"
	"github.com/chakshu-dev/chakshu/server/setuppage"
)

const setupUsage = `Usage: chakshu setup [--org ORG] [--name NAME] [--print]
       chakshu setup --code CODE [--print]

Creates Chakshu's GitHub App from a manifest (GitHub's manifest flow) with exactly
the permissions and events Chakshu needs. Without --code it serves the setup page on
CHAKSHU_ADDR until GitHub sends you back to CHAKSHU_PUBLIC_URL/setup/callback, then
stores the App's settings in CHAKSHU_DATA_DIR/app.env (0600; point CHAKSHU_CONFIG_FILE
at it) and its key in app-key.pem. --code converts a code GitHub already handed out.
--print prints the settings to copy instead of storing them (with --code).`

// setupCmd runs `chakshu setup`.
func setupCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("setup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	org := fs.String("org", "", "GitHub organisation that will own the App (empty: your user account)")
	name := fs.String("name", "Chakshu", "the App's name on GitHub (unique on GitHub)")
	code := fs.String("code", "", "convert this manifest code instead of serving the setup page")
	printOnly := fs.Bool("print", false, "print the settings instead of storing them (with --code)")
	fs.Usage = func() { fmt.Fprintln(stdout, setupUsage) }
	if stop, err := parseFlags(fs, args); stop {
		return err
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	if *code != "" {
		creds, err := appmanifest.Convert(ctx, nil, cfg.GitHubURL, *code)
		if err != nil {
			return err
		}
		if *printOnly {
			fmt.Fprintf(stdout, "# GitHub App %s (id %d, %s): settings to copy\n", creds.Slug, creds.ID, creds.HTMLURL)
			fmt.Fprint(stdout, appmanifest.Format(creds.Settings("")))
			return nil
		}
		saved, err := appmanifest.Save(cfg.DataDir, cfg.PublicURL, creds)
		if err != nil {
			// The App exists on GitHub now: hand its settings over rather than lose them.
			fmt.Fprintf(stdout, "# Could not store the settings; copy them now (GitHub App %s, id %d):\n%s", creds.Slug, creds.ID, appmanifest.Format(creds.Settings("")))
			return err
		}
		fmt.Fprintf(stdout, "GitHub App %s (id %d) stored: CHAKSHU_CONFIG_FILE=%s (key %s)\nAdd CHAKSHU_MODEL_API_KEY there, install the App (%s/installations/new), then run `chakshu doctor`.\n",
			creds.Slug, creds.ID, saved.EnvFile, saved.KeyFile, creds.HTMLURL)
		return nil
	}
	if *printOnly {
		return fmt.Errorf("setup: --print needs --code (the page stores the settings in the data dir)")
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on CHAKSHU_ADDR %s: %w", cfg.Addr, err)
	}
	defer ln.Close()
	if cfg.PublicURLDefaulted { // CHAKSHU_ADDR may name port 0: the page is where it listens
		cfg.PublicURL = "http://" + ln.Addr().String()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h, err := setuppage.New(setuppage.Config{PublicURL: cfg.PublicURL, GitHubURL: cfg.GitHubURL, WebURL: auth.WebURL(cfg.GitHubURL),
		DataDir: cfg.DataDir, AppName: *name, Allow: func(*http.Request) bool { return true },
		Saved: func(s *appmanifest.Saved, c *appmanifest.Credentials) {
			fmt.Fprintf(stdout, "GitHub App %s (id %d) stored: CHAKSHU_CONFIG_FILE=%s\n", c.Slug, c.ID, s.EnvFile)
			time.AfterFunc(time.Second, cancel) // let the page reach the browser
		}})
	if err != nil {
		return err
	}
	start := cfg.PublicURL + "/setup"
	if *org != "" {
		start += "?org=" + url.QueryEscape(*org)
	}
	fmt.Fprintf(stdout, "Open %s in your browser (GitHub will send you back to %s%s).\n", start, cfg.PublicURL, appmanifest.RedirectPath)
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return server.Serve(ctx, ln, server.Handler(server.Config{Log: log, Routes: h.Routes()}), log)
}
