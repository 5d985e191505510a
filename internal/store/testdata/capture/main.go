// Command capture writes the upgrade fixtures of internal/store: a database
// created and filled by one release, dumped as SQL for SQLite and PostgreSQL.
// Run it at the release's commit (a later commit's schema is not that
// release's; a newer seed may be copied there if it compiles, as release 2's
// was for its reported results):
//
//	go run ./internal/store/testdata/capture -release 1 -pg postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
//
// It writes internal/store/testdata/release<N>.{sqlite,postgres}.sql.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/store"
)

func main() {
	release := flag.Int("release", 0, "the release number the fixture is named after")
	pg := flag.String("pg", "", "URL of a PostgreSQL server's postgres database")
	out := flag.String("out", "internal/store/testdata", "folder to write to")
	flag.Parse()
	if *release <= 0 || *pg == "" {
		log.Fatal("usage: capture -release N -pg postgres://…")
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "capture")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// SQLite.
	db, err := store.Open(ctx, store.Options{DataDir: dir})
	if err != nil {
		log.Fatal(err)
	}
	must(db.Migrate(ctx))
	seed(ctx, db)
	db.Close()
	dump, err := exec.Command("sqlite3", filepath.Join(dir, "chakshu.db"), ".dump").Output()
	if err != nil {
		log.Fatalf("sqlite3 .dump: %v", err)
	}
	write(filepath.Join(*out, fmt.Sprintf("release%d.sqlite.sql", *release)), dump)

	// PostgreSQL: a scratch database.
	admin, err := sql.Open("pgx", *pg)
	if err != nil {
		log.Fatal(err)
	}
	name := fmt.Sprintf("chakshu_capture_%d", time.Now().UnixNano())
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		log.Fatal(err)
	}
	defer admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") //nolint:errcheck
	u, _ := url.Parse(*pg)
	u.Path = "/" + name
	db, err = store.Open(ctx, store.Options{DatabaseURL: u.String()})
	if err != nil {
		log.Fatal(err)
	}
	must(db.Migrate(ctx))
	seed(ctx, db)
	db.Close()
	dump, err = exec.Command("pg_dump", "--no-owner", "--no-privileges", "--inserts", "--quote-all-identifiers", u.String()).Output()
	if err != nil {
		log.Fatalf("pg_dump: %v", err)
	}
	// pg_dump empties search_path for its own session (the loader keeps its
	// connection's), and psql meta-commands (\restrict) are not SQL.
	var keep []string
	for _, l := range strings.Split(string(dump), "\n") {
		if strings.Contains(l, "set_config('search_path'") || strings.HasPrefix(l, `\`) {
			continue
		}
		keep = append(keep, l)
	}
	write(filepath.Join(*out, fmt.Sprintf("release%d.postgres.sql", *release)), []byte(strings.Join(keep, "\n")))
}

// seed fills what an installation in use has: runs in every state with their
// figures (so the cost rollup holds something), findings, a timeline,
// webhook events handled and failed, a worker and a credential.
func seed(ctx context.Context, db *store.DB) {
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	inst := db.Installation.Create().SetGithubID(100).SetAccountLogin("acme").SaveX(ctx)
	repo := db.Repository.Create().SetGithubID(200).SetOwner("acme").SetName("api").SetFullName("acme/api").SetInstallation(inst).SaveX(ctx)
	sec := db.Reviewer.Create().SetName("security").SetInstallation(inst).SaveX(ctx)
	perf := db.Reviewer.Create().SetName("perf").SetInstallation(inst).SaveX(ctx)
	type r struct {
		rv     *ent.Reviewer
		status run.Status
		cost   float64
		ms     int64
		major  int
		age    time.Duration
	}
	for i, x := range []r{
		{sec, run.StatusSucceeded, 0.42, 95_000, 2, 30 * 24 * time.Hour},
		{sec, run.StatusFailed, 0.05, 12_000, 0, 20 * 24 * time.Hour},
		{perf, run.StatusSucceeded, 1.10, 240_000, 1, 3 * 24 * time.Hour},
		{perf, run.StatusCancelled, 0, 0, 0, 2 * 24 * time.Hour},
		{sec, run.StatusQueued, 0, 0, 0, time.Hour},
	} {
		at := t0.Add(-x.age)
		c := db.Run.Create().SetRepository(repo).SetReviewer(x.rv).SetPrNumber(10 + i).SetHeadSha(fmt.Sprintf("sha%d", i)).
			SetTrigger(run.TriggerComment).SetStatus(x.status).SetCostUsd(x.cost).SetDurationMs(x.ms).
			SetFindingsMajor(x.major).SetInputTokens(int64(1000 * (i + 1))).SetOutputTokens(int64(100 * (i + 1))).
			SetCreatedAt(at).SetUpdatedAt(at)
		if x.status == run.StatusSucceeded {
			c.SetResult(reported(i))
		}
		rn := c.SaveX(ctx)
		db.RunEvent.Create().SetRun(rn).SetAt(at).SetToStatus("queued").SetMessage("Queued.").SaveX(ctx)
		if x.major > 0 {
			db.Finding.Create().SetRun(rn).SetHiddenID(fmt.Sprintf("h%d", i)).SetPath("main.go").SetLine(3).
				SetSeverity("major").SetTitle("Unchecked error").SaveX(ctx)
		}
	}
	db.WebhookEvent.Create().SetDeliveryID("d-done").SetEvent("push").SetRepository("acme/api").SetInstallationID(100).
		SetPayload([]byte(`{"ref":"refs/heads/main"}`)).SetStatus(webhookevent.StatusDone).SetReceivedAt(t0.Add(-time.Hour)).SaveX(ctx)
	db.WebhookEvent.Create().SetDeliveryID("d-failed").SetEvent("issue_comment").SetAction("created").
		SetPayload([]byte(`{"action":"created"}`)).SetStatus(webhookevent.StatusFailed).SetAttempts(3).SetLastError("boom").SaveX(ctx)
	db.Worker.Create().SetWorkerID("host-1-abc").SetHostname("host").SetPid(1).SetVersion("release").SaveX(ctx)
	db.ConnectorCredential.Create().SetInstallation(inst).SetConnector("http").SetName("token").SetCiphertext([]byte{1, 2, 3}).SaveX(ctx)
}

// reported is the result run i reported: one major finding, and what the
// agent read.
func reported(i int) *findings.Stored {
	return &findings.Stored{
		Review: &findings.Result{Summary: fmt.Sprintf("Run %d.", i), Checked: findings.Checked{Files: []string{"main.go"}, Skills: []string{}},
			Findings: []findings.Finding{{Path: "main.go", Line: 3, Side: "RIGHT", Severity: findings.Major, Category: "correctness", Title: "Unchecked error", Body: "Check it."}}},
		Checked: &findings.Coverage{Files: []string{"main.go"}, Skills: []string{}, FilesRead: []string{"main.go", "go.mod"}},
	}
}

func write(p string, b []byte) {
	if err := os.WriteFile(p, b, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Println("wrote", p)
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
