package reliability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/action/runner"
	"github.com/chakshu-dev/chakshu/internal/e2e/cluster"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/redact/redacttest"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/version"
	"github.com/chakshu-dev/chakshu/server/auth"
)

// TestRedactionEverySurface pushes every credential shape through Chakshu:
// in a PR's code (so the agent quotes it), title, description and a review
// request's note; in webhook payloads whose handling fails (failure reasons);
// in GraphQL queries (errors). None may survive on a public surface (check
// runs, the bot's PR comments, the Actions log) or an operator one (failure
// reasons in the database, GraphQL errors, the processes' logs).
func TestRedactionEverySurface(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-process redaction test: not in -short")
	}
	// The runs of one PR are left to the test, which plays their runner and
	// reports a failure carrying every credential shape.
	var failPR atomic.Int64
	held := make(chan ghsim.WorkflowRun, 16)
	c := startCluster(t, clusterOptions{webs: 1, workers: 1, hold: func(wr ghsim.WorkflowRun) bool {
		if n := failPR.Load(); n != 0 && fmt.Sprint(wr.Inputs["pr_number"]) == fmt.Sprint(n) {
			held <- wr
			return true
		}
		return false
	}})
	sim := c.SB.Sim
	var names []string
	for n := range redacttest.Corpus {
		names = append(names, n)
	}
	sort.Strings(names)
	var code strings.Builder
	code.WriteString("package leak\n\nimport \"database/sql\"\n\nfunc leak(db *sql.DB, id string) {\n")
	var oneLine []string
	for _, n := range names {
		v := redacttest.Corpus[n]
		if strings.Contains(v, "\n") {
			fmt.Fprintf(&code, "\tconst pem = `%s`\n", v)
			continue
		}
		oneLine = append(oneLine, v)
		// The scripted model quotes SQL built from strings in its finding
		// title, and keeps the rest of a credential line in its suggestion.
		fmt.Fprintf(&code, "\t_, _ = db.Query(\"SELECT %s FROM t WHERE id = '\" + id + \"'\")\n", v)
		fmt.Fprintf(&code, "\tpassword := \"hunter2hunter2\"; _ = %q\n", v)
	}
	code.WriteString("}\n")
	all := strings.Join(oneLine, " ")
	branch := "leaky"
	sim.CreateBranch(relRepo, branch, "main")
	sim.Commit(relRepo, branch, map[string]string{"internal/leak/leak.go": code.String()}, "leak "+oneLine[0])
	pr := sim.OpenPR(relRepo, branch, "main", "Leak "+oneLine[0], "Credentials: "+all, sandbox.Writer, false)
	sim.Comment(relRepo, pr, sandbox.Writer, "@chakshu review style\nThe deploy uses "+all)

	// A runner failure report: its reason and its detail (the log excerpt
	// operators read) carry the whole corpus.
	sim.CreateBranch(relRepo, "runner-fails", "main")
	sim.Commit(relRepo, "runner-fails", map[string]string{"internal/ok/ok.go": "package ok\n"}, "a harmless change")
	failPR.Store(int64(sim.OpenPR(relRepo, "runner-fails", "main", "Runner fails", "", sandbox.Writer, false)))
	sim.Comment(relRepo, int(failPR.Load()), sandbox.Writer, "@chakshu review style")
	var corpusText strings.Builder
	for _, n := range names {
		fmt.Fprintf(&corpusText, "%s: %s\n", n, redacttest.Corpus[n])
	}
	failReason := "model gateway refused " + all
	failDetail := "runner log:\n" + corpusText.String() + "curl -H 'Authorization: Bearer " + oneLine[3] + "' failed\n"

	// A delivery whose handling fails on a repository named like a token.
	bad := map[string]any{"action": "opened", "number": 1,
		"installation": map[string]any{"id": c.SB.InstID},
		"repository":   map[string]any{"id": 424242, "name": oneLine[0], "full_name": sandbox.Org + "/" + oneLine[0], "private": true, "owner": map[string]any{"login": sandbox.Org}},
		"sender":       map[string]any{"login": sandbox.Writer},
		"pull_request": map[string]any{"number": 1, "title": all, "body": all, "head": map[string]any{"sha": "0123456789abcdef0123456789abcdef01234567", "ref": all}, "base": map[string]any{"ref": "main"}},
	}
	payload, _ := json.Marshal(bad)
	badDelivery := sim.DeliverPayload("pull_request", payload)
	cm, _ := json.Marshal(map[string]any{"action": "created",
		"installation": map[string]any{"id": c.SB.InstID},
		"repository":   map[string]any{"id": 424243, "name": "x", "full_name": sandbox.Org + "/" + oneLine[1], "private": true, "owner": map[string]any{"login": sandbox.Org}},
		"sender":       map[string]any{"login": sandbox.Writer},
		"issue":        map[string]any{"number": 7, "pull_request": map[string]any{"url": "http://x/" + oneLine[2]}},
		"comment":      map[string]any{"id": 99, "body": "@chakshu review " + all, "user": map[string]any{"login": sandbox.Writer}},
	})
	sim.DeliverPayload("issue_comment", cm)

	// GraphQL errors echo what they were sent.
	var gqlOut strings.Builder
	for _, q := range []string{
		"{ " + strings.ReplaceAll(oneLine[0], "-", "_") + " }",
		fmt.Sprintf(`{ runs(first: 1, after: %q) { totalCount } }`, all),
		fmt.Sprintf(`query { reviewer(name: %q) { name } }`, all),
		"{ " + all,
	} {
		body, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]any{"x": all}})
		req, _ := http.NewRequest("POST", c.URL+"/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+oneLine[3])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		gqlOut.Write(b)
	}

	reported := 0
	cluster.WaitFor(t, 3*time.Minute, "the failing PR's runs to be reported as failed", func() bool {
		for {
			select {
			case wr := <-held:
				reported += failAsRunner(t, c, wr, failReason, failDetail)
				continue
			default:
			}
			break
		}
		n := c.Count(`SELECT count(*) FROM runs WHERE pr_number = $1`, failPR.Load())
		failed := c.Count(`SELECT count(*) FROM runs WHERE pr_number = $1 AND status = 'failed' AND failure_detail LIKE 'runner log:%'`, failPR.Load())
		return n >= 1 && failed == n && reported == n
	})
	t.Logf("%d runner failure reports carrying %d credential shapes sent", reported, len(names))

	cluster.WaitFor(t, 3*time.Minute, "the leaky PR's runs to end and the bad delivery to fail once", func() bool {
		open := c.Count(`SELECT count(*) FROM runs WHERE pr_number = $1 AND status NOT IN ('succeeded','failed','cancelled')`, pr)
		runs := c.Count(`SELECT count(*) FROM runs WHERE pr_number = $1`, pr)
		tried := c.Count(`SELECT count(*) FROM webhook_events WHERE delivery_id = $1 AND (attempts > 0 OR status IN ('done','failed'))`, badDelivery.ID)
		return runs >= 2 && open == 0 && tried == 1
	})
	time.Sleep(2 * time.Second) // the last log lines

	gqlOut.WriteString(adminRunsGraphQL(t, c, int(failPR.Load())))
	surfaces := map[string]string{"GraphQL responses (errors; failure reasons, details and timeline as an admin)": gqlOut.String(), "process logs (slog)": c.Logs()}
	var public strings.Builder
	for _, cr := range sim.CheckRuns(relRepo) {
		fmt.Fprintln(&public, cr.Title, cr.Summary, cr.Text)
	}
	surfaces["check runs"] = public.String()
	public.Reset()
	for _, n := range []int{pr, int(failPR.Load())} {
		for _, r := range sim.Reviews(relRepo, n) {
			fmt.Fprintln(&public, r.Body)
		}
		for _, rc := range sim.ReviewComments(relRepo, n) {
			fmt.Fprintln(&public, rc.Body)
		}
		for _, ic := range sim.IssueComments(relRepo, n) {
			if strings.HasSuffix(ic.Author, "[bot]") {
				fmt.Fprintln(&public, ic.Body)
			}
		}
	}
	surfaces["PR comments and reviews"] = public.String()
	var runner strings.Builder
	filepath.Walk(c.ActionsDir, func(p string, fi os.FileInfo, err error) error { //nolint:errcheck
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			runner.Write(b)
		}
		return nil
	})
	surfaces["Actions runner log"] = runner.String()
	var db strings.Builder
	for _, q := range []string{
		`SELECT failure_reason || ' ' || failure_detail || ' ' || summary FROM runs`,
		`SELECT message || ' ' || detail FROM run_events`,
		`SELECT last_error FROM webhook_events`,
		`SELECT title || ' ' || body || ' ' || suggestion || ' ' || evidence FROM findings`,
	} {
		rows, err := c.DB.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var s string
			rows.Scan(&s) //nolint:errcheck
			db.WriteString(s + "\n")
		}
		rows.Close()
	}
	surfaces["database (failure reasons, timeline, findings, webhook errors)"] = db.String()

	failHead := sim.PR(relRepo, int(failPR.Load())).HeadSHA
	checkRunsCompleted(t, sim.CheckRuns(relRepo), failHead, reported)
	if !strings.Contains(surfaces["database (failure reasons, timeline, findings, webhook errors)"], "runner log:") ||
		!strings.Contains(surfaces["GraphQL responses (errors; failure reasons, details and timeline as an admin)"], "runner log:") {
		t.Error("the runner's failure detail was not stored or not shown to an admin; the test proves nothing")
	}
	if !strings.Contains(surfaces["PR comments and reviews"], "[REDACTED]") {
		t.Errorf("the agent did not quote the leaky lines; the test proves nothing:\n%s", surfaces["PR comments and reviews"])
	}
	if c.Count(`SELECT count(*) FROM webhook_events WHERE delivery_id = $1 AND last_error <> ''`, badDelivery.ID) == 0 {
		t.Log("the bad delivery left no error (handled as a skip)")
	}
	for name, text := range surfaces {
		left := redacttest.Survivors(text)
		if strings.Contains(text, "ghs_sandboxjobtokenthatmustneverreachtheagent") {
			left = append(left, "the job's GITHUB_TOKEN")
		}
		sort.Strings(left)
		if len(left) > 0 {
			t.Errorf("%s: %d credentials survive: %s", name, len(left), strings.Join(left, "; "))
			for _, l := range left {
				part := l[strings.Index(l, ": ")+2:]
				if i := strings.Index(text, part); i >= 0 {
					t.Logf("  …%s…", text[max(0, i-160):min(len(text), i+len(part)+40)])
					break
				}
			}
		} else {
			t.Logf("%s: %d bytes, no credential survives", name, len(text))
		}
	}
}

