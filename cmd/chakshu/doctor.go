package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/chakshu-dev/chakshu/internal/doctor"
)

func doctorCommand() command {
	var asJSON bool
	return command{name: "doctor", summary: "check the configuration end to end; one line per check with a fix for each failure",
		help: "Checks the database, live workers, the webhook secret, the public URL, the Actions OIDC issuer, the OAuth\n" +
			"client, the App key, each installation's permissions and each repository's workflow (by meaning;\n" +
			"a repository without it is listed as not enrolled, not failed), the reviewers repo and the model\n" +
			"upstream. Exits 1 when a check fails, 0 otherwise: run it as a deploy gate.",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&asJSON, "json", false, "print one JSON report {ok, failed, total, checks: [{name, status: ok|fail|info, detail, fix}]}")
		},
		run: func(ctx context.Context, _ []string, stdout, _ io.Writer) error {
			return doctorCmd(ctx, asJSON, stdout)
		}}
}

// doctorCmd runs `chakshu doctor`: one line per check, a fix under each
// failure (or one JSON report), and a non-zero exit when anything failed.
func doctorCmd(ctx context.Context, asJSON bool, stdout io.Writer) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	cs := doctor.Run(ctx, doctor.Config{Settings: doctor.SettingsFrom(cfg)})
	if asJSON {
		if err := doctor.WriteJSON(stdout, cs); err != nil {
			return err
		}
	} else {
		doctor.Write(stdout, cs)
	}
	if n := doctor.Failed(cs); n > 0 {
		return fmt.Errorf("doctor: %d checks failed", n)
	}
	return nil
}
