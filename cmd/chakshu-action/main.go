// Command chakshu-action runs Chakshu's reviews of one Actions run on a GitHub Actions runner:
// the workflow template downloads it from Chakshu (of the server's own
// version; action/action.yml builds it from source instead) and starts it.
// Settings come from the step's environment: CHAKSHU_URL, CHAKSHU_AUDIENCE
// (optional), CHAKSHU_RUN_ID, CHAKSHU_RUN_IDS (optional: every run of a
// shared Actions run, comma-separated), CHAKSHU_CHECKOUT, CHAKSHU_REPORT_BACKOFF
// (optional: the first wait between result-report retries, default 2s), and
// the runner's own RUNNER_TEMP, GITHUB_STEP_SUMMARY and
// ACTIONS_ID_TOKEN_REQUEST_*.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/chakshu-dev/chakshu/action/runner"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "chakshu-action: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	runID, err := strconv.ParseInt(os.Getenv("CHAKSHU_RUN_ID"), 10, 64)
	if err != nil || runID <= 0 {
		return fmt.Errorf("CHAKSHU_RUN_ID must be a run id, got %q", os.Getenv("CHAKSHU_RUN_ID"))
	}
	runIDs, err := runner.ParseRunIDs(os.Getenv("CHAKSHU_RUN_IDS"), runID)
	if err != nil {
		return err
	}
	checkout := os.Getenv("CHAKSHU_CHECKOUT")
	if checkout == "" {
		checkout = os.Getenv("GITHUB_WORKSPACE")
	}
	work := os.Getenv("RUNNER_TEMP")
	if work == "" {
		work = os.TempDir()
	}
	var backoff time.Duration
	if v := os.Getenv("CHAKSHU_REPORT_BACKOFF"); v != "" {
		if backoff, err = time.ParseDuration(v); err != nil || backoff <= 0 || backoff > time.Minute {
			return fmt.Errorf("CHAKSHU_REPORT_BACKOFF must be a duration up to 1m, got %q", v)
		}
	}
	return runner.Run(ctx, runner.Config{
		ServerURL:     os.Getenv("CHAKSHU_URL"),
		Audience:      os.Getenv("CHAKSHU_AUDIENCE"),
		RunID:         runID,
		RunIDs:        runIDs,
		CheckoutDir:   checkout,
		WorkDir:       work,
		Lookup:        os.LookupEnv,
		Unsetenv:      os.Unsetenv,
		Stdout:        os.Stdout,
		SummaryPath:   os.Getenv("GITHUB_STEP_SUMMARY"),
		ReportBackoff: backoff,
	})
}
