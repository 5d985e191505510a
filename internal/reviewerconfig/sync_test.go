package reviewerconfig

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/gh/ghtest"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

const reviewersRepo = "acme/chakshu-reviewers"

type simFixture struct {
	sim    *ghsim.Sim
	apps   *gh.Apps
	instID int64
	inst   *ent.Installation
	syncer *Syncer
}

// newSimFixture starts the simulator with an org whose reviewers repository
// holds files, installs the App on the whole org, and stores the installation.
func newSimFixture(t *testing.T, db *store.DB, files map[string]string) *simFixture {
	t.Helper()
	s := ghsimtest.New(t)
	appID, key := s.CreateApp("chakshu")
	s.CreateOrg("acme")
	if files != nil {
		s.CreateRepo("acme", "chakshu-reviewers", files)
	}
	s.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n"})
	instID := s.Install(appID, "acme", nil, nil)
	apps := ghtest.Apps(t, s, appID, key, ghtest.Retry(gh.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}))
	inst := db.Installation.Create().SetGithubID(instID).SetAccountLogin("acme").SaveX(context.Background())
	syncer, err := NewSyncer(SyncerConfig{DB: db, Clients: apps})
	if err != nil {
		t.Fatal(err)
	}
	return &simFixture{sim: s, apps: apps, instID: instID, inst: inst, syncer: syncer}
}

func (f *simFixture) reviewer(t *testing.T, db *store.DB, name string) *ent.Reviewer {
	t.Helper()
	r, err := db.Reviewer.Query().Where(reviewer.Name(name)).Only(context.Background())
	if err != nil {
		t.Fatalf("reviewer %s: %v", name, err)
	}
	return r
}

const securityYAML = `description: Security review
model: claude-opus-4-6
min_severity: minor
request_as: team:security
auto:
  events: [opened]
  paths: ["**/*.go"]
`

const sqlSkill = `---
name: sql-injection
description: How to spot SQL injection in Go.
---
# SQL injection

Look for string concatenation into db.Query.
`

func reviewersFiles() map[string]string {
	return map[string]string{
		"README.md":                                         "# our reviewers\n",
		"reviewers/README.md":                               "ignored\n",
		"reviewers/security/reviewer.yaml":                  securityYAML,
		"reviewers/security/CLAUDE.md":                      "# Security rules\nFlag injection.\n",
		"reviewers/security/skills/sql-injection/SKILL.md":  sqlSkill,
		"reviewers/security/skills/sql-injection/bad.go":    "package x\n// db.Query(\"...\" + id)\n",
		"reviewers/security/skills/sql-injection/ref/ok.md": "Use placeholders.\n",
		"reviewers/security/skills/sql-injection/logo.png":  "\x89PNG\x00\x01",
		"reviewers/security/skills/authz/SKILL.md":          "---\nname: authz\ndescription: Authorization checks.\n---\nCheck every handler.\n",
		"reviewers/perf/reviewer.yaml":                      "description: Performance\nmax_findings: 5\n",
		"reviewers/perf/CLAUDE.md":                          "Find N+1 queries.\n",
		"reviewers/docs/reviewer.yaml":                      "# all defaults\n",
		"reviewers/Bad_Name/reviewer.yaml":                  "description: x\n",
	}
}

