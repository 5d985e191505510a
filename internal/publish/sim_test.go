package publish_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v88/github"
	"golang.org/x/oauth2"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/diffmap"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

const (
	repoName = "acme/widget"
	calc     = "lib/calc.go"
)

// numbered returns n lines "<prefix>1" … "<prefix>n".
func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i+1)
	}
	return out
}

func file(lines []string) string { return strings.Join(lines, "\n") + "\n" }

// baseCalc is lib/calc.go on main: 40 lines.
var baseCalc = numbered("line", 40)

// featureCalc changes line 10 and adds two lines after line 20: the diff has
// a hunk around new line 10 and one around new lines 21-22.
func featureCalc() []string {
	l := append([]string(nil), baseCalc...)
	l[9] = "changed10"
	return append(l[:20:20], append([]string{"added21", "added22"}, l[20:]...)...)
}

// env is a sim with a PR, a database seeded with its installation, repo and
// reviewer, and a publisher.
type env struct {
	t        testing.TB
	ctx      context.Context
	sim      *ghsim.Sim
	db       *store.DB
	apps     *gh.Apps
	inst     *gh.Installation
	pub      *publish.Publisher
	repo     *ent.Repository
	reviewer *ent.Reviewer
	pr       int
}

func newEnv(t testing.TB, db *store.DB, cfg reviewerconfig.Config, extra map[string]string) *env {
	t.Helper()
	ctx := context.Background()
	s := ghsimtest.New(t)
	appID, key := s.CreateApp("chakshu")
	s.CreateOrg("acme")
	s.CreateUser("alice")
	s.CreateTeam("acme", "security", "alice")
	s.CreateRepo("acme", "widget", map[string]string{"README.md": "# widget\n", calc: file(baseCalc)})
	s.SetPermission(repoName, "alice", "write")
	instID := s.Install(appID, "acme", []string{repoName}, nil)
	s.CreateBranch(repoName, "feature", "main")
	files := map[string]string{calc: file(featureCalc())}
	for k, v := range extra {
		files[k] = v
	}
	s.Commit(repoName, "feature", files, "feature work")
	n := s.OpenPR(repoName, "feature", "main", "Feature", "body", "alice", false)

	apps, err := gh.New(gh.Config{AppID: appID, PrivateKey: key, BaseURL: s.URL(), GraphQLURL: s.GraphQLURL(),
		Retry: gh.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := apps.Installation(instID)
	if err != nil {
		t.Fatal(err)
	}
	in := db.Installation.Create().SetGithubID(instID).SetAccountLogin("acme").SaveX(ctx)
	repo := db.Repository.Create().SetGithubID(s.RepoID(repoName)).SetOwner("acme").SetName("widget").
		SetFullName(repoName).SetInstallation(in).SaveX(ctx)
	rv := db.Reviewer.Create().SetName("security").SetInstallation(in).SetConfig(&cfg).SaveX(ctx)
	pub, err := publish.New(publish.Config{DB: db, GitHub: apps, AppSlug: "chakshu", PublicURL: "https://chakshu.example/"})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, ctx: ctx, sim: s, db: db, apps: apps, inst: inst, pub: pub, repo: repo, reviewer: rv, pr: n}
}

func rules(min findings.Severity, max int, failOn string) reviewerconfig.Config {
	c := reviewerconfig.Defaults()
	c.MinSeverity, c.MaxFindings, c.FailCheckOn = min, max, failOn
	return c
}

// newRun creates a check run on the PR head and a run in publishing with res.
func (e *env) newRun(res any, set ...func(*ent.RunCreate)) *ent.Run {
	e.t.Helper()
	head := e.sim.PR(repoName, e.pr).HeadSHA
	cr, _, err := e.inst.REST.Checks.CreateCheckRun(e.ctx, "acme", "widget", github.CreateCheckRunOptions{
		Name: "Chakshu · security", HeadSHA: head, Status: github.Ptr("in_progress"),
	})
	if err != nil {
		e.t.Fatal(err)
	}
	st := storedOf(e.t, res)
	started := time.Now().Add(-90 * time.Second)
	c := e.db.Run.Create().SetRepository(e.repo).SetReviewer(e.reviewer).SetTrigger(run.TriggerComment).
		SetPrNumber(e.pr).SetPrURL("https://github.example/acme/widget/pull/1").SetHeadSha(head).SetBaseRef("main").
		SetStatus(run.StatusPublishing).SetReportedAt(time.Now()).SetStartedAt(started).
		SetCheckRunID(cr.GetID()).SetCostUsd(0.25).SetTurns(7)
	if st != nil {
		c.SetResult(st)
	}
	for _, f := range set {
		f(c)
	}
	return c.SaveX(e.ctx)
}

// storedOf is res as the runner API stores a review's or a reply's result
// (parsed and validated): nil when it does not parse, as the runner API
// would refuse it.
func storedOf(t testing.TB, res any) *findings.Stored {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := findings.ParseResult(b); err == nil {
		return &findings.Stored{Review: r}
	}
	if r, err := findings.ParseReply(b); err == nil {
		return &findings.Stored{Reply: r}
	}
	return nil
}

func (e *env) publish(id int) {
	e.t.Helper()
	if err := e.pub.Publish(e.ctx, id); err != nil {
		e.t.Fatalf("publish run %d: %v", id, err)
	}
}

func (e *env) run(id int) *ent.Run { return e.db.Run.GetX(e.ctx, id) }

func (e *env) findingsOf(id int) map[string]*ent.Finding {
	out := map[string]*ent.Finding{}
	for _, f := range e.db.Finding.Query().Where(finding.HasRunWith(run.ID(id))).AllX(e.ctx) {
		out[f.Title] = f
	}
	return out
}

// chakshuReviews are the reviews the bot posted.
func (e *env) chakshuReviews() []ghsim.Review {
	var out []ghsim.Review
	for _, r := range e.sim.Reviews(repoName, e.pr) {
		if r.Author == "chakshu[bot]" {
			out = append(out, r)
		}
	}
	return out
}

func (e *env) checkRun(id int64) ghsim.CheckRun {
	for _, c := range e.sim.CheckRuns(repoName) {
		if c.ID == id {
			return c
		}
	}
	e.t.Fatalf("no check run %d", id)
	return ghsim.CheckRun{}
}

func f(path string, line int, sev findings.Severity, title string) findings.Finding {
	return findings.Finding{Path: path, Line: line, Side: "RIGHT", Severity: sev, Category: "bug", Title: title, Body: "Because."}
}

func ptr(s string) *string { return &s }

// standardResult: an inline blocker, an inline multi-line suggestion, a
// finding outside the changed lines and one on a file the PR does not touch.
func standardResult() findings.Result {
	multi := f(calc, 22, findings.Major, "Added lines duplicate work")
	multi.StartLine = 20
	multi.Suggestion = ptr("line20\nadded21 // merged\n")
	return findings.Result{
		Summary: "Two problems, @alice.",
		Checked: findings.Checked{Files: []string{calc, "README.md"}, Skills: []string{"go"}},
		Findings: []findings.Finding{
			f(calc, 10, findings.Blocker, "Changed line breaks the build"),
			multi,
			f(calc, 35, findings.Minor, "Old helper is slow"),
			f("README.md", 1, findings.Nit, "Title could say more"),
		},
	}
}

func TestPublishReview(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "blocker"), nil)
		r := e.newRun(standardResult(), func(c *ent.RunCreate) {
			c.SetIncrementalSince("abcdef0123456789").SetBehindBy(2).SetFilteredFiles([]string{"gen/a.pb.go", "gen/b.pb.go"})
		})
		e.publish(r.ID)

		reviews := e.chakshuReviews()
		if len(reviews) != 1 {
			t.Fatalf("%d reviews, want 1", len(reviews))
		}
		rv := reviews[0]
		if rv.Event != "COMMENT" || rv.CommitID != r.HeadSha {
			t.Fatalf("review event %s on %s, want COMMENT on %s", rv.Event, rv.CommitID, r.HeadSha)
		}
		for _, want := range []string{"#### Outside the changed lines", "`lib/calc.go:35`", "`README.md:1`",
			"<!-- chakshu:run:" + fmt.Sprint(r.ID) + " -->", "@\u200balice",
			"> Reviewed only the changes since `abcdef0`.", "The head is 2 commits behind `main`",
			"<sub>Coverage: 1 file in the PR · 2 read by the reviewer · 2 dropped by path_filters · 0 skipped as binary or too large</sub>"} {
			if !strings.Contains(rv.Body, want) {
				t.Errorf("review body lacks %q:\n%s", want, rv.Body)
			}
		}
		comments := e.sim.ReviewComments(repoName, e.pr)
		if len(comments) != 2 {
			t.Fatalf("%d inline comments, want 2", len(comments))
		}
		byLine := map[int]ghsim.ReviewComment{}
		for _, c := range comments {
			byLine[c.Line] = c
		}
		if c := byLine[10]; c.Path != calc || c.StartLine != 0 || !strings.Contains(c.Body, "_⚠️ Potential issue_ | _🔴 Blocker_") {
			t.Errorf("blocker comment: %+v", c)
		}
		if c := byLine[22]; c.StartLine != 20 || !strings.Contains(c.Body, "```suggestion\nline20\nadded21 // merged\n```") {
			t.Errorf("multi-line suggestion: start %d body:\n%s", c.StartLine, c.Body)
		}

		got := e.run(r.ID)
		if got.Status != run.StatusSucceeded || got.ReviewID != rv.ID || got.LeaseOwner != "" {
			t.Fatalf("run: status %s review %d lease %q", got.Status, got.ReviewID, got.LeaseOwner)
		}
		if got.FindingsBlocker != 1 || got.FindingsMajor != 1 || got.FindingsMinor != 1 || got.FindingsNit != 1 ||
			got.FindingsPosted != 4 || got.FindingsDropped != 0 || !got.CheckCompleted || got.DurationMs < 90_000 {
			t.Fatalf("run figures: %+v", got)
		}
		fs := e.findingsOf(r.ID)
		threads := map[string]ghsim.Thread{}
		for _, th := range e.sim.Threads(repoName, e.pr) {
			threads[th.NodeID] = th
		}
		for title, want := range map[string]publish.Placement{
			"Changed line breaks the build": publish.PlaceInline, "Added lines duplicate work": publish.PlaceInline,
			"Old helper is slow": publish.PlaceBody, "Title could say more": publish.PlaceBody,
		} {
			row := fs[title]
			if row == nil || !row.Posted || string(row.Placement) != string(want) {
				t.Fatalf("finding %q: %+v", title, row)
			}
			if want == publish.PlaceInline {
				th, ok := threads[row.ThreadID]
				if !ok || row.CommentID == 0 || th.CommentIDs[0] != row.CommentID || !strings.Contains(row.CommentURL, "#discussion_r") {
					t.Fatalf("finding %q not linked to its thread: %+v", title, row)
				}
			}
		}
		cr := e.checkRun(r.CheckRunID)
		if cr.Status != "completed" || cr.Conclusion != "failure" || !strings.Contains(cr.Summary, "https://chakshu.example/runs/") ||
			cr.Title != "4 findings: 1 blocker, 1 major, 1 minor, 1 nit" {
			t.Fatalf("check run: %+v", cr)
		}
	})
}

