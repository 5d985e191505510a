package outcomes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/outcomes"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

const (
	repoName = "acme/widget"
	big      = "lib/big.go"
	compare  = "GET /repos/{owner}/{repo}/compare/{basehead}"
)

// bigLines is lib/big.go as the PR adds it: every line is in the diff.
func bigLines() []string {
	out := make([]string, 60)
	for i := range out {
		out[i] = fmt.Sprintf("big%d", i+1)
	}
	return out
}

func file(lines []string) string { return strings.Join(lines, "\n") + "\n" }

// env is a sim with a PR adding lib/big.go, a database with its
// installation, repository and two reviewers, a publisher and a reader.
type env struct {
	t        *testing.T
	ctx      context.Context
	sim      *ghsim.Sim
	db       *store.DB
	inst     *gh.Installation
	pub      *publish.Publisher
	reader   *outcomes.Reader
	repo     *ent.Repository
	security *ent.Reviewer
	style    *ent.Reviewer
	pr       int
	lines    []string
}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	ctx := context.Background()
	s := ghsimtest.New(t)
	appID, key := s.CreateApp("chakshu")
	s.CreateOrg("acme")
	s.CreateUser("alice")
	s.CreateUser("bob")
	s.CreateRepo("acme", "widget", map[string]string{"README.md": "# widget\n"})
	s.SetPermission(repoName, "alice", "write")
	instID := s.Install(appID, "acme", []string{repoName}, nil)
	s.CreateBranch(repoName, "feature", "main")
	lines := bigLines()
	s.Commit(repoName, "feature", map[string]string{big: file(lines)}, "add big")
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
	cfg := reviewerconfig.Defaults()
	cfg.MinSeverity, cfg.MaxFindings = findings.Nit, 50
	sec := db.Reviewer.Create().SetName("security").SetInstallation(in).SetConfig(&cfg).SaveX(ctx)
	sty := db.Reviewer.Create().SetName("style").SetInstallation(in).SetConfig(&cfg).SaveX(ctx)
	pub, err := publish.New(publish.Config{DB: db, GitHub: apps, AppSlug: "chakshu", PublicURL: "https://chakshu.example/"})
	if err != nil {
		t.Fatal(err)
	}
	rd, err := outcomes.New(outcomes.Config{DB: db, AppSlug: "chakshu"})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, ctx: ctx, sim: s, db: db, inst: inst, pub: pub, reader: rd, repo: repo, security: sec, style: sty, pr: n, lines: lines}
}

func fd(line int, title string) findings.Finding {
	return findings.Finding{Path: big, Line: line, Side: "RIGHT", Severity: findings.Major, Category: "bug", Title: title, Body: "Because."}
}

// review publishes a run of rv on the PR's head reporting fs.
func (e *env) review(rv *ent.Reviewer, fs ...findings.Finding) *ent.Run {
	e.t.Helper()
	head := e.sim.PR(repoName, e.pr).HeadSHA
	b, err := json.Marshal(findings.Result{Summary: "s", Checked: findings.Checked{Files: []string{big}}, Findings: fs})
	if err != nil {
		e.t.Fatal(err)
	}
	res, err := findings.ParseResult(b) // as the runner API stores it
	if err != nil {
		e.t.Fatal(err)
	}
	r := e.db.Run.Create().SetRepository(e.repo).SetReviewer(rv).SetTrigger(run.TriggerComment).
		SetPrNumber(e.pr).SetHeadSha(head).SetBaseRef("main").SetStatus(run.StatusPublishing).
		SetReportedAt(time.Now()).SetResult(&findings.Stored{Review: res}).SaveX(e.ctx)
	if err := e.pub.Publish(e.ctx, r.ID); err != nil {
		e.t.Fatalf("publish: %v", err)
	}
	if got := e.db.Run.GetX(e.ctx, r.ID).Status; got != run.StatusSucceeded {
		e.t.Fatalf("run %d is %s", r.ID, got)
	}
	return r
}

// byTitle returns the posted findings of run id by title.
func (e *env) byTitle(id int) map[string]*ent.Finding {
	out := map[string]*ent.Finding{}
	for _, f := range e.db.Finding.Query().Where(finding.HasRunWith(run.ID(id)), finding.Posted(true)).AllX(e.ctx) {
		out[f.Title] = f
	}
	return out
}

