// Command chakshu is Chakshu's one binary: the web and worker processes (or
// both in one, all), the sandbox, and the operator's commands (setup, doctor,
// migrate, eval, init, secrets, connector, installation, workflow, probe).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/chakshu-dev/chakshu/internal/app"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/version"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "chakshu:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

// parseFlags parses args into fs; stop says the command goes no further:
// with nil after -h or --help (the usage is printed), with errUsage after a
// flag that does not parse.
func parseFlags(fs *flag.FlagSet, args []string) (stop bool, err error) {
	err = fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return true, nil
	case err != nil:
		return true, errUsage
	}
	return false, nil
}

type command struct {
	name, summary, help string
	run                 func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	// ownArgs: the command parses its own flags and sub-commands.
	ownArgs bool
	// flags, when set, adds the command's flags before parsing.
	flags func(*flag.FlagSet)
}

func commands() []command {
	return []command{
		{name: "all", summary: "run web and worker in one process (the embedded default)",
			help: "Runs the webhook intake, runner API, GraphQL and portal together with the worker.\nWith no GitHub App configured it starts in sandbox mode.", run: processCmd(app.ModeAll)},
		{name: "web", summary: "run the HTTP side: webhooks, runner API, model gateway, GraphQL, portal",
			help: "Serves HTTP on CHAKSHU_ADDR. Stores webhooks; never handles them inline.", run: processCmd(app.ModeWeb)},
		{name: "worker", summary: "run the background side: webhooks, dispatch, publishing, sweeps, sync",
			help: "Handles stored webhooks, dispatches runs, publishes results. Serves no HTTP.", run: processCmd(app.ModeWorker)},
		{name: "sandbox", summary: "run `chakshu all` in sandbox mode with flags for port, seed size, data dir and reset",
			run: sandboxCmd, ownArgs: true},
		{name: "connector", summary: "set, delete or list connector credentials (stored encrypted)",
			run: connectorCmd, ownArgs: true},
		{name: "installation", summary: "admin changes to an installation: set-reviewers-repo",
			run: installationCmd, ownArgs: true},
		{name: "secrets", summary: "re-seal stored credentials and tokens under the current CHAKSHU_SECRET_KEY (key rotation)",
			run: secretsCmd, ownArgs: true},
		{name: "init", summary: "write a reviewers repository to start from: chakshu init reviewers DIR",
			run: initCmd, ownArgs: true},
		{name: "workflow", summary: "print the workflow template to commit as .github/workflows/chakshu.yml",
			help: "Usage: chakshu workflow print", run: workflowCmd, ownArgs: true},
		{name: "enrol", summary: "open onboarding pull requests adding the workflow, with your own token: chakshu enrol OWNER/REPO...",
			run: enrolCmd, ownArgs: true},
		{name: "setup", summary: "create the GitHub App from a manifest and store its settings in the data dir",
			run: setupCmd, ownArgs: true},
		doctorCommand(),
		evalCommand(),
		{name: "probe", summary: "ask this process's internal listener for /readyz (--live: /healthz); exit 0 on 200",
			run: probeCmd, ownArgs: true},
		{name: "migrate", summary: "bring the database to the current schema and exit",
			help: "Additive migration of SQLite or PostgreSQL (CHAKSHU_DATABASE_URL). Also run at every start.", run: migrateCmd},
		{name: "version", summary: "print the version (vMAJOR.MINOR.PATCH from the release tag)", run: func(_ context.Context, _ []string, stdout, _ io.Writer) error {
			fmt.Fprintln(stdout, "chakshu", version.Version)
			return nil
		}},
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: chakshu <command> [--help]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
}

// settingsHelp prints the settings the command reads, from their tags:
// web and worker their own, every other command all of them.
func settingsHelp(w io.Writer, command string) {
	config.Help(w, processSettings(command))
}

// processSettings is the settings struct command reads.
func processSettings(command string) any {
	switch command {
	case "web":
		return &config.Web{}
	case "worker":
		return &config.Worker{}
	}
	return &config.All{}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return errUsage
		}
		return nil
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		if c.ownArgs {
			return c.run(ctx, args[1:], stdout, stderr)
		}
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		fs.SetOutput(stderr)
		if c.flags != nil {
			c.flags(fs)
		}
		fs.Usage = func() {
			fmt.Fprintf(stdout, "Usage: chakshu %s\n\n%s\n", c.name, c.summary)
			if c.help != "" {
				fmt.Fprintln(stdout, c.help)
			}
			if c.flags != nil {
				fmt.Fprintln(stdout, "\nFlags:")
				fs.SetOutput(stdout)
				fs.PrintDefaults()
			}
			if c.name != "version" {
				settingsHelp(stdout, c.name)
			}
		}
		if stop, err := parseFlags(fs, args[1:]); stop {
			return err
		}
		return c.run(ctx, fs.Args(), stdout, stderr)
	}
	fmt.Fprintf(stderr, "chakshu: unknown command %q\n", args[0])
	usage(stderr)
	return errUsage
}

// loadConfig reads what every command but web and worker reads.
func loadConfig() (*config.Config, error) { return loadConfigFor("all") }

// loadConfigFor reads what process reads (web, worker; else all).
func loadConfigFor(process string) (*config.Config, error) {
	look, err := config.FromEnv()
	if err != nil {
		return nil, err
	}
	return config.LoadFor(process, look)
}

func processCmd(mode app.Mode) func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return func(ctx context.Context, _ []string, stdout, stderr io.Writer) error {
		cfg, err := loadConfigFor(string(mode))
		if err != nil {
			return err
		}
		return app.Run(ctx, app.Options{Mode: mode, Config: cfg, Stderr: stderr, Stdout: stdout})
	}
}

func migrateCmd(ctx context.Context, _ []string, stdout, _ io.Writer) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	db, err := openMigrated(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Fprintln(stdout, "database is at the current schema")
	return nil
}
