package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/chakshu-dev/chakshu/action/agent"
	"github.com/chakshu-dev/chakshu/action/internal/ghlog"
	"github.com/chakshu-dev/chakshu/action/tools"
	"github.com/chakshu-dev/chakshu/action/workspace"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

// ReviewConfig is what one review of a checkout needs once the job is known.
type ReviewConfig struct {
	// Job is the job from Chakshu (or, for `chakshu eval`, one built for a
	// corpus case).
	Job *runnerproto.Job
	// CheckoutDir holds the head commit.
	CheckoutDir string
	// WorkDir is where the workspace is created; "" means os.TempDir().
	WorkDir string
	// Log is the Actions log; nil discards.
	Log io.Writer
	// HTTPClient reaches the tool proxy and, unless Agent sets its own, the
	// model gateway.
	HTTPClient *http.Client
	// Agent tunes the agent (its Job, Tools and Log are set here).
	Agent agent.Config
}

// Reviewed is what a review produced: the agent's outcome (its Result is
// what is reported) and the tool set it used.
type Reviewed struct {
	Outcome *agent.Outcome
	Tools   *tools.Set
	// Workspace reports what the sanitised workspace left out.
	Workspace *workspace.Report
	// Dropped counts findings the runner took out of the result before
	// reporting it: by the samples' vote and by the evidence check
	// (`chakshu eval` prints it).
	Dropped int
	// Samples are the figures of a review in several passes (nil for one).
	Samples *findings.Samples
	// Evidence is the evidence check of a review's findings (nil for a
	// reply): what was kept, moved to where its quote is, and dropped.
	Evidence *runnerproto.EvidenceReport
	// Verify is the verification step's figures (nil when the job did not
	// ask for it); Dropped counts its refuted findings too.
	Verify *findings.Verification
}

// ReviewFailure is a review that produced no result, with the safe reason
// Chakshu is told.
type ReviewFailure struct {
	Reason string
	Err    error
}

func (e *ReviewFailure) Error() string {
	if e.Err == nil {
		return e.Reason
	}
	return e.Reason + ": " + e.Err.Error()
}

// Review builds the sanitised workspace from the checkout and runs the agent
// on it: the part of a run between fetching the job and reporting the result.
// Run and `chakshu eval` both call it, so whatever the runner does to a
// result before reporting it applies to both. A failed review returns a
// *ReviewFailure, and the Reviewed so far (its Outcome may be set) when the
// agent ran.
func Review(ctx context.Context, cfg ReviewConfig) (*Reviewed, error) {
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	job := cfg.Job
	fail := func(reason string, err error) error { return &ReviewFailure{Reason: reason, Err: err} }
	if job == nil {
		return nil, fail(ReasonBadJob, errors.New("no job"))
	}
	workDir := cfg.WorkDir
	if workDir == "" {
		workDir = os.TempDir()
	}
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return nil, fail(ReasonWorkspace, err)
	}
	wsDir, err := os.MkdirTemp(workDir, "chakshu-workspace-")
	if err != nil {
		return nil, fail(ReasonWorkspace, err)
	}
	defer os.RemoveAll(wsDir)
	rep, err := workspace.Build(workspace.Config{Checkout: cfg.CheckoutDir, Dir: wsDir, Rules: job.ClaudeMD, Skills: job.Skills})
	if err != nil {
		return nil, fail(ReasonWorkspace, err)
	}
	fmt.Fprintf(log, "Workspace: %d files copied; %d paths left out\n", rep.Files, len(rep.Removed))
	for _, rm := range rep.Removed {
		// Paths come from the checkout: escaped, so a directory named with
		// a newline and "::warning …" prints as text (issue 19 item 11).
		fmt.Fprintf(log, "  left out %s (%s)\n", ghlog.Escape(rm.Path), ghlog.Escape(rm.Reason))
	}
	fsys, err := tools.OpenFS(wsDir)
	if err != nil {
		return nil, fail(ReasonWorkspace, err)
	}
	defer fsys.Close()
	set, err := tools.New(tools.Config{FS: fsys, Kind: job.Kind, Skills: job.Skills, Connectors: job.Tools,
		ToolURL: job.ToolURL, RunToken: job.RunToken, HTTPClient: cfg.HTTPClient, Diff: job.Diff})
	if err != nil {
		return nil, fail(ReasonBadJob, err)
	}
	ac := cfg.Agent
	ac.Job, ac.Tools, ac.Log = job, set, log
	if ac.HTTPClient == nil {
		ac.HTTPClient = cfg.HTTPClient
	}
	out, samples := runReview(ctx, ac)
	rv := &Reviewed{Outcome: out, Tools: set, Workspace: rep, Samples: samples}
	if samples != nil {
		rv.Dropped += samples.Dropped
	}
	if out.Failure != nil {
		return rv, fail(out.Failure.Reason, errors.New(out.Failure.Detail))
	}
	// The evidence check runs on the agreed result of every pass, against
	// the workspace the agent read.
	// The result was parsed once, by the submit tool (or the vote); each
	// step below changes it as it is, and the report encodes it once.
	res := out.Result.Review
	if job.Kind != "reply" {
		if res == nil {
			return rv, fail(ReasonBadResult, errors.New("the result is not a review's"))
		}
		ev := checkEvidence(fsys, res)
		rv.Evidence = ev
		rv.Dropped += ev.Dropped
		logEvidence(log, ev)
	}
	if job.Kind == "review" {
		noteLookups(res, set)
	}
	// The verifier (verify.go) checks what the vote and the evidence check
	// kept, each file's findings in a fresh conversation.
	if job.Kind == "review" && job.Verify != nil {
		vs := verifyFindings(ctx, verifyConfig{Agent: ac, FS: fsys, Result: res, Spent: out.CostUSD, Log: log})
		rv.Verify = vs
		rv.Dropped += vs.Refuted
	}
	return rv, nil
}
