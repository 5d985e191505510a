package reliability

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/e2e/cluster"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
)

// webhookSecret signs the simulator's deliveries (and the test's own).
const webhookSecret = "reliability-secret"

type hostileCase struct {
	name, method, path string
	body               []byte
	header             map[string]string
	sign               bool
}

func nested(depth int) []byte {
	return []byte(`{"action":"opened","x":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`)
}

func big(n int) []byte {
	return []byte(`{"action":"opened","pad":"` + strings.Repeat("A", n) + `"}`)
}

// TestHostileInput: oversized and deeply nested JSON, invalid UTF-8 and junk
// on every HTTP endpoint (webhooks with a valid signature, the runner API,
// GraphQL); a PR with thousands of files, a huge patch, binary files and odd
// paths; comment commands with control characters. Each gets a clear 4xx or a
// safe skip, never a 5xx, and every process lives.
func TestHostileInput(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-process hostile input test: not in -short")
	}
	c := startCluster(t, clusterOptions{webs: 1, workers: 1})
	sim := c.SB.Sim
	web := "http://" + c.Addr(c.ByMode("web")[0])
	forged, _ := sim.IssueActionsToken(999999, c.URL) // a real signature for an Actions run Chakshu never dispatched
	invalidUTF8 := []byte("{\"action\":\"opened\xff\xfe\",\"installation\":{\"id\":1},\"repository\":{\"full_name\":\"acme/\xc3\x28\"}}")
	bodies := map[string][]byte{
		"oversized (30 MB)":      big(30 << 20),
		"nested 100000 deep":     nested(100000),
		"nested 5000 deep":       nested(5000),
		"invalid UTF-8":          invalidUTF8,
		"not JSON":               []byte("\x00\x01\x02 not json"),
		"JSON array":             []byte(`[1,2,3]`),
		"empty":                  nil,
		"huge string key":        []byte(`{"` + strings.Repeat("k", 1<<20) + `":1}`),
		"numbers out of range":   []byte(`{"action":"opened","number":1e400,"installation":{"id":-99999999999999999999}}`),
		"duplicate keys":         []byte(`{"action":"opened","action":"closed","installation":{"id":1},"installation":null}`),
		"control chars":          []byte("{\"action\":\"created\\u0000\\u001b[2J\",\"comment\":{\"body\":\"@chakshu review \\u0007\\u202e\"}}"),
		"graphql nested":         []byte(`{"query":"` + strings.Repeat("{a", 20000) + strings.Repeat("}", 20000) + `"}`),
		"graphql many aliases":   []byte(`{"query":"{` + strings.Repeat("a:__typename ", 50000) + `}"}`),
		"graphql invalid UTF-8":  []byte("{\"query\":\"{ \xff\xfe }\"}"),
		"graphql vars nested":    []byte(`{"query":"{ __typename }","variables":{"x":` + strings.Repeat("[", 50000) + strings.Repeat("]", 50000) + `}}`),
		"graphql oversized 10MB": []byte(`{"query":"{ __typename }","pad":"` + strings.Repeat("B", 10<<20) + `"}`),
	}
	var cases []hostileCase
	for name, b := range bodies {
		for _, ev := range []string{"pull_request", "issue_comment"} {
			cases = append(cases, hostileCase{name: "webhook " + ev + " " + name, method: "POST", path: "/webhooks/github", body: b, sign: true,
				header: map[string]string{"X-GitHub-Event": ev, "X-GitHub-Delivery": fmt.Sprintf("hostile-%s-%d", ev, len(cases))}})
		}
		cases = append(cases,
			hostileCase{name: "webhook unsigned " + name, method: "POST", path: "/webhooks/github", body: b,
				header: map[string]string{"X-GitHub-Event": "ping", "X-GitHub-Delivery": fmt.Sprintf("hostile-u-%d", len(cases))}},
			hostileCase{name: "graphql " + name, method: "POST", path: "/graphql", body: b, header: map[string]string{"Content-Type": "application/json"}},
			hostileCase{name: "runner job (forged OIDC) " + name, method: "POST", path: "/api/runner/v1/job", body: b,
				header: map[string]string{"Authorization": "Bearer " + forged, "Content-Type": "application/json"}},
			hostileCase{name: "runner result " + name, method: "POST", path: "/api/runner/v1/runs/1/result", body: b,
				header: map[string]string{"Authorization": "Bearer chkr_notarealtokennotarealtoken"}},
			hostileCase{name: "runner tool " + name, method: "POST", path: "/api/runner/v1/runs/1/tools/github.search", body: b,
				header: map[string]string{"Authorization": "Bearer chkr_notarealtokennotarealtoken"}},
			hostileCase{name: "model gateway " + name, method: "POST", path: "/api/runner/v1/runs/1/model/v1/messages", body: b,
				header: map[string]string{"x-api-key": "chkr_notarealtokennotarealtoken"}},
		)
	}
	for _, p := range []string{"/api/runner/v1/runs/..%2f..%2fetc/result", "/api/runner/v1/runs/1%00/result", "/graphql?query=%00%ff", "/webhooks/github/../../graphql"} {
		cases = append(cases, hostileCase{name: "path " + p, method: "POST", path: p, body: []byte(`{}`)})
	}
	cl := &http.Client{Timeout: 60 * time.Second}
	statuses := map[int]int{}
	for _, tc := range cases {
		req, err := http.NewRequest(tc.method, web+tc.path, bytes.NewReader(tc.body))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		if tc.sign {
			m := hmac.New(sha256.New, []byte(webhookSecret))
			m.Write(tc.body)
			req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(m.Sum(nil)))
		}
		resp, err := cl.Do(req)
		if err != nil {
			// A server may close the connection on a body over its cap
			// before reading it all; that is a clear refusal too.
			if len(tc.body) < 8<<20 {
				t.Errorf("%s: %v", tc.name, err)
			}
			statuses[-1]++
		} else {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			statuses[resp.StatusCode]++
			if resp.StatusCode >= 500 {
				t.Errorf("%s: %d %s", tc.name, resp.StatusCode, b)
			}
			if resp.StatusCode >= 400 && resp.Header.Get("Content-Type") != "" && !strings.Contains(resp.Header.Get("Content-Type"), "json") &&
				!strings.Contains(resp.Header.Get("Content-Type"), "text/plain") {
				t.Errorf("%s: %d answered as %s", tc.name, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		}
		if !cluster.Healthy(web) {
			t.Fatalf("web died after %s", tc.name)
		}
	}
	t.Logf("%d hostile requests; statuses %v (-1: connection closed on an oversized body)", len(cases), statuses)

	// A PR with thousands of files, a huge patch, binary files, odd paths.
	nFiles, patchKB := size(200, 10000), size(256, 50<<10)
	files := map[string]string{}
	for i := 0; i < nFiles; i++ {
		files[fmt.Sprintf("gen/f%05d.go", i)] = fmt.Sprintf("package gen\n\n// F%d is generated.\nfunc F%d() int { return %d }\n", i, i, i)
	}
	files["gen/huge.sql"] = strings.Repeat("INSERT INTO t VALUES ('"+strings.Repeat("x", 1000)+"');\n", patchKB)
	files["assets/logo.png"] = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x00\xff\xfe", 10000)
	files["odd/..hidden.go"] = "package odd\n"
	files["odd/-rf .go"] = "package odd\n"
	files["odd/ünï cödé.go"] = "package odd\n"
	files["odd/ctl\x1b[31m.go"] = "package odd\n"
	files["odd/rtl\u202eog.exe"] = "package odd\n"
	files["odd/invalid\xff.go"] = "package odd\n"
	t.Logf("hostile PR: %d files, a %d KB patch", len(files), patchKB)
	sim.CreateBranch(relRepo, "hostile", "main")
	sim.Commit(relRepo, "hostile", files, "hostile: many files, a huge patch, binaries, odd paths")
	pr := sim.OpenPR(relRepo, "hostile", "main", "Hostile \x00\x1b[2J title \u202e", "Body \xff\xfe with invalid UTF-8", sandbox.Writer, false)
	for _, body := range []string{
		"@chakshu review \x00\x07\x1b[2J sec\u202eurity",
		"@chakshu\u200b review style",
		"@chakshu review " + strings.Repeat("security ", 10000),
		"@chakshu review style\n" + strings.Repeat("\x1b[31m", 5000),
		"@chakshu review ../../etc/passwd style\x00",
		"@chakshu review style",
	} {
		sim.Comment(relRepo, pr, sandbox.Writer, body)
	}
	t.Log("hostile PR opened and commented on")
	// Everything in it is content GitHub accepts: it gets a review like any
	// other PR, from each reviewer asked for.
	runs := waitRunsEnded(t, c, pr)
	head := sim.PR(relRepo, pr).HeadSHA
	if len(runs) == 0 {
		t.Fatal("the hostile PR got no run")
	}
	for rv, r := range runs {
		if r.status != "succeeded" {
			t.Errorf("hostile PR: %s ended %s (%q), want succeeded", rv, r.status, r.reason)
		}
	}
	reviews := 0
	for _, r := range sim.Reviews(relRepo, pr) {
		if r.Author == "chakshu[bot]" && r.CommitID == head {
			reviews++
		}
	}
	if reviews != len(runs) {
		t.Errorf("hostile PR: %d reviews published for %d runs", reviews, len(runs))
	}
	checkRunsCompleted(t, sim.CheckRuns(relRepo), head, len(runs))

	// Paths git will not check out (a ".." component, NUL, .git): GitHub
	// refuses such a push, and if a tree held one anyway actions/checkout
	// fails on it. The review fails with a clear reason, the Actions log
	// names the path, and nothing is written outside the checkout.
	sim.CreateBranch(relRepo, "hostile-paths", "main")
	sim.Commit(relRepo, "hostile-paths", map[string]string{
		"odd/../../../escape.go": "package escape\n",
		"odd/nul\x00name.go":     "package odd\n",
		"odd/.git/config":        "[core]\n",
	}, "paths git refuses")
	pr2 := sim.OpenPR(relRepo, "hostile-paths", "main", "Paths git refuses", "", sandbox.Writer, false)
	runs2 := waitRunsEnded(t, c, pr2) // auto review on open
	const checkoutFailed = "The Actions run failed without sending a result; its log says why."
	for rv, r := range runs2 {
		if r.status != "failed" || r.reason != checkoutFailed {
			t.Errorf("paths git refuses: %s ended %s (%q), want failed %q", rv, r.status, r.reason, checkoutFailed)
		}
	}
	checkRunsCompleted(t, sim.CheckRuns(relRepo), sim.PR(relRepo, pr2).HeadSHA, len(runs2))
	// The reviewers queued together share one Actions run (one log).
	actionsRuns := c.Count(`SELECT count(DISTINCT actions_run_id) FROM runs WHERE pr_number = $1 AND actions_run_id <> 0`, pr2)
	if n := actionsLogsContaining(t, c, "::error::checkout: invalid path"); n != actionsRuns || n == 0 {
		t.Errorf("%d Actions logs name the path git refused, want one for each of the %d Actions runs", n, actionsRuns)
	}
	if _, err := os.Stat(filepath.Join(os.TempDir(), "escape.go")); err == nil {
		t.Error("the checkout wrote escape.go outside its directory")
	}

	for _, p := range c.ByMode("worker") {
		select {
		case <-c.Done(p):
			t.Errorf("%s exited", p.Name)
		default:
		}
	}
	if !cluster.Healthy(web) {
		t.Error("web not healthy at the end")
	}
	for _, p := range append(c.ByMode("web"), c.ByMode("worker")...) {
		b, _ := os.ReadFile(filepath.Join(c.LogDir, p.Name+".log"))
		if bytes.Contains(b, []byte("panic")) || bytes.Contains(b, []byte("goroutine ")) {
			t.Errorf("%s logged a panic:\n%s", p.Name, cluster.Tail(string(b), 40))
		}
	}
}

