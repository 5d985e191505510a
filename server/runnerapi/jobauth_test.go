package runnerapi

import (
	"testing"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// A job request without a bearer token is refused with 401 whatever its
// body: the caller learns nothing of the API (not the body's shape) before
// it authenticates. It answered 400 about the body first (issue 23).
func TestJobAsksForTheTokenBeforeTheBody(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		rn := w.dispatch(run.KindReview)
		bodies := map[string]any{
			"empty":        "",
			"not JSON":     "run me",
			"no run id":    `{}`,
			"negative id":  `{"run_id":-1}`,
			"a valid body": runnerproto.JobRequest{RunID: int64(rn.ID)},
		}
		for name, body := range bodies {
			for _, auth := range []string{"", "Basic abc", "Bearer"} {
				var e runnerproto.Error
				st := w.do(runnerproto.PathJob, body, map[string]string{"Authorization": auth}, &e)
				if st != 401 || e.Error.Code != codeUnauthorized {
					t.Errorf("%s, authorization %q: %d %+v, want 401 %s", name, auth, st, e, codeUnauthorized)
				}
			}
		}
		// With a bearer, a malformed body is still a 400.
		var e runnerproto.Error
		if st := w.do(runnerproto.PathJob, `{}`, map[string]string{"Authorization": "Bearer " + w.token(rn)}, &e); st != 400 || e.Error.Code != codeBadRequest {
			t.Fatalf("bearer with a body without run_id: %d %+v, want 400", st, e)
		}
	})
}
