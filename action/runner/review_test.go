package runner

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/chakshu-dev/chakshu/action/agent"
)

// Review's refusals carry the reason Run reports.
func TestReviewFailures(t *testing.T) {
	ctx := context.Background()
	var rf *ReviewFailure
	if _, err := Review(ctx, ReviewConfig{}); !errors.As(err, &rf) || rf.Reason != ReasonBadJob {
		t.Fatalf("no job: %v", err)
	}
	job := reviewJob()
	rv, err := Review(ctx, ReviewConfig{Job: &job, CheckoutDir: filepath.Join(t.TempDir(), "missing"), WorkDir: t.TempDir()})
	if !errors.As(err, &rf) || rf.Reason != ReasonWorkspace || rv != nil {
		t.Fatalf("missing checkout: %v, %+v", err, rv)
	}
	// The agent ran and failed (no model answers here): the outcome is
	// returned with the agent's reason.
	job.ModelURL, job.RunToken = "http://127.0.0.1:1/model", "t"
	rv, err = Review(ctx, ReviewConfig{Job: &job, CheckoutDir: t.TempDir(), WorkDir: t.TempDir(), Agent: agent.Config{RetryHorizon: 1}})
	if !errors.As(err, &rf) || rf.Reason != agent.ReasonGateway || rv == nil || rv.Outcome == nil || rv.Outcome.Failure == nil {
		t.Fatalf("unreachable gateway: %v, %+v", err, rv)
	}
}
