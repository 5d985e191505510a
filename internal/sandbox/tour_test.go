package sandbox

import (
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The tour links each of the three things to try: the first PR's comment
// box, "Review a PR" filled in with a PR on the simulated pages, and — once
// Chakshu has commented — the first of its open threads (before that, the
// PR's Files changed tab).
func TestTourLinksTheThreeThingsToTry(t *testing.T) {
	sb, err := Start(Options{PagesURL: "http://127.0.0.1:8123"})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	tour := sb.Tour()
	if len(tour) != 3 || tour[0].ID != "comment" || tour[1].ID != "review" || tour[2].ID != "reply" {
		t.Fatalf("tour = %+v", tour)
	}
	first := sb.PRs[0]
	prURL := "http://127.0.0.1:8123/sim/" + first.Repo + "/pull/" + strconv.Itoa(first.Number)
	if tour[0].URL != prURL+"#comment" || !strings.Contains(tour[0].Text, "@chakshu review") {
		t.Errorf("comment = %+v", tour[0])
	}
	u, err := url.Parse(tour[1].URL)
	if err != nil || u.Path != "/review" || !strings.HasPrefix(u.Query().Get("pr"), "http://127.0.0.1:8123/sim/acme/") {
		t.Errorf("review = %+v", tour[1])
	}
	if tour[2].URL != prURL+"/files" {
		t.Errorf("reply before any review = %+v", tour[2])
	}
}

// The run page's log is the per-run log file the simulated runner writes.
func TestRunLogReadsTheRunnersFile(t *testing.T) {
	dir := t.TempDir()
	o := Options{RunnerLogDir: dir}
	if b, err := o.runLog(7); err != nil || b != nil {
		t.Fatalf("no file yet: %q %v", b, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "actions-run-7.log"), []byte("→ [1/40] read_file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := o.runLog(7); err != nil || string(b) != "→ [1/40] read_file\n" {
		t.Fatalf("runLog = %q %v", b, err)
	}
	if b, _ := (Options{}).runLog(7); b != nil {
		t.Fatalf("no log dir: %q", b)
	}
}
