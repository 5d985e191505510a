package e2e

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/sandbox"
)

func fetch(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return resp.StatusCode, string(b)
}

// In sandbox mode the simulated GitHub's pages are served on Chakshu's own
// address (so the links printed at start and stored with runs survive a
// restart), and a review requested from a PR comment shows there as GitHub
// shows it: rendered Markdown, hidden markers hidden, a suggestion as a
// "Suggested change", the check with its conclusion, and the Actions run
// with the runner's log of every tool call.
func TestSandboxPagesOnChakshusAddress(t *testing.T) {
	c := start(t, "", nil)
	sim := c.SB.Sim
	if sim.PagesURL() != c.URL+"/sim" {
		t.Fatalf("pages at %s, want %s/sim", sim.PagesURL(), c.URL)
	}
	for _, u := range []string{c.URL + "/sim/", c.URL + "/sim/" + sandbox.Org} {
		if st, _ := fetch(t, u); st != 200 {
			t.Fatalf("GET %s: %d", u, st)
		}
	}
	pr := c.SB.PRs[0]
	prURL := c.URL + "/sim/" + pr.Repo + "/pull/" + strconv.Itoa(pr.Number)
	waitFor(t, 60*time.Second, "the reviewers to sync", func() bool { return c.reviewersSynced(t) })
	sim.Comment(pr.Repo, pr.Number, sandbox.Writer, "@chakshu review security")
	waitFor(t, 120*time.Second, "a finished check run", func() bool {
		for _, cr := range sim.CheckRuns(pr.Repo) {
			if cr.Status == "completed" {
				return true
			}
		}
		return false
	})
	waitFor(t, 30*time.Second, "the review", func() bool { return len(sim.Reviews(pr.Repo, pr.Number)) > 0 })
	st, page := fetch(t, prURL)
	if st != 200 {
		t.Fatalf("PR page: %d", st)
	}
	for _, want := range []string{"Suggested change", `<tr class="del">`, "Chakshu · security", "completed · failure", `<details`} {
		if !strings.Contains(page, want) {
			t.Errorf("PR page lacks %q", want)
		}
	}
	for _, bad := range []string{"chakshu:finding", "chakshu:review", "```suggestion"} {
		if strings.Contains(page, bad) {
			t.Errorf("PR page shows %q", bad)
		}
	}
	runs := sim.Runs()
	if len(runs) == 0 {
		t.Fatal("no Actions runs")
	}
	run := runs[0]
	if !strings.HasPrefix(run.HTMLURL, c.URL+"/sim/") {
		t.Fatalf("run html_url %s is not on Chakshu's address", run.HTMLURL)
	}
	waitFor(t, 30*time.Second, "the run's log", func() bool {
		_, p := fetch(t, run.HTMLURL)
		return strings.Contains(p, "→ [") && strings.Contains(p, "Result delivered to Chakshu.")
	})
	_, p := fetch(t, run.HTMLURL)
	if strings.Contains(p, "::add-mask::") {
		t.Error("the run page shows ::add-mask:: commands")
	}

	// The portal's tour now links one of Chakshu's threads, and a reply
	// posted from its form lands in that thread.
	st, tour := fetch(t, c.URL+"/api/sandbox/tour")
	if st != 200 || !strings.Contains(tour, `"id":"reply"`) || !strings.Contains(tour, "/files#thread-") {
		t.Fatalf("tour after a review: %d %s", st, tour)
	}
	reply := c.SB.Tour()[2]
	rootID := reply.URL[strings.LastIndex(reply.URL, "#thread-")+len("#thread-"):]
	before := len(sim.ReviewComments(pr.Repo, pr.Number))
	resp, err := http.PostForm(prURL+"/comments/"+rootID+"/replies", url.Values{"body": {"Fixed in the next commit."}, "as": {sandbox.Writer}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasSuffix(resp.Request.URL.Path, "/files") {
		t.Fatalf("reply: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	if got := len(sim.ReviewComments(pr.Repo, pr.Number)); got != before+1 {
		t.Fatalf("%d review comments after the reply, want %d", got, before+1)
	}
}
