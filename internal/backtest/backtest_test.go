package backtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/backtest"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	bt "github.com/chakshu-dev/chakshu/internal/backtest"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/gh/ghtest"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/server/webhook"
	"github.com/chakshu-dev/chakshu/server/webhook/webhooktest"
	"github.com/chakshu-dev/chakshu/worker/events"
)

const (
	rvRepo = "acme/chakshu-reviewers"
	oldMD  = "# Security\nLook for injection.\n"
	newMD  = "# Security\nLook for injection and for secrets in logs.\n"
	skill  = "---\nname: sql\ndescription: SQL injection checks\n---\nCheck queries.\n"
)

// world is the simulated GitHub with a reviewers repository whose
// "security" and "perf" reviewers are in force, Chakshu's webhook intake and
// events loop, and the backtest loop, all on one database.
type world struct {
	t      *testing.T
	db     *store.DB
	sim    *ghsim.Sim
	events *events.Loop
	loop   *bt.Loop
	inst   *ent.Installation
	widget *ent.Repository
	sec    *ent.Reviewer
	apps   *gh.Apps
	now    time.Time
}

func newWorld(t *testing.T, db *store.DB) *world {
	t.Helper()
	ctx := context.Background()
	w := &world{t: t, db: db, sim: ghsimtest.New(t), now: time.Now()}
	appID, key := w.sim.CreateApp("chakshu")
	bus := wakeup.NewLocal()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	in := webhooktest.StartIntake(t, webhook.Config{DB: db, Secrets: []string{"s"}, Log: log, Bus: bus})
	w.sim.SetWebhook(in.URL, "s")
	w.sim.CreateOrg("acme")
	w.sim.CreateUser("alice")
	w.sim.CreateRepo("acme", "chakshu-reviewers", map[string]string{
		"reviewers/security/reviewer.yaml":       "description: Security\nbacktest:\n  prs: 3\n",
		"reviewers/security/CLAUDE.md":           oldMD,
		"reviewers/security/skills/sql/SKILL.md": skill,
		"reviewers/perf/reviewer.yaml":           "description: Performance\n",
	})
	w.sim.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n"})
	w.sim.SetPermission(rvRepo, "alice", "write")
	instID := w.sim.Install(appID, "acme", nil, nil)
	apps := ghtest.Apps(t, w.sim, appID, key, ghtest.Retry(gh.RetryPolicy{Attempts: 2, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}))
	w.apps = apps
	port := ghwrite.New(apps, "chakshu")
	var err error
	w.events, err = events.New(events.Config{DB: db, Bus: bus, Log: log, GitHub: apps, Write: port, AppSlug: "chakshu",
		WorkerID: "w1", Backoff: []time.Duration{0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	w.loop, err = bt.New(bt.Config{DB: db, Bus: bus, Log: log, GitHub: apps, Write: port, WorkerID: "w1",
		Now: func() time.Time { return w.now }})
	if err != nil {
		t.Fatal(err)
	}
	w.drainEvents()
	w.inst = db.Installation.Query().Where(installation.GithubID(instID)).OnlyX(ctx)
	syncer, err := reviewerconfig.NewSyncer(reviewerconfig.SyncerConfig{DB: db, Clients: apps})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := syncer.Sync(ctx, w.inst.ID); err != nil || len(rep.Failed) > 0 {
		t.Fatalf("sync: %v %v", err, rep.Failed)
	}
	w.sec = db.Reviewer.Query().Where(reviewer.Name("security")).OnlyX(ctx)
	w.widget = db.Repository.Create().SetGithubID(9001).SetOwner("acme").SetName("widget").SetFullName("acme/widget").
		SetInstallation(w.inst).SaveX(ctx)
	return w
}

func (w *world) drainEvents() {
	w.t.Helper()
	w.sim.WaitDeliveries()
	if _, err := w.events.Drain(context.Background()); err != nil {
		w.t.Fatal(err)
	}
	for _, f := range w.db.WebhookEvent.Query().Where(webhookevent.StatusNEQ(webhookevent.StatusDone)).AllX(context.Background()) {
		w.t.Fatalf("event %s.%s is %s: %s", f.Event, f.Action, f.Status, f.LastError)
	}
}

// drain runs the backtest loop over everything due, then moves its clock
// past the recheck so running backtests are due again.
func (w *world) drain() {
	w.t.Helper()
	if _, err := w.loop.Drain(context.Background()); err != nil {
		w.t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
}

// reviewed records a real, succeeded review of widget#n by security that
// cost cost and posted findings with the given outcomes (hidden ID → outcome).
func (w *world) reviewed(n int, age time.Duration, cost float64, posted map[string]finding.Outcome) *ent.Run {
	ctx := context.Background()
	fin := time.Now().Add(-age)
	r := w.db.Run.Create().SetRepository(w.widget).SetReviewer(w.sec).SetPrNumber(n).SetHeadSha(fmt.Sprintf("head%04d", n)).
		SetBaseSha("base").SetTrigger(run.TriggerAuto).SetStatus(run.StatusSucceeded).SetFinishedAt(fin).SetCostUsd(cost).SaveX(ctx)
	for id, o := range posted {
		w.db.Finding.Create().SetRun(r).SetHiddenID(id).SetPath("a.go").SetSeverity(finding.SeverityMajor).SetTitle(id).
			SetPosted(true).SetPlacement(finding.PlacementInline).SetOutcome(o).ExecX(ctx)
	}
	return r
}

// finishShadow finishes shadow run r as the publisher stores a shadow
// review: succeeded with its cost and duration and its findings (hidden ID
// → severity), posted nowhere.
func (w *world) finishShadow(r *ent.Run, cost float64, ms int64, found map[string]finding.Severity) {
	ctx := context.Background()
	w.db.Run.UpdateOne(r).SetStatus(run.StatusSucceeded).SetCostUsd(cost).SetDurationMs(ms).SetFinishedAt(time.Now()).ExecX(ctx)
	for id, sev := range found {
		w.db.Finding.Create().SetRun(r).SetHiddenID(id).SetPath("a.go").SetSeverity(sev).SetTitle(id).ExecX(ctx)
	}
}

// finishBothSides finishes b's old side, lets the loop queue the new one,
// finishes that and lets the loop report: every run costs cost and finds found.
func (w *world) finishBothSides(b *ent.Backtest, cost float64, found map[string]finding.Severity) {
	for _, side := range []run.BacktestSide{run.BacktestSideOld, run.BacktestSideNew} {
		for _, r := range w.shadowRuns(b, side) {
			w.finishShadow(r, cost, 1000, found)
		}
		w.drain()
	}
}

func (w *world) shadowRuns(b *ent.Backtest, side run.BacktestSide) []*ent.Run {
	return w.db.Run.Query().Where(run.BacktestID(b.ID), run.BacktestSideEQ(side)).WithRepository().
		Order(ent.Asc(run.FieldPrNumber)).AllX(context.Background())
}

func (w *world) backtests() []*ent.Backtest {
	return w.db.Backtest.Query().Order(ent.Asc(backtest.FieldID)).AllX(context.Background())
}

// openChange opens a PR on the reviewers repository that applies files.
func (w *world) openChange(branch string, files map[string]string) int {
	w.sim.CreateBranch(rvRepo, branch, "main")
	w.sim.Commit(rvRepo, branch, files, "change reviewers")
	n := w.sim.OpenPR(rvRepo, branch, "main", "Change reviewers", "", "alice", false)
	w.drainEvents()
	return n
}

func (w *world) checks(name string) []ghsim.CheckRun {
	var out []ghsim.CheckRun
	for _, c := range w.sim.CheckRuns(rvRepo) {
		if c.Name == name {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID }) // oldest first
	return out
}

// asStored is snap as a JSON column holds it and gives it back.
func asStored(t *testing.T, snap map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A change to a reviewer's rules is backtested end to end: one backtest for
// the changed reviewer only, its check opened on the change's head, the old
// side queued on the last 3 distinct reviewed PRs (newest first, at the head
// reviewed) with the version in force, the new side after it with the
// change's version, and one comment comparing them whose figures come from
// the shadow runs' findings and the posted findings' outcomes. A push runs
// it again and edits that comment.
func TestBacktestOfAChangedReviewer(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		// History: PR 1 reviewed twice (the later review counts), 2, 3 and an older 4 (past prs: 3).
		w.reviewed(4, 5*time.Hour, 0.1, nil)
		w.reviewed(1, 4*time.Hour, 0.1, nil)
		w.reviewed(3, 3*time.Hour, 0.1, map[string]finding.Outcome{"f-fixed": finding.OutcomeFixed, "f-noise": finding.OutcomeDismissed})
		w.reviewed(2, 2*time.Hour, 0.1, nil)
		w.reviewed(1, 1*time.Hour, 0.1, nil)
		// A shadow run is never a reviewed PR.
		db.Run.Create().SetRepository(w.widget).SetReviewer(w.sec).SetPrNumber(7).SetHeadSha("x").SetTrigger(run.TriggerBacktest).
			SetShadow(true).SetStatus(run.StatusSucceeded).SetFinishedAt(time.Now()).ExecX(ctx)

		n := w.openChange("sharper", map[string]string{"reviewers/security/CLAUDE.md": newMD, "README.md": "docs\n"})
		bts := w.backtests()
		if len(bts) != 1 || bts[0].ReviewerName != "security" || bts[0].Status != backtest.StatusQueued || bts[0].PrNumber != n {
			t.Fatalf("backtests after the PR opened: %+v", bts)
		}
		head := w.sim.PR(rvRepo, n).HeadSHA
		if bts[0].HeadSha != head || bts[0].BaseSha != w.sim.PR(rvRepo, n).BaseSHA {
			t.Fatalf("backtest at %s/%s, PR head %s", bts[0].HeadSha, bts[0].BaseSha, head)
		}

		w.drain()
		b := db.Backtest.GetX(ctx, bts[0].ID)
		if b.Status != backtest.StatusRunning || b.MaxPrs != 3 || b.MaxCostUsd != 5 {
			t.Fatalf("started backtest: %s prs %d cap %v (%s)", b.Status, b.MaxPrs, b.MaxCostUsd, b.FailureReason)
		}
		cks := w.checks("Chakshu backtest · security")
		if len(cks) != 1 || cks[0].HeadSHA != head || cks[0].Status != "in_progress" {
			t.Fatalf("check runs: %+v", cks)
		}
		old := w.shadowRuns(b, run.BacktestSideOld)
		var got []string
		for _, r := range old {
			got = append(got, fmt.Sprintf("%s#%d@%s %s shadow=%v", r.Edges.Repository.FullName, r.PrNumber, r.HeadSha, r.Trigger, r.Shadow))
			if diff := cmp.Diff(asStored(t, reviewerconfig.SnapshotOf(w.sec)), r.ReviewerSnapshot); diff != "" {
				t.Fatalf("old snapshot (-want +got):\n%s", diff)
			}
			if r.ReviewerSnapshot[reviewerconfig.SnapshotClaudeMD] != oldMD {
				t.Fatalf("old side's rules: %q", r.ReviewerSnapshot[reviewerconfig.SnapshotClaudeMD])
			}
		}
		want := []string{"acme/widget#1@head0001 backtest shadow=true", "acme/widget#2@head0002 backtest shadow=true", "acme/widget#3@head0003 backtest shadow=true"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("old side (-want +got):\n%s", diff)
		}
		if len(w.shadowRuns(b, run.BacktestSideNew)) != 0 {
			t.Fatal("the new side is queued before the old one finished")
		}

		// The old side finishes; PR 3's old findings include the two posted ones.
		w.finishShadow(old[0], 0.10, 60_000, map[string]finding.Severity{"k1": finding.SeverityMajor})
		w.finishShadow(old[1], 0.10, 60_000, nil)
		w.finishShadow(old[2], 0.10, 60_000, map[string]finding.Severity{"f-fixed": finding.SeverityBlocker,
			"f-noise": finding.SeverityNit, "k2": finding.SeverityMinor, "gone": finding.SeverityMinor})
		w.drain()
		news := w.shadowRuns(b, run.BacktestSideNew)
		if len(news) != 3 {
			t.Fatalf("new side: %d runs", len(news))
		}
		for i, r := range news {
			if r.HeadSha != old[i].HeadSha || r.PrNumber != old[i].PrNumber || !r.Shadow {
				t.Fatalf("new run %d at %d@%s", i, r.PrNumber, r.HeadSha)
			}
			if r.ReviewerSnapshot[reviewerconfig.SnapshotClaudeMD] != newMD {
				t.Fatalf("new side's rules: %q", r.ReviewerSnapshot[reviewerconfig.SnapshotClaudeMD])
			}
			skills, _ := r.ReviewerSnapshot[reviewerconfig.SnapshotSkills].([]any)
			if len(skills) != 1 || skills[0].(map[string]any)["name"] != "sql" {
				t.Fatalf("new side's skills: %v", r.ReviewerSnapshot[reviewerconfig.SnapshotSkills])
			}
		}
		if w.checks("Chakshu backtest · security")[0].Status != "in_progress" {
			t.Fatal("check completed before the new side ran")
		}
		w.finishShadow(news[0], 0.20, 90_000, map[string]finding.Severity{"k1": finding.SeverityMajor, "new1": finding.SeverityMajor})
		w.finishShadow(news[1], 0.20, 90_000, nil)
		// What the new version found but would not post (below its
		// min_severity) is not an added finding.
		db.Finding.Create().SetRunID(news[1].ID).SetHiddenID("quiet").SetPath("a.go").SetSeverity(finding.SeverityNit).
			SetTitle("quiet").SetDroppedReason(publish.DropBelowMin).ExecX(ctx)
		w.finishShadow(news[2], 0.20, 90_000, map[string]finding.Severity{"k2": finding.SeverityMinor})
		w.drain()

		b = db.Backtest.GetX(ctx, b.ID)
		if b.Status != backtest.StatusCompleted {
			t.Fatalf("backtest %s: %s", b.Status, b.FailureReason)
		}
		sum := b.Summary
		for k, v := range map[string]any{"prs_covered": 3, "dropped_fixed": 1, "dropped_dismissed": 1} {
			if fmt.Sprint(sum[k]) != fmt.Sprint(v) {
				t.Fatalf("summary %s = %v, want %v (%v)", k, sum[k], v, sum)
			}
		}
		for k, v := range map[string]map[string]int{
			"kept":    {"blocker": 0, "major": 1, "minor": 1, "nit": 0},
			"added":   {"blocker": 0, "major": 1, "minor": 0, "nit": 0},
			"dropped": {"blocker": 1, "major": 0, "minor": 1, "nit": 1},
		} {
			if fmt.Sprint(sum[k]) != fmt.Sprint(v) {
				t.Fatalf("summary %s = %v, want %v", k, sum[k], v)
			}
		}
		if d := sum["cost_delta_usd"].(float64); d < 0.2999 || d > 0.3001 {
			t.Fatalf("cost delta %v", d)
		}
		if fmt.Sprint(sum["duration_delta_ms"]) != "90000" {
			t.Fatalf("duration delta %v", sum["duration_delta_ms"])
		}
		comments := w.sim.IssueComments(rvRepo, n)
		if len(comments) != 1 || !strings.Contains(comments[0].Body, publish.BacktestMarker("security")) ||
			!strings.Contains(comments[0].Body, "**1 had been fixed**") || !strings.Contains(comments[0].Body, "**1 had been dismissed**") ||
			!strings.Contains(comments[0].Body, "**3 of the last 3**") {
			t.Fatalf("comments: %+v", comments)
		}
		if comments[0].Body != strings.TrimRight(b.Report, "\n")+"\n\n"+publish.BacktestMarker("security") {
			t.Fatal("stored report differs from the comment")
		}
		cks = w.checks("Chakshu backtest · security")
		// It dropped a finding that had been fixed: neutral, not success.
		if len(cks) != 1 || cks[0].Status != "completed" || cks[0].Conclusion != "neutral" {
			t.Fatalf("check runs: %+v", cks)
		}
		if w.checks("Chakshu backtest · perf") != nil {
			t.Fatal("an unchanged reviewer was backtested")
		}

		// A push backtests the new head; its comparison edits the one comment.
		w.sim.Commit(rvRepo, "sharper", map[string]string{"reviewers/security/CLAUDE.md": newMD + "Also logs.\n"}, "more")
		w.drainEvents()
		w.drain()
		b2 := w.backtests()[1]
		if b2.Status != backtest.StatusRunning || b2.HeadSha == b.HeadSha {
			t.Fatalf("second backtest %s at %s", b2.Status, b2.HeadSha)
		}
		w.finishBothSides(b2, 0.1, nil)
		b2 = db.Backtest.GetX(ctx, b2.ID)
		comments = w.sim.IssueComments(rvRepo, n)
		if b2.Status != backtest.StatusCompleted || len(comments) != 1 || comments[0].ID != b.CommentID || b2.CommentID != b.CommentID ||
			!strings.Contains(comments[0].Body, short(b2.HeadSha)) {
			t.Fatalf("after the re-run: %s, comments %+v", b2.Status, comments)
		}
		cks = w.checks("Chakshu backtest · security")
		if len(cks) != 2 || cks[1].HeadSHA != b2.HeadSha || cks[1].Conclusion != "success" {
			t.Fatalf("check runs after the re-run: %+v", cks)
		}

		// Re-run on the check: a new backtest of the same head, with its own
		// check, whose comparison edits the same comment once more.
		w.sim.RerequestCheckRun(cks[1].ID, "alice")
		w.drainEvents()
		w.drain()
		b3 := w.backtests()[2]
		if b3.HeadSha != b2.HeadSha || b3.Status != backtest.StatusRunning {
			t.Fatalf("re-run backtest %s at %s", b3.Status, b3.HeadSha)
		}
		w.finishBothSides(b3, 0.1, map[string]finding.Severity{"late": finding.SeverityNit})
		comments = w.sim.IssueComments(rvRepo, n)
		if len(comments) != 1 || comments[0].ID != b.CommentID || !strings.Contains(comments[0].Body, "| nit | 3 | 0 | 0 |") {
			t.Fatalf("after Re-run: %+v", comments)
		}
		if cks = w.checks("Chakshu backtest · security"); len(cks) != 3 || cks[2].Conclusion != "success" {
			t.Fatalf("check runs after Re-run: %+v", cks)
		}
	})
}

func short(s string) string { return s[:7] }

// A push supersedes the backtest of the older head: it and its shadow runs
// are cancelled and its check completed as cancelled, and the new head gets
// its own; closing the pull request cancels that one too.
func TestPushSupersedesAndCloseCancels(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		w.reviewed(1, time.Hour, 0.1, nil)
		n := w.openChange("edit", map[string]string{"reviewers/security/reviewer.yaml": "description: Security\nmodel: claude-opus-4-8\n"})
		w.drain()
		first := w.backtests()[0]
		if first.Status != backtest.StatusRunning || len(w.shadowRuns(first, run.BacktestSideOld)) != 1 {
			t.Fatalf("first backtest %s", first.Status)
		}
		// The new version's model is what its shadow runs will use.
		w.sim.Commit(rvRepo, "edit", map[string]string{"reviewers/security/CLAUDE.md": newMD}, "rules too")
		w.drainEvents()
		first = db.Backtest.GetX(ctx, first.ID)
		if first.Status != backtest.StatusCancelled || !strings.Contains(first.FailureReason, "moved to") {
			t.Fatalf("superseded backtest %s: %q", first.Status, first.FailureReason)
		}
		for _, r := range w.shadowRuns(first, run.BacktestSideOld) {
			if r.Status != run.StatusCancelled {
				t.Fatalf("shadow run of the superseded backtest is %s", r.Status)
			}
		}
		w.drain()
		cks := w.checks("Chakshu backtest · security")
		if len(cks) != 2 || cks[0].Conclusion != "cancelled" || cks[1].Status != "in_progress" {
			t.Fatalf("check runs: %+v", cks)
		}
		second := w.backtests()[1]
		if second.Status != backtest.StatusRunning {
			t.Fatalf("second backtest %s", second.Status)
		}
		w.drain() // nothing more happens to the cancelled one's check
		if got := w.checks("Chakshu backtest · security"); got[0].Conclusion != "cancelled" || len(got) != 2 {
			t.Fatalf("check runs: %+v", got)
		}
		w.sim.ClosePR(rvRepo, n, "alice")
		w.drainEvents()
		w.drain()
		second = db.Backtest.GetX(ctx, second.ID)
		if second.Status != backtest.StatusCancelled || !second.CheckCompleted {
			t.Fatalf("after close: %s completed=%v", second.Status, second.CheckCompleted)
		}
		if cks := w.checks("Chakshu backtest · security"); cks[1].Conclusion != "cancelled" {
			t.Fatalf("check runs after close: %+v", cks)
		}
		if c := w.sim.IssueComments(rvRepo, n); len(c) != 0 {
			t.Fatalf("a cancelled backtest commented: %+v", c)
		}

		// Reopened at the same head (the use case as the webhook calls it):
		// backtested again, the cancelled one notwithstanding; the same
		// delivery handled twice queues it once.
		gi := ghtest.Installation(t, w.apps, w.inst.GithubID)
		pr := w.sim.PR(rvRepo, n)
		ch := bt.Change{Installation: w.inst, Repo: rvRepo, Number: n, HeadSHA: pr.HeadSHA, BaseSHA: pr.BaseSHA}
		for range 2 {
			if _, err := bt.Request(ctx, db, nil, gi.REST, ch); err != nil {
				t.Fatal(err)
			}
		}
		bts := w.backtests()
		if len(bts) != 3 || bts[2].Status != backtest.StatusQueued || bts[2].HeadSha != pr.HeadSHA {
			t.Fatalf("after reopening: %d backtests", len(bts))
		}
	})
}

// The cost cap stops queueing: a pull request is started only while what is
// spent and committed plus both its sides' estimates (the reviewed run's
// cost each) stays within the cap; at the cap exactly it is started, a cent
// less and it is not, and the report says how many were covered.
func TestCostCap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cap     string
		covered int
	}{
		{"at the cap", "6", 3},
		{"a cent under", "5.99", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				ctx := context.Background()
				w := newWorld(t, db)
				for i := 1; i <= 3; i++ {
					w.reviewed(i, time.Duration(i)*time.Hour, 1.0, nil)
				}
				n := w.openChange("cap", map[string]string{"reviewers/security/reviewer.yaml": "description: Security\nbacktest:\n  prs: 3\n  max_cost_usd: " + tc.cap + "\n"})
				w.drain()
				b := w.backtests()[0]
				old := w.shadowRuns(b, run.BacktestSideOld)
				if len(old) != tc.covered {
					t.Fatalf("old side queued on %d PRs, want %d", len(old), tc.covered)
				}
				w.finishBothSides(b, 1.0, nil)
				b = db.Backtest.GetX(ctx, b.ID)
				if b.Status != backtest.StatusCompleted || fmt.Sprint(b.Summary["prs_covered"]) != fmt.Sprint(tc.covered) {
					t.Fatalf("backtest %s covered %v", b.Status, b.Summary["prs_covered"])
				}
				body := w.sim.IssueComments(rvRepo, n)[0].Body
				if !strings.Contains(body, fmt.Sprintf("**%d of the last 3**", tc.covered)) {
					t.Fatalf("comment: %s", body)
				}
				if tc.covered < 3 && !strings.Contains(body, "acme/widget#3 (the cost cap was reached)") {
					t.Fatalf("comment does not say what the cap left out: %s", body)
				}
			})
		})
	}
}

