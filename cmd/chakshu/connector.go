package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/internal/audit"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/connectors"
	"github.com/chakshu-dev/chakshu/internal/store"
)

const connectorUsage = `Usage:
  chakshu connector set    --installation <login|id> --connector <name> --name <credential> --hosts <host[:port],...> [--value-env VAR]
  chakshu connector delete --installation <login|id> --connector <name> --name <credential>
  chakshu connector list   --installation <login|id>

Stores connector credentials encrypted with CHAKSHU_SECRET_KEY. "set" reads the secret from
standard input (or from the environment variable named by --value-env), never from the command line.
--hosts lists the exact hosts (optional :port; without one, only the scheme's default port) the http
connector may send the credential to; it is required for http credentials, and a call to any other host
is refused before the credential is attached. A credential stored without hosts is refused until set again.
Reviewers refer to a credential by name, e.g. reviewer.yaml http: [{credential: jira, header: Authorization}].`

// connectorCmd implements "chakshu connector set|delete|list".
func connectorCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return connectorMain(ctx, args, os.Stdin, stdout, stderr)
}

func connectorMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stdout, connectorUsage)
		if len(args) == 0 {
			return errUsage
		}
		return nil
	}
	verb := args[0]
	fs := flag.NewFlagSet("connector "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	inst := fs.String("installation", "", "installation account login or GitHub installation id")
	conn := fs.String("connector", "http", "connector name")
	name := fs.String("name", "", "credential name")
	valueEnv := fs.String("value-env", "", "read the secret from this environment variable instead of stdin")
	by := fs.String("by", os.Getenv("USER"), "who set it (recorded)")
	hostList := fs.String("hosts", "", "comma-separated hosts the credential may be sent to (required for http)")
	fs.Usage = func() { fmt.Fprintln(stderr, connectorUsage) }
	if stop, err := parseFlags(fs, args[1:]); stop {
		return err
	}
	if *inst == "" || (verb != "list" && *name == "") {
		fmt.Fprintln(stderr, connectorUsage)
		return errUsage
	}
	switch verb {
	case "set", "delete", "list":
	default:
		fmt.Fprintf(stderr, "chakshu connector: unknown action %q\n%s\n", verb, connectorUsage)
		return errUsage
	}

	cfg, sealer, err := credentialSealer()
	if err != nil {
		return err
	}
	db, in, err := openInstallation(ctx, cfg, *inst)
	if err != nil {
		return err
	}
	defer db.Close()
	creds := &connectors.Credentials{DB: db.Client, Sealer: sealer}
	switch verb {
	case "set":
		hosts, err := connectors.NormalizeHosts(*conn, strings.Split(*hostList, ","))
		if err != nil {
			return err
		}
		secret, err := readSecret(stdin, *valueEnv)
		if err != nil {
			return err
		}
		err = db.WithTx(ctx, func(tx *ent.Tx) error { // the credential and its audit entry, together
			txCreds := &connectors.Credentials{DB: tx.Client(), Sealer: sealer}
			if err := txCreds.Set(ctx, in.ID, *conn, *name, secret, *by, hosts); err != nil {
				return err
			}
			return audit.Record(ctx, tx.Client(), audit.Entry{Actor: audit.CLIActor(), Action: audit.CredentialSet, InstallationID: in.ID,
				Target: fmt.Sprintf("connector %s credential %s", *conn, *name), Detail: "hosts " + hostsText(hosts) + ", set by " + *by})
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "stored credential %s/%s for %s, sent only to %s\n", *conn, *name, in.AccountLogin, hostsText(hosts))
	case "delete":
		err := db.WithTx(ctx, func(tx *ent.Tx) error {
			txCreds := &connectors.Credentials{DB: tx.Client(), Sealer: sealer}
			if err := txCreds.Delete(ctx, in.ID, *conn, *name); err != nil {
				return err
			}
			return audit.Record(ctx, tx.Client(), audit.Entry{Actor: audit.CLIActor(), Action: audit.CredentialDelete, InstallationID: in.ID,
				Target: fmt.Sprintf("connector %s credential %s", *conn, *name)})
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "deleted credential %s/%s of %s\n", *conn, *name, in.AccountLogin)
	case "list":
		list, err := creds.List(ctx, in.ID)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "CONNECTOR\tNAME\tHOSTS\tSET BY\tUPDATED")
		for _, c := range list {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Connector, c.Name, hostsText(c.Hosts), c.CreatedBy, c.UpdatedAt)
		}
		return tw.Flush()
	}
	return nil
}

// hostsText shows a credential's hosts; none means every call is refused.
func hostsText(hosts []string) string {
	if len(hosts) == 0 {
		return "(none: refused)"
	}
	return strings.Join(hosts, ",")
}

// openInstallation opens and migrates cfg's database and finds there the
// installation ref names (findInstallation); the caller closes the database.
func openInstallation(ctx context.Context, cfg *config.Config, ref string) (*store.DB, *ent.Installation, error) {
	db, err := openMigrated(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	in, err := findInstallation(ctx, db.Client, ref)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, in, nil
}

// findInstallation finds the installation ref names: its GitHub id, or its
// account's login in any case.
func findInstallation(ctx context.Context, db *ent.Client, ref string) (*ent.Installation, error) {
	q := db.Installation.Query()
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		q = q.Where(installation.GithubID(id))
	} else {
		q = q.Where(installation.AccountLoginEqualFold(ref))
	}
	in, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, fmt.Errorf("no installation %q is known to Chakshu", ref)
	}
	if err != nil {
		return nil, fmt.Errorf("find installation: %w", err)
	}
	return in, nil
}

func readSecret(stdin io.Reader, env string) (string, error) {
	if env != "" {
		v, ok := os.LookupEnv(env)
		if !ok || v == "" {
			return "", fmt.Errorf("environment variable %s is not set", env)
		}
		return v, nil
	}
	b, err := io.ReadAll(io.LimitReader(stdin, connectors.MaxCredentialBytes+2))
	if err != nil {
		return "", fmt.Errorf("read the secret from stdin: %w", err)
	}
	s := strings.TrimRight(string(b), "\r\n")
	if s == "" {
		return "", errors.New("no secret on stdin")
	}
	return s, nil
}