func TestMinSeverityAndMaxFindings(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Minor, 2, "never"), nil)
		r := e.newRun(standardResult())
		e.publish(r.ID)
		fs := e.findingsOf(r.ID)
		want := map[string]string{
			"Changed line breaks the build": "", "Added lines duplicate work": "",
			"Old helper is slow": publish.DropOverMax, "Title could say more": publish.DropBelowMin,
		}
		for title, reason := range want {
			if row := fs[title]; row == nil || row.DroppedReason != reason || row.Posted != (reason == "") {
				t.Fatalf("finding %q: %+v", title, row)
			}
		}
		rv := e.chakshuReviews()[0]
		if strings.Contains(rv.Body, "Outside the changed lines") || !strings.Contains(rv.Body, "1 more finding was left out") {
			t.Fatalf("body:\n%s", rv.Body)
		}
		if cr := e.checkRun(r.CheckRunID); cr.Conclusion != "success" {
			t.Fatalf("fail_check_on never: conclusion %s", cr.Conclusion)
		}
		if got := e.run(r.ID); got.FindingsPosted != 2 || got.FindingsDropped != 2 {
			t.Fatalf("figures posted %d dropped %d", got.FindingsPosted, got.FindingsDropped)
		}
	})
}

func TestSecondRunPostsNothingNew(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "blocker"), nil)
		r1 := e.newRun(standardResult())
		e.sim.ResetCalls()
		e.publish(r1.ID)
		// A PR Chakshu never reviewed has no thread of Chakshu's: its threads
		// are read once, after the review opened some (to record them).
		if n := e.sim.CallCount("POST /graphql"); n != 1 {
			t.Fatalf("first review: %d GraphQL requests, want 1 (the threads it opened)", n)
		}
		e.sim.ResetCalls()
		// Lose the database's memory of what was posted: the markers on the PR
		// must still stop a repost.
		e.db.Finding.Delete().ExecX(e.ctx)

		r2 := e.newRun(standardResult())
		e.publish(r2.ID)
		// A PR with a review of Chakshu's: its threads are read before
		// posting (their markers stop the repost); no inline comment went out,
		// so not again after.
		if n := e.sim.CallCount("POST /graphql"); n != 1 {
			t.Fatalf("second review: %d GraphQL requests, want 1 (the threads before posting)", n)
		}
		if n := len(e.sim.ReviewComments(repoName, e.pr)); n != 2 {
			t.Fatalf("%d inline comments after the second run, want 2", n)
		}
		reviews := e.chakshuReviews()
		if len(reviews) != 2 {
			t.Fatalf("%d reviews, want 2 (one per run)", len(reviews))
		}
		body := reviews[1].Body
		if strings.Contains(body, "Outside the changed lines") || !strings.Contains(body, "**No new findings.**") ||
			!strings.Contains(body, "4 are already on this PR") {
			t.Fatalf("second review body:\n%s", body)
		}
		for title, row := range e.findingsOf(r2.ID) {
			if row.Posted || row.DroppedReason != publish.DropOnPR {
				t.Fatalf("second run finding %q: %+v", title, row)
			}
		}
		// The blocker still stands, so the check still fails.
		if cr := e.checkRun(r2.CheckRunID); cr.Conclusion != "failure" {
			t.Fatalf("second check: %s", cr.Conclusion)
		}
	})
}

