// Package runner is chakshu-action's main flow: get the workflow's OIDC
// token, fetch the job from Chakshu (one per Chakshu run when reviewers share
// the Actions run, each then reviewed side by side), drop the runner's GitHub credentials
// from the environment, check the checkout, build the sanitised workspace,
// run the agent, write the job summary and report the result. It never
// exits the process and touches the process environment only through Config
// (tests run it in-process; the sandbox runs the built binary, as GitHub does).
package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chakshu-dev/chakshu/action/agent"
	"github.com/chakshu-dev/chakshu/action/internal/ghlog"
	"github.com/chakshu-dev/chakshu/action/tools"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/version"
)

// Environment variables the runner reads and then removes before the agent
// starts.
const (
	EnvIDTokenURL   = "ACTIONS_ID_TOKEN_REQUEST_URL"
	EnvIDTokenToken = "ACTIONS_ID_TOKEN_REQUEST_TOKEN"
	EnvGitHubToken  = "GITHUB_TOKEN"
)

// RemovedEnv lists the variables removed before the agent starts.
var RemovedEnv = []string{EnvIDTokenURL, EnvIDTokenToken, EnvGitHubToken}

// Failure reasons of the runner's own steps.
const (
	ReasonHeadMoved = "the checkout is not at the pull request's head commit"
	ReasonWorkspace = "the workspace could not be built"
	ReasonBadJob    = "the job from Chakshu could not be used"
	ReasonBadResult = "the agent's result could not be checked"
)

// ErrRunFailed is returned (wrapped) when the run reported a failure.
var ErrRunFailed = errors.New("review failed")

// Config configures one run.
type Config struct {
	// ServerURL is Chakshu's base URL.
	ServerURL string
	// Audience of the OIDC token; defaults to ServerURL.
	Audience string
	// RunID is the Chakshu run the workflow was dispatched for.
	RunID int64
	// RunIDs are all the runs the workflow was dispatched for when several
	// reviewers share the Actions run (RunID among them); empty for RunID
	// alone. Each is fetched with the same OIDC token and reviewed side by
	// side, with its own run token, cost cap, report and summary section.
	RunIDs []int64
	// CheckoutDir holds the pull request's head commit.
	CheckoutDir string
	// WorkDir is where the workspace is created (RUNNER_TEMP).
	WorkDir string
	// Lookup reads the environment (os.LookupEnv in the action).
	Lookup func(string) (string, bool)
	// Unsetenv removes a variable (os.Unsetenv in the action; tests pass
	// their own so the process environment is left alone).
	Unsetenv func(string) error
	// Stdout is the Actions log.
	Stdout io.Writer
	// SummaryPath is $GITHUB_STEP_SUMMARY ("" to skip).
	SummaryPath string
	// HTTPClient reaches the OIDC endpoint and Chakshu; nil means a client
	// with a 2-minute timeout.
	HTTPClient *http.Client
	// CheckHead verifies the checkout is at sha; nil means GitHead.
	CheckHead func(dir, sha string) error
	// ReportAttempts and ReportBackoff bound the result report's retries
	// (defaults 5 and 2s, doubling).
	ReportAttempts int
	ReportBackoff  time.Duration
	// Agent tunes the agent (its Job, Tools, Log and HTTPClient are set here).
	Agent agent.Config
}