// Once what the shadow runs spent passes the cap, the queued ones are
// cancelled and no new side is queued; the PRs left out are reported.
func TestSpentPastTheCapCancelsQueued(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		for i := 1; i <= 2; i++ {
			w.reviewed(i, time.Duration(i)*time.Hour, 0.5, nil)
		}
		w.openChange("spend", map[string]string{"reviewers/security/reviewer.yaml": "description: Security\nbacktest:\n  max_cost_usd: 2\n"})
		w.drain()
		b := w.backtests()[0]
		old := w.shadowRuns(b, run.BacktestSideOld)
		if len(old) != 2 {
			t.Fatalf("old side: %d", len(old))
		}
		w.finishShadow(old[0], 2.5, 1000, nil) // far over its estimate: past the cap
		w.drain()
		if r := db.Run.GetX(ctx, old[1].ID); r.Status != run.StatusCancelled || !strings.Contains(r.FailureReason, "cost cap") {
			t.Fatalf("queued shadow run: %s %q", r.Status, r.FailureReason)
		}
		if len(w.shadowRuns(b, run.BacktestSideNew)) != 0 {
			t.Fatal("a new side was queued past the cap")
		}
		b = db.Backtest.GetX(ctx, b.ID)
		if b.Status != backtest.StatusFailed || b.CostUsd != 2.5 {
			t.Fatalf("backtest %s cost %v", b.Status, b.CostUsd)
		}
		if cks := w.checks("Chakshu backtest · security"); cks[0].Conclusion != "failure" {
			t.Fatalf("check: %+v", cks)
		}
	})
}