func TestCrashAfterReviewCreated(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "blocker"), nil)
		r := e.newRun(standardResult())
		// The process dies after the review is on GitHub and before anything
		// is recorded: completing the check run hangs until the deadline.
		ghsimtest.InjectFault(e.sim, ghsimtest.Fault{Match: "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", Kind: ghsimtest.FaultLatency, Latency: 3 * time.Second, Times: 1})
		ctx, cancel := context.WithTimeout(e.ctx, 1500*time.Millisecond)
		defer cancel()
		if err := e.pub.Publish(ctx, r.ID); err == nil {
			t.Fatal("publish survived its deadline")
		}
		if got := e.run(r.ID); got.Status != run.StatusPublishing {
			t.Fatalf("a crash must leave the run for a retry; status %s", got.Status)
		}
		if len(e.chakshuReviews()) != 1 {
			t.Fatal("the review was not created before the crash")
		}
		// Lose what was recorded, as if the process died before writing it.
		e.db.Run.UpdateOneID(r.ID).SetReviewID(0).ExecX(e.ctx)
		e.db.Finding.Delete().ExecX(e.ctx)

		e.publish(r.ID)
		if n := len(e.chakshuReviews()); n != 1 {
			t.Fatalf("%d reviews after the retry, want 1", n)
		}
		if n := len(e.sim.ReviewComments(repoName, e.pr)); n != 2 {
			t.Fatalf("%d inline comments after the retry, want 2", n)
		}
		got := e.run(r.ID)
		if got.Status != run.StatusSucceeded || got.ReviewID == 0 || got.FindingsPosted != 4 {
			t.Fatalf("run after retry: %s review %d posted %d", got.Status, got.ReviewID, got.FindingsPosted)
		}
		for title, row := range e.findingsOf(r.ID) {
			if !row.Posted || (row.Placement == finding.PlacementInline && row.ThreadID == "") {
				t.Fatalf("finding %q after retry: %+v", title, row)
			}
		}
		if cr := e.checkRun(r.CheckRunID); cr.Conclusion != "failure" {
			t.Fatalf("check after retry: %+v", cr)
		}
	})
}