func TestSyncReviewersRepo(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSimFixture(t, db, reviewersFiles())
		head := f.sim.BranchSHA(reviewersRepo, "main")

		rep, err := f.syncer.Sync(ctx, f.inst.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := Report{InstallationID: f.inst.ID, Repo: reviewersRepo, Commit: head,
			Synced:  []string{"docs", "perf", "security"},
			Ignored: map[string]string{"Bad_Name": "reviewers/Bad_Name: folder name is not a reviewer name (want [a-z0-9-]{1,64})"}}
		if d := cmp.Diff(want, rep); d != "" {
			t.Errorf("report (-want +got):\n%s", d)
		}

		sec := f.reviewer(t, db, "security")
		if !sec.Enabled || sec.SyncedCommit != head || sec.SyncedAt == nil || sec.SyncError != "" ||
			sec.Description != "Security review" || sec.ConfigYaml != securityYAML || sec.ClaudeMd != "# Security rules\nFlag injection.\n" {
			t.Errorf("security = %+v", sec)
		}
		cfg := FromEnt(sec)
		wantCfg := Defaults()
		wantCfg.Description, wantCfg.Model, wantCfg.MinSeverity, wantCfg.RequestAs = "Security review", "claude-opus-4-6", findings.Minor, "team:security"
		wantCfg.Auto = Auto{Events: []string{"opened"}, Paths: []string{"**/*.go"}}
		if d := cmp.Diff(wantCfg, cfg); d != "" {
			t.Errorf("config in force (-want +got):\n%s", d)
		}
		skills, err := SkillsFromEnt(sec)
		if err != nil {
			t.Fatal(err)
		}
		wantSkills := []runnerproto.Skill{
			{Name: "authz", Description: "Authorization checks.", Content: "---\nname: authz\ndescription: Authorization checks.\n---\nCheck every handler.\n"},
			{Name: "sql-injection", Description: "How to spot SQL injection in Go.", Content: sqlSkill,
				Files: map[string]string{"bad.go": "package x\n// db.Query(\"...\" + id)\n", "ref/ok.md": "Use placeholders.\n"}},
		}
		if d := cmp.Diff(wantSkills, skills); d != "" {
			t.Errorf("skills (-want +got):\n%s", d)
		}
		if c := FromEnt(f.reviewer(t, db, "perf")); c.MaxFindings != 5 {
			t.Errorf("perf max_findings = %d", c.MaxFindings)
		}
		inst := db.Installation.GetX(ctx, f.inst.ID)
		if inst.LastSyncCommit != head || inst.LastSyncAt == nil || !strings.Contains(inst.LastSyncError, "Bad_Name") {
			t.Errorf("installation after sync: commit=%q at=%v err=%q", inst.LastSyncCommit, inst.LastSyncAt, inst.LastSyncError)
		}

		// Nothing changed: a sync is cheap and reads no file.
		f.sim.Commit(reviewersRepo, "main", map[string]string{"reviewers/Bad_Name/reviewer.yaml": ""}, "drop bad folder")
		if _, err := f.syncer.Sync(ctx, f.inst.ID); err != nil {
			t.Fatal(err)
		}
		f.sim.ResetCalls()
		rep, err = f.syncer.Sync(ctx, f.inst.ID)
		if err != nil || !rep.Unchanged {
			t.Fatalf("second sync: unchanged=%v err=%v", rep.Unchanged, err)
		}
		if n := f.sim.TotalCalls("GET "); n > 2 {
			t.Errorf("an unchanged sync made %d GET calls: %v", n, f.sim.Calls())
		}
		good := f.sim.BranchSHA(reviewersRepo, "main")

		// Break security's reviewer.yaml, change perf, remove docs, add a broken new reviewer.
		broken := f.sim.Commit(reviewersRepo, "main", map[string]string{
			"reviewers/security/reviewer.yaml": "description: Security review\nmodel: claude-opus-4-6\nmin_severity: critical\n",
			"reviewers/perf/CLAUDE.md":         "Find N+1 queries and allocations.\n",
			"reviewers/docs/reviewer.yaml":     "", // deletes the file
			"reviewers/style/reviewer.yaml":    "max_turns: -2\n",
		}, "oops")
		rep, err = f.syncer.Sync(ctx, f.inst.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantRep := Report{InstallationID: f.inst.ID, Repo: reviewersRepo, Commit: broken, Synced: []string{"perf"},
			Failed: map[string]string{
				"security": "reviewers/security/reviewer.yaml:3: min_severity: want blocker|major|minor|nit, got \"critical\"",
				"style":    "reviewers/style/reviewer.yaml:1: max_turns: want a number from 1 to 200, got -2",
			},
			Disabled: []string{"docs"}}
		if d := cmp.Diff(wantRep, rep); d != "" {
			t.Errorf("report (-want +got):\n%s", d)
		}
		sec = f.reviewer(t, db, "security")
		if !sec.Enabled || sec.SyncedCommit != good || sec.ConfigYaml != securityYAML || sec.ClaudeMd == "" {
			t.Errorf("the last good version must stay in force: %+v", sec)
		}
		if sec.SyncError != wantRep.Failed["security"] || sec.SyncErrorAt == nil || sec.SyncErrorCommit != broken {
			t.Errorf("security sync error = %q at %v commit %q", sec.SyncError, sec.SyncErrorAt, sec.SyncErrorCommit)
		}
		if cfg := FromEnt(sec); cfg.MinSeverity != findings.Minor {
			t.Errorf("config in force changed: %+v", cfg)
		}
		if p := f.reviewer(t, db, "perf"); p.ClaudeMd != "Find N+1 queries and allocations.\n" || p.SyncedCommit != broken {
			t.Errorf("perf = %+v", p)
		}
		if d := f.reviewer(t, db, "docs"); d.Enabled || d.SyncedCommit != good {
			t.Errorf("removed docs must be disabled with its history: %+v", d)
		}
		if s := f.reviewer(t, db, "style"); s.Enabled || s.SyncError == "" || s.SyncedCommit != "" {
			t.Errorf("a never-good reviewer is stored disabled with its error: %+v", s)
		}
		inst = db.Installation.GetX(ctx, f.inst.ID)
		if inst.LastSyncCommit != broken || inst.LastSyncError != "2 reviewers have sync errors: security, style" {
			t.Errorf("installation: commit=%q err=%q", inst.LastSyncCommit, inst.LastSyncError)
		}
		// An errored sync is not "unchanged": the next sync reads again.
		if rep, _ := f.syncer.Sync(ctx, f.inst.ID); rep.Unchanged {
			t.Error("a sync with errors must be retried in full")
		}

		// Fix everything, bring docs back.
		fixed := f.sim.Commit(reviewersRepo, "main", map[string]string{
			"reviewers/security/reviewer.yaml": "description: Security review v2\n",
			"reviewers/style/reviewer.yaml":    "max_turns: 2\n",
			"reviewers/docs/reviewer.yaml":     "description: Docs\n",
		}, "fix")
		rep, err = f.syncer.Sync(ctx, f.inst.ID)
		if err != nil || len(rep.Failed) != 0 || len(rep.Synced) != 4 {
			t.Fatalf("after fix: %+v, %v", rep, err)
		}
		for _, n := range []string{"security", "style", "docs", "perf"} {
			r := f.reviewer(t, db, n)
			if !r.Enabled || r.SyncError != "" || r.SyncErrorAt != nil || r.SyncErrorCommit != "" || r.SyncedCommit != fixed {
				t.Errorf("%s after fix = %+v", n, r)
			}
		}
		if sec := f.reviewer(t, db, "security"); sec.Description != "Security review v2" || sec.ClaudeMd == "" {
			t.Errorf("security after fix = %+v", sec)
		}
		if inst := db.Installation.GetX(ctx, f.inst.ID); inst.LastSyncError != "" {
			t.Errorf("last_sync_error = %q", inst.LastSyncError)
		}

		// What was synced is what Pick sees.
		all := db.Reviewer.Query().AllX(ctx)
		res := Pick(PickInput{Trigger: Trigger{Kind: TriggerAuto, Event: "opened"},
			PR: PR{Repo: "acme/widget", ChangedFiles: []string{"main.go"}}, Reviewers: CandidatesFromEnt(all)})
		if d := cmp.Diff([]string{"docs", "perf", "security", "style"}, res.Known); d != "" {
			t.Errorf("known (-want +got):\n%s", d)
		}
		if len(res.Reviewers) != 0 {
			t.Errorf("security v2 has no auto events any more; picked %+v", res.Reviewers)
		}
	})
}

