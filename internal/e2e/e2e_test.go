// Package e2e runs Chakshu end to end through its public surfaces only: the
// production wiring (internal/app) in sandbox mode, a simulated GitHub that
// delivers signed webhooks, the chakshu-action binary Chakshu serves (the
// simulated Actions runner downloads and runs it), and the scripted model.
package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/app"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/e2e/cluster"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/runnerbin/runnerbintest"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/internal/syncbuf"
	"github.com/chakshu-dev/chakshu/internal/version"
)

// chakshu is a running `chakshu all` in sandbox mode.
type chakshu struct {
	URL string
	SB  *sandbox.Sandbox
	log *syncbuf.Buffer
	// DataDir is CHAKSHU_DATA_DIR; the simulated Actions runs' logs are in
	// its actions-logs/.
	DataDir string
}

// start runs the production wiring on a free loopback port with a fresh data
// dir (SQLite) or the given PostgreSQL URL, and waits until it serves.
func start(t testing.TB, databaseURL string, env map[string]string) *chakshu {
	t.Helper()
	return startWith(t, databaseURL, env, scriptedmodel.Config{})
}

// startWith is start with the scripted model's hooks set to model.
func startWith(t testing.TB, databaseURL string, env map[string]string, model scriptedmodel.Config) *chakshu {
	t.Helper()
	return startSeeded(t, databaseURL, env, model, -1)
}

// startSeeded is startWith with history past runs seeded (-1: none), as
// `make run` seeds them (and with them the sandbox's backtest).
func startSeeded(t testing.TB, databaseURL string, env map[string]string, model scriptedmodel.Config, history int) *chakshu {
	t.Helper()
	return startSandbox(t, databaseURL, env, app.SandboxOptions{HistoryRuns: history, Model: model})
}

// startSandbox is start with the sandbox tuned by o (its validator is always
// GitHub's descriptions).
func startSandbox(t testing.TB, databaseURL string, env map[string]string, o app.SandboxOptions) *chakshu {
	t.Helper()
	vars := map[string]string{
		"CHAKSHU_ADDR":         "127.0.0.1:0",
		"CHAKSHU_DATA_DIR":     t.TempDir(),
		"CHAKSHU_LOG_FORMAT":   "text",
		"CHAKSHU_LOG_LEVEL":    "debug",
		"CHAKSHU_DATABASE_URL": databaseURL,
		"CHAKSHU_SANDBOX":      "1", // the sandbox on a test PostgreSQL, on purpose
	}
	for k, v := range env {
		vars[k] = v
	}
	if vars["CHAKSHU_RUNNER_DIR"] == "" {
		vars["CHAKSHU_RUNNER_DIR"] = runnerbintest.Dir(t)
	}
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan *sandbox.Sandbox, 1)
	done := make(chan error, 1)
	var valMu sync.Mutex
	var valErrs []string
	o.Validator = ghsimtest.Spec{}
	o.OnValidationError = func(err error) {
		valMu.Lock()
		valErrs = append(valErrs, err.Error())
		valMu.Unlock()
	}
	go func() {
		done <- app.Run(ctx, app.Options{Mode: app.ModeAll, Config: cfg, Stderr: logs, Listener: ln,
			Sandbox:      o,
			SandboxReady: func(sb *sandbox.Sandbox) { ready <- sb }})
	}()
	c := &chakshu{URL: "http://" + ln.Addr().String(), log: logs, DataDir: vars["CHAKSHU_DATA_DIR"]}
	select {
	case c.SB = <-ready:
	case err := <-done:
		t.Fatalf("chakshu stopped at start: %v\n%s", err, logs)
	case <-time.After(60 * time.Second):
		t.Fatalf("chakshu did not start\n%s", logs)
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("chakshu did not stop within 30s")
		}
		valMu.Lock()
		defer valMu.Unlock()
		for _, e := range valErrs {
			t.Errorf("GitHub fidelity: %s", e)
		}
		if t.Failed() {
			t.Logf("chakshu log:\n%s", tail(logs.String(), 200))
		}
	})
	return c
}

// tail and waitFor are the cluster harness's: the last lines of a log, and
// polling a condition until a timeout.
var (
	tail    = cluster.Tail
	waitFor = cluster.WaitFor
)

// The whole loop through public surfaces: a signed webhook for a PR comment →
// queued run → dispatch → job fetch with an Actions OIDC token → agent with
// the scripted model behind the gateway → report → one published review with
// inline comments → a finished check run.
func TestCommentToPublishedReview(t *testing.T) {
	for _, db := range storetest.Dialects {
		t.Run(db, func(t *testing.T) {
			url := ""
			if db == "postgres" {
				url = storetest.NewPostgresDatabase(t)
			}
			commentToPublishedReview(t, start(t, url, nil))
		})
	}
}

