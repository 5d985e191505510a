package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/audit"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

const installationUsage = `Usage:
  chakshu installation set-reviewers-repo --installation <login|id> <owner/name>

Points an installation at another reviewers repository (it must belong to the
installation's account; "" goes back to <account>/chakshu-reviewers) and asks the
workers to sync it now. The same as the GraphQL mutation setReviewersRepository.`

// installationCmd runs `chakshu installation …`: admin changes to an
// installation, for whoever holds the database settings.
func installationCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(stdout, installationUsage)
		if len(args) == 0 {
			return errUsage
		}
		return nil
	}
	if args[0] != "set-reviewers-repo" {
		fmt.Fprintf(stderr, "chakshu installation: unknown action %q\n%s\n", args[0], installationUsage)
		return errUsage
	}
	fs := flag.NewFlagSet("installation set-reviewers-repo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	inst := fs.String("installation", "", "the installation: its account login or GitHub installation id")
	fs.Usage = func() { fmt.Fprintln(stdout, installationUsage) }
	if stop, err := parseFlags(fs, args[1:]); stop {
		return err
	}
	if *inst == "" || fs.NArg() != 1 {
		fmt.Fprintln(stderr, installationUsage)
		return errUsage
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	db, in, err := openInstallation(ctx, cfg, *inst)
	if err != nil {
		return err
	}
	defer db.Close()
	err = db.WithTx(ctx, func(tx *ent.Tx) error {
		in, err = reviewerconfig.SetReviewersRepoAs(ctx, tx.Client(), audit.CLIActor(), in.ID, fs.Arg(0))
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "installation %s now syncs reviewers from %s (a worker picks it up at once)\n", in.AccountLogin, reviewerconfig.ReviewersRepo(in))
	return nil
}