// threadOf is the node id of the thread whose root is comment id.
func (e *env) threadOf(comment int64) string {
	for _, t := range e.sim.Threads(repoName, e.pr) {
		if len(t.CommentIDs) > 0 && t.CommentIDs[0] == comment {
			return t.NodeID
		}
	}
	e.t.Fatalf("no thread with root %d", comment)
	return ""
}

// push commits lib/big.go with line n (1-based) replaced by each of set.
func (e *env) push(set map[int]string) string {
	for n, text := range set {
		e.lines[n-1] = text
	}
	return e.sim.Commit(repoName, "feature", map[string]string{big: file(e.lines)}, "change")
}

type want struct {
	outcome finding.Outcome
	reason  string // a part of the reason
}

func (e *env) check(id int, wants map[string]want) {
	e.t.Helper()
	got := e.byTitle(id)
	for title, w := range wants {
		f := got[title]
		if f == nil {
			e.t.Errorf("%s: not posted", title)
			continue
		}
		if f.Outcome != w.outcome || !strings.Contains(f.OutcomeReason, w.reason) {
			e.t.Errorf("%s: %s (%q), want %s (%q)", title, f.Outcome, f.OutcomeReason, w.outcome, w.reason)
		}
		if (f.Outcome == finding.OutcomeOpen) != (f.OutcomeAt == nil) {
			e.t.Errorf("%s: outcome %s at %v", title, f.Outcome, f.OutcomeAt)
		}
	}
}

// Each outcome a later review can reach, from what people did on GitHub,
// with one compare and no GraphQL read beyond publishing's own.
func TestOutcomesAtLaterReview(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		sugg := fd(41, "Suggestion")
		sugg.StartLine, sugg.Suggestion = 40, ptr("fixed40\nfixed41\n")
		r1 := e.review(e.security,
			fd(5, "Fixed"), fd(10, "Came back"), fd(15, "Thumbs down"), fd(20, "Thumbs up"), fd(25, "Resolved"),
			fd(30, "Replied wrong"), fd(35, "Replied agreeing"), sugg, fd(50, "Untouched"), fd(52, "Resolved but changed"))
		r2 := e.review(e.style, fd(55, "Other reviewer"))
		one := e.byTitle(r1.ID)

		e.sim.React(repoName, e.pr, one["Thumbs down"].CommentID, "bob", "-1")
		e.sim.React(repoName, e.pr, one["Thumbs up"].CommentID, "bob", "+1")
		e.sim.ResolveThread(e.threadOf(one["Resolved"].CommentID), "alice", true)
		e.sim.ReplyToReviewComment(repoName, e.pr, one["Replied wrong"].CommentID, "alice", "This is a false positive: the input is validated upstream.")
		e.sim.ReplyToReviewComment(repoName, e.pr, one["Replied agreeing"].CommentID, "alice", "Good catch, will fix.")
		// Chakshu's own reaction and resolution are not a person's.
		cmt := one["Untouched"].CommentID
		_, resp, err := e.inst.REST.Reactions.CreatePullRequestCommentReaction(e.ctx, "acme", "widget", cmt, "-1")
		if err != nil || resp.StatusCode != 201 {
			t.Fatalf("react: %v %v", resp, err)
		}
		if _, resp, err = e.inst.REST.Reactions.CreatePullRequestCommentReaction(e.ctx, "acme", "widget", cmt, "-1"); err != nil || resp.StatusCode != 200 {
			t.Fatalf("the same reaction again: %v %v, want 200", resp, err)
		}
		e.sim.ResolveThread(e.threadOf(cmt), "chakshu[bot]", true)
		// A person resolving a thread whose lines then change is not a dismissal.
		e.sim.ResolveThread(e.threadOf(one["Resolved but changed"].CommentID), "alice", true)

		head := e.push(map[int]string{5: "changed5", 10: "changed10", 40: "fixed40", 41: "fixed41", 52: "changed52", 55: "changed55"})
		e.sim.ResetCalls()
		e.review(e.security, fd(10, "Came back"))
		if n := e.sim.CallCount(compare); n != 1 {
			t.Errorf("%d compares at the later review, want 1", n)
		}
		if n := e.sim.GraphQLCalls()["query repository"]; n != 1 {
			t.Errorf("%d GraphQL reads at the later review, want publishing's own 1", n)
		}
		e.check(r1.ID, map[string]want{
			"Fixed":                {finding.OutcomeFixed, "line 5 changed in " + head[:7] + "; not reported again"},
			"Came back":            {finding.OutcomeOpen, ""},
			"Thumbs down":          {finding.OutcomeDismissed, "@bob reacted 👎"},
			"Thumbs up":            {finding.OutcomeAcknowledged, "@bob reacted 👍"},
			"Resolved":             {finding.OutcomeDismissed, "thread resolved by @alice with no change under it"},
			"Replied wrong":        {finding.OutcomeDismissed, "@alice replied that it is wrong"},
			"Replied agreeing":     {finding.OutcomeAcknowledged, "@alice replied agreeing"},
			"Suggestion":           {finding.OutcomeFixed, "its suggestion was applied in " + head[:7]},
			"Untouched":            {finding.OutcomeOpen, ""},
			"Resolved but changed": {finding.OutcomeFixed, "line 52 changed"},
		})
		// Another reviewer's finding is fixed only after its own reviewer's next review.
		e.check(r2.ID, map[string]want{"Other reviewer": {finding.OutcomeOpen, ""}})

		// A reaction left after that review is read at the next one; decided
		// outcomes stay as they are.
		e.sim.React(repoName, e.pr, one["Untouched"].CommentID, "alice", "+1")
		e.sim.React(repoName, e.pr, one["Thumbs down"].CommentID, "alice", "+1")
		e.review(e.style)
		e.check(r1.ID, map[string]want{
			"Untouched":   {finding.OutcomeAcknowledged, "@alice reacted 👍"},
			"Thumbs down": {finding.OutcomeDismissed, "@bob reacted 👎"},
		})
		e.check(r2.ID, map[string]want{"Other reviewer": {finding.OutcomeFixed, "line 55 changed"}})

		// "Came back" was reported again at the second head: a later review
		// that does not report it, with its lines unchanged since, fixes nothing.
		e.push(map[int]string{58: "changed58"})
		e.review(e.security)
		e.check(r1.ID, map[string]want{"Came back": {finding.OutcomeOpen, ""}})
		// Its lines change and the next review does not report it: fixed.
		head = e.push(map[int]string{10: "changed10 again"})
		e.review(e.security)
		e.check(r1.ID, map[string]want{"Came back": {finding.OutcomeFixed, "line 10 changed in " + head[:7]}})
	})
}