// A new reviewer and a removed one say so on their checks and replay
// nothing; a broken reviewer.yaml fails the check with the file's problem;
// a pull request into another branch than the default one is not backtested.
func TestNewRemovedAndBrokenReviewers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		w.reviewed(1, time.Hour, 0.1, nil)
		w.openChange("mixed", map[string]string{
			"reviewers/newbie/reviewer.yaml":   "description: New\n",
			"reviewers/perf/reviewer.yaml":     "",
			"reviewers/security/reviewer.yaml": "description: Security\nbacktest:\n  prs: 0\n",
		})
		w.drain()
		got := map[string]string{}
		for _, c := range w.sim.CheckRuns(rvRepo) {
			got[c.Name] = c.Conclusion + ": " + c.Title
		}
		want := map[string]string{
			"Chakshu backtest · newbie":   "neutral: New reviewer",
			"Chakshu backtest · perf":     "neutral: Reviewer removed",
			"Chakshu backtest · security": "failure: The changed reviewer does not load",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("checks (-want +got):\n%s", diff)
		}
		for _, b := range w.backtests() {
			if n := len(w.shadowRuns(b, run.BacktestSideOld)); n != 0 {
				t.Fatalf("%s queued %d shadow runs", b.ReviewerName, n)
			}
		}
		// A pull request into another branch changes no reviewer in force.
		before := len(w.backtests())
		w.sim.CreateBranch(rvRepo, "staging", "main")
		w.sim.CreateBranch(rvRepo, "draft-rules", "staging")
		w.sim.Commit(rvRepo, "draft-rules", map[string]string{"reviewers/security/CLAUDE.md": newMD}, "draft")
		w.sim.OpenPR(rvRepo, "draft-rules", "staging", "Draft rules", "", "alice", false)
		w.drainEvents()
		if len(w.backtests()) != before {
			t.Fatal("a pull request into a branch other than the default one was backtested")
		}
		sec := w.checks("Chakshu backtest · security")[0]
		if !strings.Contains(sec.Summary, "backtest.prs: want a number from 1 to 50, got 0") {
			t.Fatalf("security check summary: %s", sec.Summary)
		}
	})
}

