package runnerapi

import "github.com/chakshu-dev/chakshu/internal/runnerproto"

// ReviewInput is what a review's prompts say of a pull request that is not
// on GitHub: a `chakshu eval` corpus case.
type ReviewInput struct {
	Reviewer, Repository string
	PR                   runnerproto.PR
	Files                []string
	Diff                 string
	MaxFindings          int
}

// RenderReviewPrompts renders a review's system and user prompts from the
// templates a job for a real pull request is built with, so `chakshu eval`
// measures the prompts that run in production.
func RenderReviewPrompts(in ReviewInput) (system, user string, err error) {
	return renderPrompts("review", promptData{Reviewer: in.Reviewer, Repository: in.Repository, PR: in.PR,
		Files: in.Files, Diff: in.Diff, MaxFindings: in.MaxFindings})
}