func TestUnprocessableLinesMoveToBody(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "never"), nil)
		oldHead := e.sim.PR(repoName, e.pr).HeadSHA
		// The head moves after the review ran: line 30 is in the diff now, but
		// not in the diff of the commit the review is on.
		l := featureCalc()
		l[29] = "changed30"
		e.sim.Commit(repoName, "feature", map[string]string{calc: file(l)}, "more")
		res := findings.Result{Summary: "s", Findings: []findings.Finding{
			f(calc, 10, findings.Major, "Fine line"), f(calc, 32, findings.Major, "Line only in the new diff"),
		}}
		r := e.newRun(res, func(c *ent.RunCreate) { c.SetHeadSha(oldHead) })
		e.sim.ResetCalls()
		e.publish(r.ID)
		if n := e.sim.CallCount("POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews"); n != 2 {
			t.Fatalf("%d review creations, want the refused one and the resend", n)
		}
		reviews := e.chakshuReviews()
		if len(reviews) != 1 {
			t.Fatalf("%d reviews, want 1", len(reviews))
		}
		if n := len(e.sim.ReviewComments(repoName, e.pr)); n != 0 {
			t.Fatalf("%d inline comments, want all moved to the body", n)
		}
		for _, want := range []string{"`lib/calc.go:10`", "`lib/calc.go:32`"} {
			if !strings.Contains(reviews[0].Body, want) {
				t.Fatalf("body lacks %s:\n%s", want, reviews[0].Body)
			}
		}
		for title, row := range e.findingsOf(r.ID) {
			if !row.Posted || row.Placement != finding.PlacementBody {
				t.Fatalf("finding %q: %+v", title, row)
			}
		}
	})
}