// A step that keeps failing is tried again after RetryAfter while the
// backtest is younger than GiveUpAfter; past it, the backtest fails and its
// check says so.
func TestGiveUpOnAStepThatKeepsFailing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		w.reviewed(1, time.Hour, 0.1, nil)
		w.openChange("broken-github", map[string]string{"reviewers/security/CLAUDE.md": newMD})
		ghsimtest.InjectFault(w.sim, ghsimtest.Fault{Match: "GET /repos/*/git/trees/*", Kind: ghsimtest.FaultServerError})
		loop, err := bt.New(bt.Config{DB: db, GitHub: w.apps, Write: ghwrite.New(w.apps, "chakshu"), WorkerID: "w2",
			GiveUpAfter: time.Hour, RetryAfter: time.Minute, Now: func() time.Time { return w.now }})
		if err != nil {
			t.Fatal(err)
		}
		b := w.backtests()[0]
		w.now = b.CreatedAt.Add(time.Hour) // at the limit: tried again later
		if _, err := loop.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		got := db.Backtest.GetX(ctx, b.ID)
		if got.Status != backtest.StatusQueued || got.LeaseOwner != "" || got.NextAttemptAt == nil || !got.NextAttemptAt.After(w.now) {
			t.Fatalf("at the limit: %s owner %q due %v", got.Status, got.LeaseOwner, got.NextAttemptAt)
		}
		w.now = got.NextAttemptAt.Add(time.Second) // past it
		if _, err := loop.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		got = db.Backtest.GetX(ctx, b.ID)
		if got.Status != backtest.StatusFailed || !strings.Contains(got.FailureReason, "kept failing") {
			t.Fatalf("past the limit: %s %q", got.Status, got.FailureReason)
		}
		if cks := w.checks("Chakshu backtest · security"); len(cks) != 1 || cks[0].Conclusion != "failure" || cks[0].Title != "Backtest failed" {
			t.Fatalf("check: %+v", cks)
		}
	})
}
