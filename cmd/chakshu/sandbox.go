package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/internal/app"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
)

// sandboxCmd runs `chakshu all` in sandbox mode with flags a newcomer (or a
// load experiment) wants: port, seeded history size, data dir, reset.
func sandboxCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 8080, "port to listen on (127.0.0.1)")
	seed := fs.Int("seed-size", 600, "past runs to seed so the portal has history (0: none)")
	dir := fs.String("data-dir", "", "data directory (default CHAKSHU_DATA_DIR or ./data)")
	reset := fs.Bool("reset", false, "delete the sandbox's SQLite database first")
	latency := fs.Duration("model-latency", 0, "delay of each scripted model answer (0 to 1m), to watch a run's log live")
	provider := fs.String("provider", "", "model provider simulated in front of the scripted model: anthropic, bedrock, vertex, foundry or openai")
	fs.Usage = func() {
		fmt.Fprintln(stdout, "Usage: chakshu sandbox [--port N] [--seed-size N] [--data-dir DIR] [--reset] [--model-latency D] [--provider anthropic|bedrock|vertex|foundry|openai]\n\nRuns Chakshu with a simulated GitHub, Actions runner and model. No GitHub App or model key is used.")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
	}
	if stop, err := parseFlags(fs, args); stop {
		return err
	}
	switch *provider {
	case "", "anthropic", "bedrock", "vertex", "foundry", "openai":
	default:
		fmt.Fprintf(stderr, "chakshu sandbox: --provider: want anthropic, bedrock, vertex, foundry or openai, got %q\n", *provider)
		return errUsage
	}
	if *latency < 0 || *latency > time.Minute {
		fmt.Fprintf(stderr, "chakshu sandbox: --model-latency: want a duration from 0 to 1m such as 300ms, got %s\n", *latency)
		return errUsage
	}
	look, err := config.FromEnv()
	if err != nil {
		return err
	}
	// The sandbox builds its settings: the environment's, then the flags,
	// and always the simulated world on SQLite.
	var set config.All
	if err := config.Parse(look, &set); err != nil {
		return err
	}
	set.Addr = fmt.Sprintf("127.0.0.1:%d", *port)
	if *dir != "" {
		set.DataDir = *dir
	}
	set.AppID, set.PrivateKey, set.PrivateKeyFile, set.DatabaseURL = 0, "", "", ""
	cfg, err := set.Config()
	if err != nil {
		return err
	}
	if *reset {
		for _, f := range []string{"chakshu.db", "chakshu.db-wal", "chakshu.db-shm"} {
			if err := os.Remove(filepath.Join(cfg.DataDir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("reset: %w", err)
			}
		}
	}
	n := *seed
	if n == 0 {
		n = -1
	}
	return app.Run(ctx, app.Options{Mode: app.ModeAll, Config: cfg, Stderr: stderr, Stdout: stdout,
		Sandbox: app.SandboxOptions{HistoryRuns: n, Provider: *provider, Model: scriptedmodel.Config{Latency: *latency}}})
}

// workflowCmd prints the workflow template users commit.
func workflowCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	const usage = "Usage: chakshu workflow print\n\nPrints the workflow template to commit as " + action.WorkflowPath + " on each reviewed\nrepository's default branch (`chakshu doctor` compares each repository's copy by meaning)."
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" || a == "help" {
			fmt.Fprintln(stdout, usage)
			return nil
		}
	}
	if len(args) != 1 || args[0] != "print" {
		fmt.Fprintln(stderr, usage)
		return errUsage
	}
	_, err := io.WriteString(stdout, action.WorkflowTemplate)
	return err
}
