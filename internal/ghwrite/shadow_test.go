package ghwrite_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
)

// For a shadow run the port refuses every write that touches the pull
// request, before any request leaves: the simulator receives nothing. The
// same writes without the mark reach GitHub, so the refusal is the mark's.
func TestShadowRunWritesNothingOnThePR(t *testing.T) {
	w := newWorld(t)
	check := ghwrite.Check{Repo: w.repo, Name: ghwrite.CheckName("security", false), HeadSHA: w.head, RunID: 7}
	text := ghwrite.Text{Title: "t", Summary: "s"}
	writes := []struct {
		name  string
		write func(ctx context.Context) error
	}{
		{"open check", func(ctx context.Context) error {
			_, _, err := w.port.OpenCheck(ctx, check, "http://x/runs/7", text)
			return err
		}},
		{"start check", func(ctx context.Context) error { return w.port.StartCheck(ctx, withID(check), text) }},
		{"note check", func(ctx context.Context) error { return w.port.NoteCheck(ctx, withID(check), text) }},
		{"complete check", func(ctx context.Context) error {
			return w.port.CompleteCheck(ctx, withID(check), "success", time.Now(), text)
		}},
		{"review", func(ctx context.Context) error {
			_, err := w.port.CreateReview(ctx, w.repo, w.pr, &github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"), Body: github.Ptr("b " + marker)}, mine)
			return err
		}},
		{"comment", func(ctx context.Context) error {
			_, err := w.port.Comment(ctx, w.repo, w.pr, "c "+marker, mine, false)
			return err
		}},
		{"reply", func(ctx context.Context) error {
			_, err := w.port.Reply(ctx, w.repo, w.pr, 1, "r "+marker, mine, false)
			return err
		}},
		{"resolve thread", func(ctx context.Context) error { return w.port.ResolveThread(ctx, w.repo, "PRRT_x") }},
		{"remove review request", func(ctx context.Context) error { return w.port.RemoveReviewRequest(ctx, w.repo, w.pr, "user:alice") }},
	}
	shadow := ghwrite.ForRun(context.Background(), &ent.Run{Shadow: true})
	if ghwrite.WritesOnPR(shadow) || !ghwrite.WritesOnPR(ghwrite.ForRun(context.Background(), &ent.Run{})) {
		t.Fatal("WritesOnPR does not follow the run's shadow mark")
	}
	for _, c := range writes {
		t.Run(c.name, func(t *testing.T) {
			if err := c.write(shadow); !errors.Is(err, ghwrite.ErrShadow) {
				t.Fatalf("shadow %s: err = %v, want ErrShadow", c.name, err)
			}
		})
	}
	if n := w.sim.TotalCalls(""); n != 0 {
		t.Fatalf("a shadow run's refused writes reached GitHub: %d requests %v", n, w.sim.Calls())
	}
	// For a run that is not a shadow run, the same writes go out (the first
	// two create what exists).
	real := ghwrite.ForRun(context.Background(), &ent.Run{})
	if _, _, err := w.port.OpenCheck(real, check, "http://x/runs/7", text); err != nil {
		t.Fatal(err)
	}
	if _, err := w.port.CreateReview(real, w.repo, w.pr, &github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"), Body: github.Ptr("b " + marker)}, mine); err != nil {
		t.Fatal(err)
	}
	if len(w.sim.CheckRuns(repoName)) != 1 || len(w.sim.Reviews(repoName, w.pr)) != 1 {
		t.Fatalf("unmarked writes did not land: checks %d, reviews %d", len(w.sim.CheckRuns(repoName)), len(w.sim.Reviews(repoName, w.pr)))
	}
}

func withID(c ghwrite.Check) ghwrite.Check { c.ID = 1; return c }