func ptr(s string) *string { return &s }

// Merging and closing decide what is still open; a read costs one GraphQL
// call, and a compare only when a suggestion could have been applied.
func TestOutcomesAtMergeAndClose(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		sugg := fd(12, "Suggestion")
		sugg.Suggestion = ptr("applied12\n")
		r1 := e.review(e.security, fd(5, "Open"), fd(8, "Thumbs up"), sugg, fd(20, "Body or not"))
		one := e.byTitle(r1.ID)
		e.sim.React(repoName, e.pr, one["Thumbs up"].CommentID, "bob", "+1")
		head := e.push(map[int]string{12: "applied12"})

		e.sim.ResetCalls()
		if err := e.reader.AtClose(e.ctx, e.inst, outcomes.Closed{Repo: e.repo, PR: e.pr, Merged: true, Head: head}); err != nil {
			t.Fatal(err)
		}
		if g, c := e.sim.CallCount("POST /graphql"), e.sim.CallCount(compare); g != 1 || c != 1 {
			t.Errorf("merge read took %d GraphQL + %d compare calls, want 1 + 1", g, c)
		}
		e.check(r1.ID, map[string]want{
			"Open":       {finding.OutcomeOpenAtMerge, "open when the pull request was merged"},
			"Thumbs up":  {finding.OutcomeAcknowledged, "@bob reacted 👍"},
			"Suggestion": {finding.OutcomeFixed, "its suggestion was applied in " + head[:7]},
		})

		// Everything is decided: reading again calls GitHub not at all.
		e.sim.ResetCalls()
		if err := e.reader.AtClose(e.ctx, e.inst, outcomes.Closed{Repo: e.repo, PR: e.pr, Merged: true, Head: head}); err != nil {
			t.Fatal(err)
		}
		if n := len(e.sim.Calls()); n != 0 {
			t.Errorf("a PR with no open finding cost %v", e.sim.Calls())
		}
	})
}