// userClient is a REST client acting as a person.
func userClient(e *env, login string) *github.Client {
	hc := oauth2.NewClient(e.ctx, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: e.sim.UserToken(login)}))
	return gh.NewREST(hc, e.sim.URL())
}

func TestTidyResolvesOnlyItsOwnOutdatedThreads(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "never"), nil)
		res := findings.Result{Summary: "s", Findings: []findings.Finding{
			f(calc, 10, findings.Major, "Goes away"),    // outdated, not back → resolved
			f(calc, 11, findings.Major, "Comes back"),   // outdated, back → stays
			f(calc, 22, findings.Minor, "Current line"), // not outdated → stays
		}}
		r1 := e.newRun(res)
		e.publish(r1.ID)
		// Alice starts her own thread on line 12.
		_, _, err := userClient(e, "alice").PullRequests.CreateReview(e.ctx, "acme", "widget", e.pr, &github.PullRequestReviewRequest{
			Event:    github.Ptr("COMMENT"),
			Comments: []*github.DraftReviewComment{{Path: github.Ptr(calc), Line: github.Ptr(12), Side: github.Ptr("RIGHT"), Body: github.Ptr("hmm")}},
		})
		if err != nil {
			t.Fatal(err)
		}
		// A push rewrites lines 10-12: three threads go outdated.
		l := featureCalc()
		l[9], l[10], l[11] = "again10", "again11", "again12"
		e.sim.Commit(repoName, "feature", map[string]string{calc: file(l)}, "rewrite")
		outdated := 0
		for _, th := range e.sim.Threads(repoName, e.pr) {
			if th.Outdated {
				outdated++
			}
		}
		if outdated != 3 {
			t.Fatalf("%d outdated threads before the second run, want 3", outdated)
		}

		back := f(calc, 11, findings.Major, "Comes back")
		r2 := e.newRun(findings.Result{Summary: "s", Findings: []findings.Finding{back}})
		e.publish(r2.ID)

		comments := map[int64]ghsim.ReviewComment{}
		for _, c := range e.sim.ReviewComments(repoName, e.pr) {
			comments[c.ID] = c
		}
		var resolved []string
		for _, th := range e.sim.Threads(repoName, e.pr) {
			root := comments[th.CommentIDs[0]]
			if th.Resolved {
				resolved = append(resolved, root.Author+": "+firstLine(root.Body, 3))
			}
		}
		if len(resolved) != 1 || !strings.Contains(resolved[0], "Goes away") {
			t.Fatalf("resolved threads: %q", resolved)
		}
		row := e.findingsOf(r1.ID)["Goes away"]
		if !row.Resolved {
			t.Fatal("the resolved finding is not marked resolved")
		}
	})
}

