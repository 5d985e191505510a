package runnerapi

import (
	"context"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// A result that quotes a credential is stored once, redacted: the typed
// result (what the publisher posts) masks the summary, title and body and
// drops the suggestion that held it; the run's summary is masked too.
func TestResultStoredRedacted(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		rn, job := w.runningReview(t)
		const key = "ghp_abcdefghijklmnopqrstuvwxyz0123"
		result := `{"summary":"Found ` + key + `.","checked":{"files":[],"skills":[]},"findings":[` +
			`{"path":"auth/login.go","line":4,"severity":"blocker","category":"security","title":"Key ` + key + ` committed",` +
			`"body":"Remove ` + key + `.","suggestion":"token := \"` + key + `\"\n"},` +
			`{"path":"auth/login.go","line":5,"severity":"nit","category":"style","title":"Name","body":"Rename.","suggestion":"x := 1\n"}]}`
		var ack runnerproto.ReportAck
		if st := w.do(runPath(runnerproto.PathResult, rn.ID), `{"result":`+result+`,"stats":{"files_read":["auth/login.go"]}}`, bearer(job.RunToken), &ack); st != 200 {
			t.Fatalf("status %d", st)
		}
		got := db.Run.GetX(ctx, rn.ID)
		if got.Result == nil || got.Result.Review == nil || len(got.Result.Review.Findings) != 2 {
			t.Fatalf("stored result %+v", got.Result)
		}
		res := got.Result.Review
		f, clean := res.Findings[0], res.Findings[1]
		if res.Summary != "Found [REDACTED]." || f.Title != "Key [REDACTED] committed" || f.Body != "Remove [REDACTED]." || f.Suggestion != nil {
			t.Errorf("stored finding not redacted: summary %q, %+v", res.Summary, f)
		}
		if clean.Suggestion == nil || *clean.Suggestion != "x := 1\n" || clean.Side != "RIGHT" {
			t.Errorf("a clean finding was changed: %+v", clean)
		}
		if c := got.Result.Checked; c == nil || len(c.Files) != 1 || c.Files[0] != "auth/login.go" {
			t.Errorf("stored coverage %+v: files read by the runner stand in for the agent's empty list", c)
		}
		if strings.Contains(got.Summary, "ghp_") {
			t.Errorf("summary holds the key: %q", got.Summary)
		}
	})
}

// runningReview dispatches a review run and fetches its job: the run is
// running, its token in the job.
func (w *world) runningReview(t *testing.T) (*ent.Run, *runnerproto.Job) {
	t.Helper()
	rn := w.dispatch(run.KindReview)
	st, job, e := w.fetchJob(rn, w.token(rn))
	if st != 200 {
		t.Fatalf("job: %d %+v", st, e)
	}
	return rn, job
}