func TestOutcomesClosedUnmerged(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		r1 := e.review(e.security, fd(5, "Open"), fd(8, "Thumbs down"))
		e.sim.React(repoName, e.pr, e.byTitle(r1.ID)["Thumbs down"].CommentID, "bob", "-1")
		e.sim.ResetCalls()
		err := e.reader.AtClose(e.ctx, e.inst, outcomes.Closed{Repo: e.repo, PR: e.pr, Head: e.sim.PR(repoName, e.pr).HeadSHA})
		if err != nil {
			t.Fatal(err)
		}
		if g, c := e.sim.CallCount("POST /graphql"), e.sim.CallCount(compare); g != 1 || c != 0 {
			t.Errorf("close read took %d GraphQL + %d compare calls, want 1 + 0 (no suggestion)", g, c)
		}
		e.check(r1.ID, map[string]want{
			"Open":        {finding.OutcomeClosedUnmerged, "closed without merging"},
			"Thumbs down": {finding.OutcomeDismissed, "@bob reacted 👎"},
		})
	})
}

// The first review of a PR has nothing to read, nor has a PR whose findings
// are all decided or came from shadow runs (which post nothing): no compare.
func TestNoReadWithoutOpenFindings(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		e.sim.ResetCalls()
		e.review(e.security, fd(5, "First"))
		if n := e.sim.CallCount(compare); n != 0 {
			t.Errorf("%d compares at a PR's first review", n)
		}
		e.db.Finding.Update().SetOutcome(finding.OutcomeDismissed).ExecX(e.ctx)
		shadow := e.db.Run.Create().SetRepository(e.repo).SetReviewer(e.security).SetTrigger(run.TriggerBacktest).SetShadow(true).
			SetPrNumber(e.pr).SetHeadSha(e.sim.PR(repoName, e.pr).HeadSHA).SetStatus(run.StatusSucceeded).SaveX(e.ctx)
		e.db.Finding.Create().SetRun(shadow).SetHiddenID("h").SetPath(big).SetLine(5).SetSeverity(finding.SeverityMajor).
			SetTitle("Shadow").SetPosted(true).ExecX(e.ctx)
		e.push(map[int]string{5: "x"})
		e.sim.ResetCalls()
		e.review(e.security)
		if n := e.sim.CallCount(compare); n != 0 {
			t.Errorf("%d compares with every finding decided or shadow", n)
		}
		if err := e.reader.AtClose(e.ctx, e.inst, outcomes.Closed{Repo: e.repo, PR: e.pr, Head: "x"}); err != nil {
			t.Fatal(err)
		}
		if f := e.byTitle(shadow.ID)["Shadow"]; f.Outcome != finding.OutcomeOpen {
			t.Errorf("a shadow run's finding got %s", f.Outcome)
		}
	})
}

// More threads than one page (100): a finding on the second page is read.
func TestThreadsPaged(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		var cs []ghsim.ReviewCommentInput
		for i := range 130 {
			cs = append(cs, ghsim.ReviewCommentInput{Path: big, Line: i%60 + 1, Side: "RIGHT", Body: fmt.Sprintf("note %d", i)})
		}
		e.sim.AddReview(repoName, e.pr, "alice", "notes", cs)
		r1 := e.review(e.security, fd(7, "Late thread"))
		e.sim.React(repoName, e.pr, e.byTitle(r1.ID)["Late thread"].CommentID, "bob", "+1")
		e.sim.ResetCalls()
		if err := e.reader.AtClose(e.ctx, e.inst, outcomes.Closed{Repo: e.repo, PR: e.pr, Merged: true, Head: e.sim.PR(repoName, e.pr).HeadSHA}); err != nil {
			t.Fatal(err)
		}
		if n := e.sim.CallCount("POST /graphql"); n != 2 {
			t.Errorf("%d GraphQL pages for 131 threads, want 2", n)
		}
		e.check(r1.ID, map[string]want{"Late thread": {finding.OutcomeAcknowledged, "@bob reacted 👍"}})
		ts, err := outcomes.ListThreads(e.ctx, e.inst.GraphQL, "acme", "widget", e.pr)
		if err != nil || len(ts) != 131 {
			t.Fatalf("ListThreads = %d threads, %v; want 131", len(ts), err)
		}
	})
}