// Run does one run. It returns an error when the run did not produce a
// result (after reporting why, when it could).
func Run(ctx context.Context, cfg Config) error {
	if cfg.Stdout == nil {
		cfg.Stdout = io.Discard
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 2 * time.Minute}
	}
	if cfg.CheckHead == nil {
		cfg.CheckHead = GitHead
	}
	if cfg.Audience == "" {
		cfg.Audience = cfg.ServerURL
	}
	if cfg.ReportAttempts == 0 {
		cfg.ReportAttempts = 5
	}
	if cfg.ReportBackoff == 0 {
		cfg.ReportBackoff = 2 * time.Second
	}
	if cfg.Lookup == nil || cfg.Unsetenv == nil {
		return errors.New("runner: Lookup and Unsetenv are required")
	}
	if cfg.ServerURL == "" || cfg.RunID <= 0 {
		return errors.New("runner: the Chakshu URL and the run id are required")
	}
	log := cfg.Stdout
	start := time.Now()
	fmt.Fprintf(log, "chakshu-action %s\n", version.Version)

	// Read the credentials, then remove them at once: nothing later, the
	// agent least of all, can find them in the environment.
	idURL, _ := cfg.Lookup(EnvIDTokenURL)
	idToken, _ := cfg.Lookup(EnvIDTokenToken)
	for _, k := range RemovedEnv {
		if err := cfg.Unsetenv(k); err != nil {
			return fmt.Errorf("remove %s from the environment: %w", k, err)
		}
	}
	if idURL == "" || idToken == "" {
		fmt.Fprintln(log, "::error::No OIDC token available: the workflow needs `permissions: id-token: write`.")
		return errors.New("runner: ACTIONS_ID_TOKEN_REQUEST_URL/TOKEN not set")
	}
	fmt.Fprintf(log, "::add-mask::%s\n", idToken)
	oidc, err := requestOIDC(ctx, cfg.HTTPClient, idURL, idToken, cfg.Audience)
	if err != nil {
		fmt.Fprintln(log, "::error::Could not get an OIDC token from GitHub Actions.")
		return err
	}
	fmt.Fprintf(log, "::add-mask::%s\n", oidc)
	ids := cfg.RunIDs
	if len(ids) == 0 {
		ids = []int64{cfg.RunID}
	}
	if len(ids) == 1 {
		return runOne(ctx, cfg, oidc, ids[0], start)
	}
	// Reviews side by side in the one job: one failing stops none of the
	// others, and each line of the log says whose it is.
	fmt.Fprintf(log, "Reviewing for %d Chakshu runs in this job.\n", len(ids))
	shared := &lockedLog{w: log}
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			one := cfg
			pw := shared.prefixed(fmt.Sprintf("[run %d] ", id))
			one.Stdout = pw
			errs[i] = runOne(ctx, one, oidc, id, start)
			pw.Flush()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// runOne fetches run id's job with the workflow's OIDC token, reviews and
// reports. It returns an error when the run did not produce a result.
func runOne(ctx context.Context, cfg Config, oidc string, id int64, start time.Time) error {
	log := cfg.Stdout
	job, err := fetchJob(ctx, cfg.HTTPClient, cfg.ServerURL, oidc, id)
	if err != nil {
		fmt.Fprintf(log, "::error::%s\n", safeLine(err))
		return err
	}
	fmt.Fprintf(log, "::add-mask::%s\n", job.RunToken)
	fmt.Fprintf(log, "Chakshu run %d: %s reviewer %s on %s#%d at %s\n", job.RunID, ghlog.Escape(job.Kind), ghlog.Escape(strconv.Quote(job.Reviewer)), ghlog.Escape(job.Repository), job.PR.Number, ghlog.Escape(job.PR.HeadSHA))

	r := &report{cfg: cfg, job: job, start: start}
	if job.RunID != id || job.RunToken == "" || job.ResultURL == "" || job.ModelURL == "" {
		return r.failure(ctx, ReasonBadJob, fmt.Errorf("job for run %d: missing fields", job.RunID), nil)
	}
	if err := cfg.CheckHead(cfg.CheckoutDir, job.PR.HeadSHA); err != nil {
		return r.failure(ctx, ReasonHeadMoved, err, nil)
	}
	rv, err := Review(ctx, ReviewConfig{Job: job, CheckoutDir: cfg.CheckoutDir, WorkDir: cfg.WorkDir,
		Log: log, HTTPClient: cfg.HTTPClient, Agent: cfg.Agent})
	if rv != nil {
		r.set, r.out, r.samples, r.verify = rv.Tools, rv.Outcome, rv.Samples, rv.Verify
	}
	if err != nil {
		var rf *ReviewFailure
		if errors.As(err, &rf) {
			return r.failure(ctx, rf.Reason, rf.Err, r.out)
		}
		return r.failure(ctx, ReasonWorkspace, err, r.out)
	}
	out, set := rv.Outcome, rv.Tools
	writeSummary(cfg.SummaryPath, job, out, set, rv.Verify, nil, time.Since(start))
	result, err := out.Result.JSON() // the one encoding of the result
	if err != nil {
		return r.failure(ctx, ReasonBadResult, err, out)
	}
	if err := r.send(ctx, runnerproto.Report{Result: result, Stats: r.stats(), Evidence: rv.Evidence}); err != nil {
		fmt.Fprintln(log, "::error::The result could not be delivered to Chakshu.")
		return err
	}
	fmt.Fprintln(log, "Result delivered to Chakshu.")
	return nil
}