// failAsRunner plays the Actions runner of a held run: it fetches the job with
// the run's real OIDC token and reports a failure with the run token.
func failAsRunner(t *testing.T, c *cluster.Cluster, wr ghsim.WorkflowRun, reason, detail string) int {
	t.Helper()
	c.SB.Sim.StartRun(wr.ID)
	oidc, err := c.SB.Sim.IssueActionsToken(wr.ID, c.URL)
	if err != nil {
		t.Fatal(err)
	}
	// A shared Actions run (issue 46 item 1) names every Chakshu run in
	// run_ids; the runner fetches and reports each with the same OIDC token.
	lead, _ := strconv.ParseInt(fmt.Sprint(wr.Inputs["run_id"]), 10, 64)
	all, _ := wr.Inputs["run_ids"].(string)
	ids, err := runner.ParseRunIDs(all, lead)
	if err != nil {
		t.Fatal(err)
	}
	if ids == nil {
		ids = []int64{lead}
	}
	for _, runID := range ids {
		var job runnerproto.Job
		postJSON(t, c.URL+"/api/runner/v1/job", oidc, runnerproto.JobRequest{RunID: runID, RunnerVersion: version.Version}, &job)
		postJSON(t, job.ResultURL, job.RunToken,
			runnerproto.Report{Failure: &runnerproto.Failure{Reason: reason, Detail: detail}, Stats: runnerproto.Stats{Turns: 1}}, nil)
	}
	c.SB.Sim.CompleteRun(wr.ID, "failure")
	return len(ids)
}

