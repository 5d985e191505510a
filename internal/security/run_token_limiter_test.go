package security

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// junkRunTokens is one more made-up run token than the runner API's limiter
// keeps buckets for (server/runnerapi maxBuckets, 10,000): past that a new
// run token is refused with 429 rather than the limiter grown.
const junkRunTokens = 10_001

// TestJunkRunTokensLeaveNoLimiterState (issue 43 item 3): made-up chkr_
// tokens, for a running run and for runs that do not exist, are refused
// with 401 and given no rate-limit bucket. The limiter is only observable
// from outside through its bound: had each refused token taken a bucket
// before it was checked, the limiter would be full after 10,000 of them,
// and the run's real runner, whose token is new to it, would be refused
// with 429 (and the last junk token too, with 429 instead of 401).
func TestJunkRunTokensLeaveNoLimiterState(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		h, _ := runnerAPI(t, db)
		const realToken = "chkr_the-runners-own-token"
		sum := sha256.Sum256([]byte(realToken))
		_, rn := capRun(t, db, 1)
		rn = rn.Update().SetRunTokenHash(hex.EncodeToString(sum[:])).SaveX(context.Background())
		if rn.Status != run.StatusRunning {
			t.Fatalf("run is %s, want running", rn.Status)
		}
		toolPath := func(id int) string {
			return strings.Replace(strings.Replace(runnerproto.PathTool, "{id}", strconv.Itoa(id), 1), "{tool}", "github.read_file", 1)
		}
		for i := range junkRunTokens {
			id := rn.ID
			if i%10 == 0 {
				id = rn.ID + 1 + i // no such run
			}
			if w := postRunner(h, toolPath(id), fmt.Sprintf("Bearer chkr_made-up-%d", i), `{"input":{}}`); w.Code != http.StatusUnauthorized {
				t.Fatalf("made-up token %d for run %d: %d %s, want 401", i, id, w.Code, w.Body)
			}
		}
		w := postRunner(h, toolPath(rn.ID), "Bearer "+realToken, `{"input":{}}`)
		// Past the token check and the limiter, the tool is refused: the
		// reviewer declares no connector.
		if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "tool_not_declared") {
			t.Fatalf("the run's own token after %d made-up ones: %d %s, want 403 tool_not_declared", junkRunTokens, w.Code, w.Body)
		}
	})
}