func commentToPublishedReview(t *testing.T, c *chakshu) {
	sim := c.SB.Sim
	pr := c.SB.PRs[0] // acme/payments-api: SQL injection, ignored error, a key in code
	waitFor(t, 60*time.Second, "the reviewers to sync", func() bool {
		return c.reviewersSynced(t)
	})
	sim.Comment(pr.Repo, pr.Number, sandbox.Writer, "@chakshu review security correctness\nPlease look at the refund query.")

	waitFor(t, 120*time.Second, "two finished check runs", func() bool {
		n := 0
		for _, cr := range sim.CheckRuns(pr.Repo) {
			if cr.Status == "completed" {
				n++
			}
		}
		return n >= 2
	})
	checks := map[string]ghsim.CheckRun{}
	for _, cr := range sim.CheckRuns(pr.Repo) {
		checks[cr.Name] = cr
	}
	sec, ok := checks["Chakshu · security"]
	if !ok {
		t.Fatalf("no security check run: %+v", checks)
	}
	if sec.Conclusion != "failure" { // the committed key is a blocker and security fails on blockers
		t.Errorf("security check concluded %q (%s), want failure", sec.Conclusion, sec.Summary)
	}
	if cor := checks["Chakshu · correctness"]; cor.Conclusion != "success" {
		t.Errorf("correctness check concluded %q (%s), want success (fail_check_on: never)", cor.Conclusion, cor.Summary)
	}
	reviews := sim.Reviews(pr.Repo, pr.Number)
	if len(reviews) != 2 {
		t.Fatalf("%d reviews, want one per reviewer", len(reviews))
	}
	for _, r := range reviews {
		if r.Event != "COMMENT" || r.Author != "chakshu[bot]" {
			t.Errorf("review by %s with event %s", r.Author, r.Event)
		}
	}
	comments := sim.ReviewComments(pr.Repo, pr.Number)
	if len(comments) == 0 {
		t.Fatal("no inline comments")
	}
	var sawSQL bool
	for _, cm := range comments {
		if strings.Contains(cm.Body, "<!-- chakshu:finding:") && strings.Contains(strings.ToLower(cm.Body), "sql") {
			sawSQL = true
		}
	}
	if !sawSQL {
		t.Errorf("no inline comment about the SQL built by concatenation: %d comments", len(comments))
	}
	for _, ic := range sim.IssueComments(pr.Repo, pr.Number) {
		if strings.Contains(ic.Body, "can't") || strings.Contains(ic.Body, "cannot") {
			t.Errorf("unexpected reply to a writer: %s", ic.Body)
		}
	}
	fmt.Println("published", len(reviews), "reviews with", len(comments), "inline comments")

	// Each Actions run ran the chakshu-action Chakshu serves, downloaded and
	// checked like the workflow template does, as a process of its own.
	logs, _ := filepath.Glob(filepath.Join(c.DataDir, "actions-logs", "actions-run-*.log"))
	delivered := 0
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		text := string(b)
		if !strings.Contains(text, "/api/runner/v1/runner/linux/") || !regexp.MustCompile(`chakshu-action: sha256 [0-9a-f]{64} verified`).MatchString(text) ||
			!strings.Contains(text, "chakshu-action "+version.Version+"\n") {
			t.Errorf("%s does not show the served runner downloaded, verified and started:\n%s", filepath.Base(l), text)
		}
		delivered += strings.Count(text, "Result delivered to Chakshu.") // the two reviewers share one Actions run
	}
	if delivered < 2 {
		t.Errorf("the Actions logs show %d delivered results, want 2 (logs: %v)", delivered, logs)
	}

	// The runs are visible through GraphQL with their cost. The check run is
	// completed a moment before the run's own status moves on, so wait for it.
	s := c.loginSandbox(t)
	waitFor(t, 30*time.Second, "GraphQL to show both runs succeeded with a cost", func() bool {
		var out struct {
			Runs struct {
				Edges []struct {
					Node struct {
						Status   string  `json:"status"`
						CostUsd  float64 `json:"costUsd"`
						PrNumber int     `json:"prNumber"`
					} `json:"node"`
				} `json:"edges"`
			} `json:"runs"`
		}
		s.graphql(t, `{ runs(first: 10) { edges { node { status costUsd prNumber } } } }`, nil, &out)
		succeeded := 0
		for _, e := range out.Runs.Edges {
			if e.Node.PrNumber == pr.Number && strings.EqualFold(e.Node.Status, "succeeded") && e.Node.CostUsd > 0 {
				succeeded++
			}
		}
		return succeeded == 2
	})
}
