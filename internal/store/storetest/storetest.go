// Package storetest gives every storage test a fresh, migrated database, and
// runs the same test body on SQLite and on PostgreSQL.
//
// PostgreSQL comes from CHAKSHU_TEST_POSTGRES_URL when set, else from a server
// already answering on 127.0.0.1:5432, else from a throwaway cluster this
// package starts (installing Debian's postgresql first when it is missing).
// It is never skipped: a test that cannot get PostgreSQL fails.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/store"
)

// Dialects lists the databases every storage test runs on.
var Dialects = []string{"sqlite", "postgres"}

// Each runs fn once per database, each time on a fresh, migrated database.
func Each(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	for _, d := range Dialects {
		t.Run(d, func(t *testing.T) { fn(t, Open(t, d)) })
	}
}

// Open returns a fresh, migrated database of the given dialect ("sqlite" or
// "postgres"), closed and removed when the test ends.
func Open(t testing.TB, dialect string) *store.DB {
	t.Helper()
	return open(t, dialect, true)
}

// open opens a fresh database of dialect, migrated or not.
func open(t testing.TB, dialect string, migrated bool) *store.DB {
	t.Helper()
	ctx := context.Background()
	var o store.Options
	switch dialect {
	case "sqlite":
		o.DataDir = t.TempDir()
	case "postgres":
		PostgresAdminURL(t) // starts the server and makes the template
		template := ""      // an empty database
		if migrated {
			template = pgTemplate
		}
		o.DatabaseURL = newDatabase(t, template)
	default:
		t.Fatalf("storetest: unknown dialect %q", dialect)
	}
	db, err := store.Open(ctx, o)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if migrated && dialect == "sqlite" {
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("storetest: %v", err)
		}
	}
	return db
}

var (
	pgOnce     sync.Once
	pgAdminURL string // a URL to the "postgres" database of the server
	pgTemplate string // a migrated template database
	pgErr      error
)

// NewPostgresDatabase creates a fresh database (a copy of a migrated template)
// on the test server and returns its URL; it is dropped when the test ends.
func NewPostgresDatabase(t testing.TB) string {
	t.Helper()
	PostgresAdminURL(t)
	return newDatabase(t, pgTemplate)
}

// newDatabase creates a database on the started test server, a copy of
// template ("" for an empty one), drops it when the test ends, and returns
// its URL.
func newDatabase(t testing.TB, template string) string {
	t.Helper()
	name := "chakshu_t_" + randHex(6)
	create := "CREATE DATABASE " + name
	if template != "" {
		create += " TEMPLATE " + template
	}
	admin, err := sql.Open("pgx", pgAdminURL)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	defer admin.Close()
	var lastErr error
	for i := 0; i < 20; i++ { // the template may be busy for a moment
		if _, lastErr = admin.Exec(create); lastErr == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if lastErr != nil {
		t.Fatalf("storetest: create database: %v", lastErr)
	}
	t.Cleanup(func() {
		a, err := sql.Open("pgx", pgAdminURL)
		if err != nil {
			return
		}
		defer a.Close()
		a.Exec(fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)) //nolint:errcheck
	})
	return withDatabase(pgAdminURL, name)
}

// PostgresAdminURL returns the URL of the test server's "postgres" database,
// starting the server if needed (for tests that manage databases themselves).
func PostgresAdminURL(t testing.TB) string {
	t.Helper()
	pgOnce.Do(func() { pgAdminURL, pgTemplate, pgErr = setupPostgres() })
	if pgErr != nil {
		t.Fatalf("storetest: postgres: %v", pgErr)
	}
	return pgAdminURL
}

func withDatabase(base, name string) string {
	u, _ := url.Parse(base)
	u.Path = "/" + name
	return u.String()
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) //nolint:errcheck
	return hex.EncodeToString(b)
}