func firstLine(body string, n int) string {
	lines := strings.Split(body, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " ")
}

func TestCheckConclusions(t *testing.T) {
	cases := []struct {
		name   string
		failOn string
		sev    findings.Severity
		want   string
	}{
		{"blocker fails blocker", "blocker", findings.Blocker, "failure"},
		{"major passes blocker", "blocker", findings.Major, "success"},
		{"major fails major", "major", findings.Major, "failure"},
		{"minor passes major", "major", findings.Minor, "success"},
		{"never", "never", findings.Blocker, "success"},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "blocker"), nil)
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				e.db.Reviewer.UpdateOne(e.reviewer).SetConfig(new(rules(findings.Nit, 20, c.failOn))).ExecX(e.ctx)
				e.reviewer = e.db.Reviewer.GetX(e.ctx, e.reviewer.ID)
				// A distinct finding each time, so none is "already on the PR".
				fd := f(calc, 10, c.sev, fmt.Sprintf("finding %d", i))
				r := e.newRun(findings.Result{Summary: "s", Findings: []findings.Finding{fd}})
				e.publish(r.ID)
				if got := e.checkRun(r.CheckRunID).Conclusion; got != c.want {
					t.Fatalf("conclusion %s, want %s", got, c.want)
				}
			})
		}
		// No findings: success, and the body says what was checked.
		r := e.newRun(findings.Result{Summary: "Clean.", Checked: findings.Checked{Files: []string{calc}}})
		e.publish(r.ID)
		if got := e.checkRun(r.CheckRunID); got.Conclusion != "success" || got.Title != "No findings" {
			t.Fatalf("empty run check: %+v", got)
		}
		last := e.chakshuReviews()[len(e.chakshuReviews())-1]
		if !strings.Contains(last.Body, "The reviewer found nothing to flag") || !strings.Contains(last.Body, "Files read (1): `lib/calc.go`") {
			t.Fatalf("empty review body:\n%s", last.Body)
		}
	})
}

func TestReviewRequestRemovedAndLearningsBumped(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "blocker"), nil)
		e.sim.RequestReviewers(repoName, e.pr, "alice", nil, []string{"security"})
		l := e.db.ReviewLearning.Create().SetInstallationID(e.repo.QueryInstallation().OnlyIDX(e.ctx)).
			SetRepository(e.repo).SetGlob("lib/**").SetDirective("Prefer table tests").SetDedupeKey("k1").SaveX(e.ctx)
		r := e.newRun(findings.Result{Summary: "s"}, func(c *ent.RunCreate) {
			c.SetTrigger(run.TriggerReviewRequest).SetRequestTarget("team:security").SetLearningsUsed([]int{l.ID})
		})
		e.publish(r.ID)
		if teams := e.sim.PR(repoName, e.pr).RequestedTeams; len(teams) != 0 {
			t.Fatalf("review request still pending: %v", teams)
		}
		got := e.db.ReviewLearning.GetX(e.ctx, l.ID)
		if got.UseCount != 1 || got.LastUsedAt == nil {
			t.Fatalf("learning not bumped: %+v", got)
		}
		if body := e.chakshuReviews()[0].Body; !strings.Contains(body, "`lib/**`: Prefer table tests") {
			t.Fatalf("review body does not list the learning:\n%s", body)
		}
	})
}