func TestSyncFileProblems(t *testing.T) {
	big := strings.Repeat("x", MaxClaudeMDBytes+1)
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{name: "missing reviewer.yaml", files: map[string]string{"reviewers/a/CLAUDE.md": "x"},
			want: "reviewers/a/reviewer.yaml: missing: every reviewer needs a reviewer.yaml"},
		{name: "CLAUDE.md over the cap", files: map[string]string{"reviewers/a/reviewer.yaml": "# defaults\n", "reviewers/a/CLAUDE.md": big},
			want: "reviewers/a/CLAUDE.md: file is 131073 bytes, over the 131072 byte limit"},
		{name: "skill without front matter", files: map[string]string{"reviewers/a/reviewer.yaml": "# defaults\n", "reviewers/a/skills/s/SKILL.md": "# hi\n"},
			want: "reviewers/a/skills/s/SKILL.md:1: want front matter"},
		{name: "skill front matter unknown key", files: map[string]string{"reviewers/a/reviewer.yaml": "# defaults\n",
			"reviewers/a/skills/s/SKILL.md": "---\nname: s\ndescription: d\ncolour: red\n---\n"},
			want: "reviewers/a/skills/s/SKILL.md:4: colour: unknown key"},
		{name: "skill without description", files: map[string]string{"reviewers/a/reviewer.yaml": "# defaults\n",
			"reviewers/a/skills/s/SKILL.md": "---\nname: s\n---\nbody\n"},
			want: "reviewers/a/skills/s/SKILL.md:3: front matter: description is required"},
		{name: "skill name differs from folder", files: map[string]string{"reviewers/a/reviewer.yaml": "# defaults\n",
			"reviewers/a/skills/s/SKILL.md": "---\nname: t\ndescription: d\n---\n"},
			want: "reviewers/a/skills/s/SKILL.md: front matter name \"t\" differs from the skill's folder \"s\""},
		{name: "skill folder without SKILL.md", files: map[string]string{"reviewers/a/reviewer.yaml": "# defaults\n",
			"reviewers/a/skills/s/notes.md": "x"},
			want: "reviewers/a/skills/s/SKILL.md: missing: every skill folder needs a SKILL.md"},
		{name: "skill file over the cap", files: map[string]string{"reviewers/a/reviewer.yaml": "# defaults\n",
			"reviewers/a/skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\n", "reviewers/a/skills/s/x.txt": strings.Repeat("y", MaxSkillFileBytes+1)},
			want: "reviewers/a/skills/s/x.txt: file is 262145 bytes, over the 262144 byte limit"},
		// Lifecycle is checked at sync: claude-sonnet-4-5 reached end of life on 2026-11-30.
		{name: "retired model", files: map[string]string{"reviewers/a/reviewer.yaml": "model: claude-sonnet-4-5\n"},
			want: `reviewers/a/reviewer.yaml: model: model "claude-sonnet-4-5" is retired (retired since 2026-11-30; use claude-sonnet-5-5); set model: in reviewer.yaml to an active model`},
		{name: "unknown model", files: map[string]string{"reviewers/a/reviewer.yaml": "model: claude-sonnet-4-5-turbo\n"},
			want: `reviewers/a/reviewer.yaml: model: unknown model "claude-sonnet-4-5-turbo": it is not in the built-in model catalogue; use a model id listed there, or add an entry for it to the file named by CHAKSHU_MODEL_CATALOG`},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for i, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ctx := context.Background()
				f := newSimFixture(t, db, tt.files)
				_ = i
				rep, err := f.syncer.Sync(ctx, f.inst.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got := rep.Failed["a"]; !strings.HasPrefix(got, tt.want) {
					t.Errorf("error = %q, want prefix %q", got, tt.want)
				}
				r := f.reviewer(t, db, "a")
				if r.Enabled || !strings.HasPrefix(r.SyncError, tt.want) {
					t.Errorf("stored: enabled=%v error=%q", r.Enabled, r.SyncError)
				}
				db.Reviewer.Delete().ExecX(ctx)
				db.Installation.Delete().ExecX(ctx)
			})
		}
	})
}