// report sends the run's outcome.
type report struct {
	cfg   Config
	job   *runnerproto.Job
	start time.Time
	set   *tools.Set
	out   *agent.Outcome
	// samples are the figures of a review in several passes (nil for one).
	samples *findings.Samples
	// verify are the verification step's figures (nil without one).
	verify *findings.Verification
}

func (r *report) stats() runnerproto.Stats {
	s := runnerproto.Stats{DurationMS: time.Since(r.start).Milliseconds()}
	if r.out != nil {
		s.Turns, s.ToolCalls = r.out.Turns, r.out.ToolCalls
	}
	if r.set != nil {
		s.FilesRead = r.set.FilesRead()
	}
	s.Samples = r.samples
	s.Verify = r.verify
	return s
}

// failure reports a failed run and returns the error Run ends with.
func (r *report) failure(ctx context.Context, reason string, detail error, out *agent.Outcome) error {
	fmt.Fprintf(r.cfg.Stdout, "::error::Chakshu review failed: %s\n", ghlog.Escape(reason))
	writeSummary(r.cfg.SummaryPath, r.job, out, r.set, r.verify, &reason, time.Since(r.start))
	f := &runnerproto.Failure{Reason: reason}
	if detail != nil {
		f.Detail = redact.String(detail.Error())
	}
	if err := r.send(ctx, runnerproto.Report{Failure: f, Stats: r.stats()}); err != nil {
		fmt.Fprintln(r.cfg.Stdout, "::error::The failure could not be delivered to Chakshu.")
		return fmt.Errorf("%w: %s (and reporting it failed: %v)", ErrRunFailed, reason, err)
	}
	return fmt.Errorf("%w: %s", ErrRunFailed, reason)
}

// send posts the report, retrying network errors, 429 and 5xx with backoff.
// The server treats a repeat as already accepted, so retrying is safe.
func (r *report) send(ctx context.Context, rep runnerproto.Report) error {
	rep.Protocol = runnerproto.Protocol
	body, err := json.Marshal(rep)
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	_, err = postRetrying(ctx, r.cfg.HTTPClient, r.job.ResultURL, r.job.RunToken, body, "report result", 64<<10, retryPolicy{
		attempts: r.cfg.ReportAttempts,
		wait: func(n int, retryAfter time.Duration) time.Duration {
			if retryAfter > 0 {
				return min(retryAfter, 30*time.Second)
			}
			return r.cfg.ReportBackoff << (n - 1)
		},
		onRetry: func(err error, wait time.Duration) {
			fmt.Fprintf(r.cfg.Stdout, "Reporting to Chakshu failed (%s); retrying in %s\n", safeLine(err), wait)
		},
	})
	return err
}

// retryPolicy says how many times a request whose repeat is safe is tried,
// and the wait before each retry.
type retryPolicy struct {
	attempts int
	// wait is the wait before retry n (1-based), given the Retry-After of the
	// answer before it (0 when it gave none).
	wait func(n int, retryAfter time.Duration) time.Duration
	// onRetry, if set, hears each retried failure before the wait.
	onRetry func(err error, wait time.Duration)
}