func TestFailuresAreSafeSentences(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "blocker"), nil)
		// GitHub keeps failing the review creation (past the client's retries).
		ghsimtest.InjectFault(e.sim, ghsimtest.Fault{Match: "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews", Kind: ghsimtest.FaultServerError, Status: 502})
		r := e.newRun(standardResult())
		if err := e.pub.Publish(e.ctx, r.ID); err == nil {
			t.Fatal("publish succeeded while GitHub failed")
		}
		got := e.run(r.ID)
		if got.Status != run.StatusFailed || got.FailureReason != "Chakshu could not publish this review on GitHub. It can be triggered again." {
			t.Fatalf("run: %s %q", got.Status, got.FailureReason)
		}
		if !strings.Contains(got.FailureDetail, "502") || strings.Contains(got.FailureDetail, "ghs_") {
			t.Fatalf("operator detail: %q", got.FailureDetail)
		}
		if n := len(e.chakshuReviews()); n != 0 {
			t.Fatalf("%d reviews posted", n)
		}
		// Every finding is still recorded, none posted.
		if fs := e.findingsOf(r.ID); len(fs) != 4 || fs["Old helper is slow"].Posted {
			t.Fatalf("findings after failure: %v", fs)
		}
		ghsimtest.ClearFaults(e.sim)

		bad := e.newRun(map[string]any{"summary": 3})
		if err := e.pub.Publish(e.ctx, bad.ID); err == nil {
			t.Fatal("an unreadable result was published")
		}
		if got := e.run(bad.ID); got.Status != run.StatusFailed || got.FailureReason != "Chakshu could not read the reviewer's result." {
			t.Fatalf("bad result run: %s %q", got.Status, got.FailureReason)
		}
	})
}

func TestTidyLeavesOtherReviewersThreads(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "never"), nil)
		r1 := e.newRun(findings.Result{Summary: "s", Findings: []findings.Finding{f(calc, 10, findings.Major, "Security finding")}})
		e.publish(r1.ID)
		// Another reviewer, later, on a new head where line 10 changed.
		l := featureCalc()
		l[9] = "again10"
		e.sim.Commit(repoName, "feature", map[string]string{calc: file(l)}, "rewrite")
		e.reviewer = e.db.Reviewer.Create().SetName("perf").SetInstallationID(e.repo.QueryInstallation().OnlyIDX(e.ctx)).SaveX(e.ctx)
		r2 := e.newRun(findings.Result{Summary: "s"})
		e.publish(r2.ID)
		for _, th := range e.sim.Threads(repoName, e.pr) {
			if !th.Outdated {
				t.Fatal("the thread should be outdated")
			}
			if th.Resolved {
				t.Fatal("perf resolved a thread security started")
			}
		}
	})
}

func TestReviewedCommitGoneStillPosts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "never"), nil)
		res := findings.Result{Summary: "s", Findings: []findings.Finding{f(calc, 10, findings.Major, "Fine line")}}
		r := e.newRun(res, func(c *ent.RunCreate) { c.SetHeadSha(strings.Repeat("d", 40)) })
		e.publish(r.ID)
		reviews := e.chakshuReviews()
		if len(reviews) != 1 || !strings.Contains(reviews[0].Body, "`lib/calc.go:10`") {
			t.Fatalf("reviews: %+v", reviews)
		}
		if reviews[0].CommitID != e.sim.PR(repoName, e.pr).HeadSHA {
			t.Fatalf("review on %s, want the PR head", reviews[0].CommitID)
		}
		if got := e.run(r.ID); got.Status != run.StatusSucceeded {
			t.Fatalf("run %s: %s", got.Status, got.FailureDetail)
		}
	})
}