func setupPostgres() (adminURL, template string, err error) {
	adminURL = os.Getenv("CHAKSHU_TEST_POSTGRES_URL")
	if adminURL == "" {
		if answering("127.0.0.1:5432") {
			adminURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
		} else {
			adminURL, err = startCluster()
			if err != nil {
				return "", "", err
			}
		}
	}
	// One migrated template per test binary; each test copies it.
	template = "chakshu_tmpl_" + randHex(6)
	admin, err := sql.Open("pgx", adminURL)
	if err != nil {
		return "", "", err
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE " + template); err != nil {
		return "", "", fmt.Errorf("create template database: %w", err)
	}
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{DatabaseURL: withDatabase(adminURL, template)})
	if err != nil {
		return "", "", err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return "", "", err
	}
	db.Close()
	cleanupOldTemplates(admin, template)
	return adminURL, template, nil
}

// cleanupOldTemplates drops test databases left by earlier, killed test binaries
// (older than an hour), so a shared server does not fill up.
func cleanupOldTemplates(admin *sql.DB, keep string) {
	rows, err := admin.Query(`SELECT datname FROM pg_database d
		WHERE (datname LIKE 'chakshu_tmpl_%' OR datname LIKE 'chakshu_t_%') AND datname <> $1
		AND (pg_stat_file('base/'||oid||'/PG_VERSION')).modification < now() - interval '1 hour'`, keep)
	if err != nil {
		return
	}
	var names []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			names = append(names, n)
		}
	}
	rows.Close()
	for _, n := range names {
		admin.Exec("DROP DATABASE IF EXISTS " + n + " WITH (FORCE)") //nolint:errcheck
	}
}

func answering(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// startCluster starts a throwaway PostgreSQL cluster on a free loopback port,
// installing Debian's postgresql when it is missing. The cluster lives in a
// fixed folder under the system temp dir and is reused by later test binaries.
func startCluster() (string, error) {
	bin, err := pgBinDir()
	if err != nil {
		return "", err
	}
	base := filepath.Join(os.TempDir(), "chakshu-test-pg")
	data := filepath.Join(base, "data")
	sock := filepath.Join(base, "sock")
	const port = "55432"
	url := "postgres://postgres@127.0.0.1:" + port + "/postgres?sslmode=disable"
	if answering("127.0.0.1:" + port) {
		return url, nil
	}
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "chakshu-test-pg.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		defer lock.Close()
		flock(lock)
	}
	if answering("127.0.0.1:" + port) {
		return url, nil
	}
	asPG := func(args ...string) *exec.Cmd {
		if os.Geteuid() == 0 {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
		}
		return exec.Command(args[0], args[1:]...)
	}
	if err := os.MkdirAll(sock, 0o700); err != nil {
		return "", err
	}
	if os.Geteuid() == 0 {
		exec.Command("chown", "-R", "postgres:postgres", base).Run() //nolint:errcheck
		os.Chmod(base, 0o755)                                        //nolint:errcheck
	}
	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); err != nil {
		os.RemoveAll(data)
		if out, err := asPG(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8").CombinedOutput(); err != nil {
			return "", fmt.Errorf("initdb: %v: %s", err, out)
		}
	}
	opts := fmt.Sprintf("-p %s -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300", port, sock)
	if out, err := asPG(filepath.Join(bin, "pg_ctl"), "-D", data, "-o", opts, "-l", filepath.Join(base, "log"), "-w", "start").CombinedOutput(); err != nil {
		return "", fmt.Errorf("pg_ctl start: %v: %s", err, out)
	}
	return url, nil
}

func pgBinDir() (string, error) {
	find := func() string {
		m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
		if len(m) == 0 {
			return ""
		}
		return filepath.Dir(m[len(m)-1])
	}
	if d := find(); d != "" {
		return d, nil
	}
	if os.Geteuid() != 0 {
		return "", fmt.Errorf("PostgreSQL is not installed and this user cannot install it: run `sudo apt-get install -y postgresql` or set CHAKSHU_TEST_POSTGRES_URL")
	}
	cmd := exec.Command("sh", "-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("installing postgresql: %v: %s", err, lastLines(string(out), 10))
	}
	if d := find(); d != "" {
		return d, nil
	}
	return "", fmt.Errorf("postgresql installed but initdb not found")
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// OpenEmpty returns a database of the given dialect with no tables at all
// (not migrated), closed and removed when the test ends: for tests that build
// an older release's schema themselves.
func OpenEmpty(t testing.TB, dialect string) *store.DB {
	t.Helper()
	return open(t, dialect, false)
}