func TestSyncNoReviewersRepo(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSimFixture(t, db, nil)
		kept := db.Reviewer.Create().SetInstallation(f.inst).SetName("security").SetSyncedCommit("abc").SaveX(ctx)
		_, err := f.syncer.Sync(ctx, f.inst.ID)
		if !errors.Is(err, ErrNoReviewersRepo) {
			t.Fatalf("want ErrNoReviewersRepo, got %v", err)
		}
		inst := db.Installation.GetX(ctx, f.inst.ID)
		if !strings.Contains(inst.LastSyncError, "acme/chakshu-reviewers") || inst.LastSyncAt == nil {
			t.Errorf("last_sync_error = %q", inst.LastSyncError)
		}
		if r := db.Reviewer.GetX(ctx, kept.ID); !r.Enabled || r.SyncedCommit != "abc" {
			t.Errorf("reviewers must stay as they were when the repo cannot be read: %+v", r)
		}

		// A configured repository elsewhere.
		f.sim.CreateRepo("acme", "bots", map[string]string{"reviewers/lint/reviewer.yaml": "# defaults\n"})
		db.Installation.UpdateOne(inst).SetReviewersRepo("acme/bots").ExecX(ctx)
		rep, err := f.syncer.Sync(ctx, f.inst.ID)
		if err != nil || rep.Repo != "acme/bots" || len(rep.Synced) != 1 || rep.Synced[0] != "lint" || len(rep.Disabled) != 1 {
			t.Fatalf("sync of acme/bots: %+v, %v", rep, err)
		}
	})
}

func TestSyncConcurrentWorkers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSimFixture(t, db, reviewersFiles())
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = f.syncer.Sync(ctx, f.inst.ID)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if n := db.Reviewer.Query().CountX(ctx); n != 3 {
			t.Errorf("%d reviewers stored, want 3", n)
		}
	})
}