// GitHub's anti-spam 422 ("was submitted too quickly") is not a refusal of
// the comments' lines: the run waits (stays publishing for the queue to
// retry) and then posts the same review with its inline comments, instead
// of moving them into the body.
func TestSpamRefusalWaitsInsteadOfMovingComments(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "never"), nil)
		const create = "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews"
		ghsimtest.InjectFault(e.sim, ghsimtest.Fault{Match: create, Kind: ghsimtest.FaultSpam, Times: 1})
		res := findings.Result{Summary: "s", Findings: []findings.Finding{f(calc, 10, findings.Major, "Fine line")}}
		r := e.newRun(res)
		err := e.pub.Publish(e.ctx, r.ID)
		if _, wait := gh.WaitFor(err, time.Now()); !wait {
			t.Fatalf("publish answered %v, want a wait for GitHub", err)
		}
		if got := e.run(r.ID); got.Status != run.StatusPublishing {
			t.Fatalf("run %s after the anti-spam answer, want still publishing", got.Status)
		}
		if n := len(e.chakshuReviews()); n != 0 || e.sim.CallCount(create) != 1 {
			t.Fatalf("%d reviews after %d creations, want none after 1", n, e.sim.CallCount(create))
		}
		e.publish(r.ID)
		if n := len(e.sim.ReviewComments(repoName, e.pr)); n != 1 {
			t.Fatalf("%d inline comments, want the finding inline", n)
		}
		if row := e.findingsOf(r.ID)["Fine line"]; row.Placement != finding.PlacementInline {
			t.Fatalf("finding placed %s, want inline", row.Placement)
		}
	})
}

// A 5xx naming a Retry-After longer than a request waits inline is handed
// back like a rate limit: the run stays publishing with GitHub's due time,
// nothing is resent inside the request, and the retry posts it once.
func TestUnavailableWithRetryAfterWaits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "never"), nil)
		const create = "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews"
		ghsimtest.InjectFault(e.sim, ghsimtest.Fault{Match: create, Kind: ghsimtest.FaultServerError, Status: 503, RetryAfter: 120, Times: 1})
		r := e.newRun(findings.Result{Summary: "s", Findings: []findings.Finding{f(calc, 10, findings.Major, "Fine line")}})
		err := e.pub.Publish(e.ctx, r.ID)
		until, wait := gh.WaitFor(err, time.Now())
		if !wait || until.Before(time.Now().Add(100*time.Second)) {
			t.Fatalf("publish answered %v (wait %v until %v), want GitHub's two minutes", err, wait, until)
		}
		if got := e.run(r.ID); got.Status != run.StatusPublishing || e.sim.CallCount(create) != 1 {
			t.Fatalf("run %s after %d creations, want publishing after 1", got.Status, e.sim.CallCount(create))
		}
		e.publish(r.ID)
		if n := len(e.chakshuReviews()); n != 1 {
			t.Fatalf("%d reviews, want 1", n)
		}
	})
}

// Publishing reads the files the run's job listed and stored (the head it
// reviewed) instead of listing them again: the same review goes out.
func TestPublishReadsTheJobsFiles(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 20, "blocker"), nil)
		listed, _, err := e.inst.REST.PullRequests.ListFiles(e.ctx, "acme", "widget", e.pr, nil)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := diffmap.EncodeFiles(diffmap.FilesOf(listed))
		if err != nil {
			t.Fatal(err)
		}
		r := e.newRun(standardResult(), func(c *ent.RunCreate) { c.SetPrFiles(enc) })
		e.sim.ResetCalls()
		e.publish(r.ID)
		if n := e.sim.CallCount("GET /repos/{owner}/{repo}/pulls/{pull_number}/files"); n != 0 {
			t.Errorf("publishing listed the PR's files %d times, want 0 (the job's)", n)
		}
		if n := len(e.sim.ReviewComments(repoName, e.pr)); n != 2 {
			t.Errorf("%d inline comments, want 2 (as with the files listed)", n)
		}
	})
}
