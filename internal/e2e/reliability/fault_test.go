package reliability

import (
	"fmt"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/redact"
)

// TestFaultSoak: the simulator fails 10% of every GitHub request with a 5xx,
// 5% with 429 + Retry-After and drops 2% of connections. Every review still
// publishes exactly once, and each failure that exhausted its 3 attempts is
// visible to the operator with a redacted reason.
func TestFaultSoak(t *testing.T) {
	if testing.Short() && !full() {
		t.Skip("multi-process fault test: not in -short")
	}
	// Inside the burst of content writes Chakshu's pacing allows at once
	// (an eighth of GitHub's 500 an hour, retries of injected faults
	// included), so the small size settles in minutes; the full size is
	// paced as TestCrashSoak's.
	prsN := size(5, 40)
	c := startCluster(t, clusterOptions{webs: 2, workers: 3})
	sim := c.SB.Sim
	// First matching rule fires, so later rates are scaled to give the
	// wanted share of all requests: 10% 5xx, 5% 429, 2% dropped.
	ghsimtest.InjectFault(sim, ghsimtest.Fault{Match: "*", Kind: ghsimtest.FaultServerError, Status: 502, Rate: 0.10})
	ghsimtest.InjectFault(sim, ghsimtest.Fault{Match: "*", Kind: ghsimtest.FaultRateLimit, RetryAfter: 1, Rate: 0.05 / 0.90})
	ghsimtest.InjectFault(sim, ghsimtest.Fault{Match: "*", Kind: ghsimtest.FaultDrop, Rate: 0.02 / 0.85})

	prs := openPRs(c, prsN, "fault", nil)
	for i, n := range prs {
		if i%2 == 0 { // replies and answers go through the faults too
			sim.Comment(relRepo, n, "dana", "@chakshu review style")
		}
	}
	f := settle(t, c, prs, 2*prsN, time.Duration(size(4, 45))*time.Minute)
	hits := [3]int{ghsimtest.FaultHits(sim, 0), ghsimtest.FaultHits(sim, 1), ghsimtest.FaultHits(sim, 2)}
	total := 0
	for _, n := range sim.Calls() {
		total += n
	}
	ghsimtest.ClearFaults(sim)
	line := fmt.Sprintf("fault soak: %s github_requests=%d 5xx=%d 429=%d dropped=%d", f, total, hits[0], hits[1], hits[2])
	t.Log(line)
	fmt.Println(line)
	f.check(t)
	if hits[0] == 0 || hits[1] == 0 || hits[2] == 0 {
		t.Errorf("faults did not fire: %v", hits)
	}
	if f.succeeded < f.runs/2 {
		t.Errorf("only %d of %d runs succeeded through retries", f.succeeded, f.runs)
	}

	// Every failure is visible with a reason, and the reason is redacted.
	rows, err := c.DB.Query(`SELECT id, failure_reason, failure_detail FROM runs WHERE status = 'failed'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int
		var reason, detail string
		rows.Scan(&id, &reason, &detail) //nolint:errcheck
		t.Logf("failed run %d: %s | %s", id, reason, detail)
		if reason == "" || detail == "" {
			t.Errorf("failed run %d has no visible reason (%q / %q)", id, reason, detail)
		}
		if redact.String(detail) != detail {
			t.Errorf("failed run %d: detail not redacted: %s", id, detail)
		}
	}
	rows.Close()
	rows, err = c.DB.Query(`SELECT delivery_id, last_error FROM webhook_events WHERE status = 'failed'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, le string
		rows.Scan(&id, &le) //nolint:errcheck
		t.Logf("failed event %s: %s", id, le)
		if le == "" || redact.String(le) != le {
			t.Errorf("failed event %s: last_error %q empty or not redacted", id, le)
		}
	}
	rows.Close()
}