type runEnd struct{ status, reason string }

// waitRunsEnded waits until pr has runs, all terminal, and no webhook event is
// left unhandled; it returns each reviewer's run outcome.
func waitRunsEnded(t *testing.T, c *cluster.Cluster, pr int) map[string]runEnd {
	t.Helper()
	cluster.WaitFor(t, time.Duration(size(2, 15))*time.Minute, fmt.Sprintf("PR #%d's runs to end and its events to be handled", pr), func() bool {
		open := c.Count(`SELECT count(*) FROM runs WHERE pr_number = $1 AND status NOT IN ('succeeded','failed','cancelled')`, pr)
		runs := c.Count(`SELECT count(*) FROM runs WHERE pr_number = $1`, pr)
		pending := c.Count(`SELECT count(*) FROM webhook_events WHERE status IN ('pending','processing') AND attempts = 0`)
		// A failed run's check is completed by the finisher after the run
		// ends (DESIGN §3), so wait for that too before reading check runs.
		unfinished := c.Count(`SELECT count(*) FROM runs WHERE pr_number = $1 AND check_run_id <> 0 AND NOT check_completed`, pr)
		return runs >= 1 && open == 0 && pending == 0 && unfinished == 0
	})
	rows, err := c.DB.Query(`SELECT v.name, r.status, r.failure_reason FROM runs r JOIN reviewers v ON v.id = r.reviewer_runs WHERE r.pr_number = $1`, pr)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]runEnd{}
	for rows.Next() {
		var name string
		var e runEnd
		if err := rows.Scan(&name, &e.status, &e.reason); err != nil {
			t.Fatal(err)
		}
		if _, dup := out[name]; dup {
			t.Errorf("PR #%d: two runs of %s on one head", pr, name)
		}
		out[name] = e
		t.Logf("PR #%d: %s %s %s", pr, name, e.status, e.reason)
	}
	return out
}

// checkRunsCompleted asserts want of Chakshu's check runs on head, all completed.
func checkRunsCompleted(t *testing.T, crs []ghsim.CheckRun, head string, want int) {
	t.Helper()
	n := 0
	for _, cr := range crs {
		if cr.HeadSHA != head || !strings.HasPrefix(cr.Name, "Chakshu") {
			continue
		}
		n++
		if cr.Status != "completed" || cr.Conclusion == "" {
			t.Errorf("check run %q on %s: %s/%s, want completed", cr.Name, head[:7], cr.Status, cr.Conclusion)
		}
	}
	if n != want {
		t.Errorf("%d check runs on %s, want %d", n, head[:7], want)
	}
}

// actionsLogsContaining counts the simulated Actions runs whose log holds s.
func actionsLogsContaining(t *testing.T, c *cluster.Cluster, s string) int {
	t.Helper()
	n := 0
	ents, _ := os.ReadDir(c.ActionsDir)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(c.ActionsDir, e.Name()))
		if err == nil && strings.Contains(string(b), s) {
			n++
		}
	}
	return n
}