func postJSON(t *testing.T, url, bearer string, in, out any) {
	t.Helper()
	b, _ := json.Marshal(in)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %s", url, resp.StatusCode, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("POST %s: %v", url, err)
		}
	}
}

// adminRunsGraphQL reads PR n's runs (failure reason and detail, timeline) as
// an admin through the API, with an API token made for the test.
func adminRunsGraphQL(t *testing.T, c *cluster.Cluster, n int) string {
	t.Helper()
	tok := auth.NewToken()
	var uid int
	if err := c.DB.QueryRow(`INSERT INTO users (created_at, updated_at, github_id, login, is_admin) VALUES (now(), now(), 990001, $1, true)
		ON CONFLICT (login) DO UPDATE SET is_admin = true RETURNING id`, sandbox.User).Scan(&uid); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DB.Exec(`INSERT INTO api_tokens (created_at, updated_at, name, token_hash, prefix, scope, user_api_tokens) VALUES (now(), now(), 'redaction', $1, $2, 'read', $3)`,
		auth.HashToken(tok), auth.TokenDisplayPrefix(tok), uid); err != nil {
		t.Fatal(err)
	}
	q := `query($n: Int!) { runs(first: 20, where: {prNumber: $n}) { edges { node { status failureReason failureDetail summary events { message detail } } } } }`
	b, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]any{"n": n}})
	req, _ := http.NewRequest("POST", c.URL+"/graphql", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if resp.StatusCode != http.StatusOK || bytes.Contains(out, []byte(`"errors"`)) {
		t.Fatalf("GraphQL as an admin: %d %s", resp.StatusCode, out)
	}
	return string(out)
}