func TestSyncOlderSnapshotLoses(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSimFixture(t, db, reviewersFiles())
		t0 := time.Now()
		later, err := NewSyncer(SyncerConfig{DB: db, Clients: f.apps, Now: func() time.Time { return t0.Add(time.Minute) }})
		if err != nil {
			t.Fatal(err)
		}
		earlier, err := NewSyncer(SyncerConfig{DB: db, Clients: f.apps, Now: func() time.Time { return t0 }})
		if err != nil {
			t.Fatal(err)
		}
		if rep, err := later.Sync(ctx, f.inst.ID); err != nil || rep.Stale || len(rep.Synced) != 3 {
			t.Fatalf("later sync: %+v, %v", rep, err)
		}
		// A sync that started before the one in force (a slow worker) writes nothing.
		f.sim.Commit(reviewersRepo, "main", map[string]string{"reviewers/perf/reviewer.yaml": "max_turns: 3\n"}, "edit")
		rep, err := earlier.Sync(ctx, f.inst.ID)
		if err != nil || !rep.Stale || rep.Synced != nil {
			t.Fatalf("earlier sync: %+v, %v", rep, err)
		}
		if c := FromEnt(f.reviewer(t, db, "perf")); c.MaxTurns != Defaults().MaxTurns {
			t.Errorf("a stale snapshot was written: max_turns %d", c.MaxTurns)
		}
	})
}

// A model retires without a commit: the periodic sync of the unchanged
// repository checks the models in force again, so from the retirement date
// on (not a second before) the reviewer carries a sync error naming the fix,
// while its last good version stays in force (a run of it fails at dispatch
// with the same fix).
func TestSyncModelRetiresWithoutCommit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		// claude-opus-4-5 is deprecated, retiring on 2027-01-22 (the catalogue).
		f := newSimFixture(t, db, map[string]string{"reviewers/a/reviewer.yaml": "model: claude-opus-4-5\n"})
		retires := time.Date(2027, 1, 22, 0, 0, 0, 0, time.UTC)
		now := retires.Add(-24 * time.Hour)
		syncer, err := NewSyncer(SyncerConfig{DB: db, Clients: f.apps, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := syncer.Sync(ctx, f.inst.ID)
		if err != nil || len(rep.Synced) != 1 || rep.Failed != nil {
			t.Fatalf("first sync: %+v %v", rep, err)
		}
		now = retires.Add(-time.Second)
		if rep, err = syncer.Sync(ctx, f.inst.ID); err != nil || !rep.Unchanged {
			t.Fatalf("a second before retirement: %+v %v, want unchanged", rep, err)
		}
		now = retires
		rep, err = syncer.Sync(ctx, f.inst.ID)
		if err != nil || rep.Unchanged {
			t.Fatalf("at retirement: %+v %v, want a new read", rep, err)
		}
		want := `reviewers/a/reviewer.yaml: model: model "claude-opus-4-5" is retired (retired since 2027-01-22; use claude-opus-5-5); set model: in reviewer.yaml`
		if !strings.HasPrefix(rep.Failed["a"], want) {
			t.Fatalf("failed %q, want prefix %q", rep.Failed["a"], want)
		}
		r := f.reviewer(t, db, "a")
		if !r.Enabled || !strings.HasPrefix(r.SyncError, want) {
			t.Fatalf("stored: enabled=%v error=%q", r.Enabled, r.SyncError)
		}
		inst := db.Installation.GetX(ctx, f.inst.ID)
		if !strings.Contains(inst.LastSyncError, "1 reviewers have sync errors: a") {
			t.Fatalf("installation's sync error %q", inst.LastSyncError)
		}
	})
}

// An operator's catalogue that stops listing a model in force makes it a
// sync error at the next sync of the unchanged repository too.
func TestSyncModelLeavesCatalogue(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newSimFixture(t, db, map[string]string{"reviewers/a/reviewer.yaml": "model: acme-tuned\n"})
		dir := t.TempDir()
		path := dir + "/models.json"
		entry := `{"models":[{"id":"acme-tuned","provider":"anthropic","price":{"input":1,"output":5,"cache_write_5m":1.25,"cache_write_1h":2,"cache_read":0.1},"lifecycle":{"status":"active"}}]}`
		if err := os.WriteFile(path, []byte(entry), 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := models.NewSource(path)
		if err != nil {
			t.Fatal(err)
		}
		syncer, err := NewSyncer(SyncerConfig{DB: db, Clients: f.apps, Models: src})
		if err != nil {
			t.Fatal(err)
		}
		if rep, err := syncer.Sync(ctx, f.inst.ID); err != nil || len(rep.Synced) != 1 {
			t.Fatalf("first sync: %+v %v", rep, err)
		}
		if rep, err := syncer.Sync(ctx, f.inst.ID); err != nil || !rep.Unchanged {
			t.Fatalf("second sync: %+v %v, want unchanged", rep, err)
		}
		if err := os.WriteFile(path, []byte(`{"models":[]}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := syncer.Sync(ctx, f.inst.ID)
		if err != nil || !strings.Contains(rep.Failed["a"], `unknown model "acme-tuned"`) {
			t.Fatalf("after the edit: %+v %v", rep, err)
		}
	})
}