// postRetrying posts body to Chakshu until it answers 2xx, or an error that
// asking again cannot mend, or the attempts run out. Network errors, 429 and
// 5xx are retried (nothing was handed out or recorded on those answers). It
// returns the 2xx answer's body (at most limit bytes), or the last failure as
// an error prefixed with what.
func postRetrying(ctx context.Context, hc *http.Client, target, bearer string, body []byte, what string, limit int64, p retryPolicy) ([]byte, error) {
	var last error
	var retryAfter time.Duration
	for attempt := range p.attempts {
		if attempt > 0 {
			wait := p.wait(attempt, retryAfter)
			if p.onRetry != nil {
				p.onRetry(last, wait)
			}
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("%s: %w", what, ctx.Err())
			case <-time.After(wait):
			}
		}
		retryAfter = 0
		resp, err := doJSON(ctx, hc, target, bearer, body)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%s: %w", what, ctx.Err())
			}
			last = fmt.Errorf("%s: could not reach Chakshu: %s", what, redact.Error(err))
			continue
		}
		raw, err := io.ReadAll(io.LimitReader(resp.Body, limit))
		resp.Body.Close()
		if err != nil {
			last = fmt.Errorf("%s: reading the answer: %s", what, redact.Error(err))
			continue
		}
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			return raw, nil
		}
		last = apiErr(what, resp.StatusCode, raw)
		if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
			return nil, last
		}
		if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
			retryAfter = time.Duration(secs) * time.Second
		}
	}
	return nil, last
}

func doJSON(ctx context.Context, hc *http.Client, target, bearer string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	return hc.Do(req)
}

// apiErr turns a Chakshu error answer into an error with its safe message.
func apiErr(what string, status int, raw []byte) error {
	var e runnerproto.Error
	if json.Unmarshal(raw, &e) == nil && e.Error.Code != "" {
		return fmt.Errorf("%s: Chakshu answered %d %s: %s", what, status, e.Error.Code, e.Error.Message)
	}
	return fmt.Errorf("%s: Chakshu answered HTTP %d", what, status)
}

// requestOIDC gets the workflow's OIDC token for audience.
func requestOIDC(ctx context.Context, hc *http.Client, reqURL, bearer, audience string) (string, error) {
	sep := "&"
	if !strings.Contains(reqURL, "?") {
		sep = "?"
	}
	u := reqURL + sep + "audience=" + url.QueryEscape(audience)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", fmt.Errorf("oidc request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("oidc request: %s", redact.Error(err))
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("oidc request: HTTP %d", resp.StatusCode)
	}
	var v struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || v.Value == "" {
		return "", errors.New("oidc request: no token in the answer")
	}
	return v.Value, nil
}

// jobAttempts bounds the job fetch: with the waits of jobRetryWait, about
// half a minute, well inside the Actions OIDC token's lifetime.
const jobAttempts = 6

// jobRetryWait is the wait before attempt n (1-based retries): Chakshu's
// Retry-After when it gave one (capped), else 1, 2, 4, 8, 16 s.
var jobRetryWait = func(n int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, 30*time.Second)
	}
	return time.Duration(1<<(n-1)) * time.Second
}

// fetchJob asks Chakshu for the run's job, retrying network errors, 429 (a
// busy server or many runners behind one address) and 5xx. Nothing is
// handed out on those answers, so asking again is safe.
func fetchJob(ctx context.Context, hc *http.Client, server, oidc string, runID int64) (*runnerproto.Job, error) {
	body, _ := json.Marshal(runnerproto.JobRequest{RunID: runID, RunnerVersion: version.Version, Protocol: runnerproto.Protocol})
	jobURL := strings.TrimRight(server, "/") + runnerproto.PathJob
	raw, err := postRetrying(ctx, hc, jobURL, oidc, body, "fetch job", 32<<20, retryPolicy{attempts: jobAttempts, wait: jobRetryWait})
	if err != nil {
		return nil, err
	}
	var job runnerproto.Job
	if err := json.Unmarshal(raw, &job); err != nil {
		return nil, fmt.Errorf("fetch job: invalid answer: %w", err)
	}
	return &job, nil
}

// safeLine is err on one line, redacted and escaped for the Actions log.
func safeLine(err error) string {
	return ghlog.Escape(strings.Join(strings.Fields(redact.Error(err)), " "))
}
