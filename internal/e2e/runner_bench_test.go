package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/runnerbin"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/version"
)

// runnerBudget is the most each served runner may weigh compressed (DESIGN §11).
const runnerBudget = 10 << 20

// BenchmarkRunnerServed measures the time from an Actions job's start to the
// job fetched, when the runner is the chakshu-action Chakshu serves: the
// checkout, the download of the binary and its SHA-256 over loopback, the
// check, the process start, the OIDC token and POST /job (DESIGN §11: ≤ 3 s).
// Beside it, the path it replaced: building chakshu-action from source with a
// warm build cache, and with a cold one when CHAKSHU_BENCH_COLD=1 (minutes on
// two cores). And the served binaries' sizes against their budget.
func BenchmarkRunnerServed(b *testing.B) {
	root := moduleRoot(b)
	dir := b.TempDir()
	build := exec.Command("bash", filepath.Join(root, "scripts", "runners.sh"), dir, version.Version)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("scripts/runners.sh: %v: %s", err, out)
	}
	for _, p := range runnerbin.Platforms {
		st, err := os.Stat(filepath.Join(dir, runnerbin.FileName(version.Version, p)+".gz"))
		if err != nil {
			b.Fatal(err)
		}
		raw, _ := os.Stat(filepath.Join(dir, runnerbin.FileName(version.Version, p)))
		verdict := "within"
		if st.Size() > runnerBudget {
			verdict = "OVER"
		}
		fmt.Printf("served runner %s: %.1f MB gzip as served (%.1f MB uncompressed); budget ≤ 10 MB compressed: %s\n",
			p, float64(st.Size())/(1<<20), float64(raw.Size())/(1<<20), verdict)
		b.ReportMetric(float64(st.Size())/(1<<20), "MB-gz-"+p.Arch)
	}

	c := start(b, "", map[string]string{"CHAKSHU_RUNNER_DIR": dir})
	sim := c.SB.Sim
	waitFor(b, 60*time.Second, "the reviewers to sync", func() bool { return c.reviewersSynced(b) })
	var mu sync.Mutex
	started := map[int64]time.Time{}
	sim.OnDispatch(func(r ghsim.WorkflowRun) {
		mu.Lock()
		started[r.ID] = time.Now()
		mu.Unlock()
	})
	const n = 5
	var lat []time.Duration
	logDir := filepath.Join(c.DataDir, "actions-logs")
	for i := 0; i < n; i++ {
		pr := c.SB.PRs[i%len(c.SB.PRs)]
		mu.Lock()
		seen := map[int64]bool{}
		for id := range started {
			seen[id] = true
		}
		mu.Unlock()
		sim.Comment(pr.Repo, pr.Number, sandbox.Writer, "@chakshu review style")
		var id int64
		var t0 time.Time
		waitFor(b, 30*time.Second, "the workflow to start", func() bool {
			mu.Lock()
			defer mu.Unlock()
			for k, v := range started {
				if !seen[k] {
					id, t0 = k, v
					return true
				}
			}
			return false
		})
		// The runner prints "Chakshu run N: …" as soon as the job is in.
		logPath := filepath.Join(logDir, fmt.Sprintf("actions-run-%d.log", id))
		deadline := time.Now().Add(60 * time.Second)
		for {
			if bs, _ := os.ReadFile(logPath); bytes.Contains(bs, []byte("\nChakshu run ")) {
				lat = append(lat, time.Since(t0))
				break
			}
			if time.Now().After(deadline) {
				bs, _ := os.ReadFile(logPath)
				b.Fatalf("run %d: no job fetched within 60s; log:\n%s", id, bs)
			}
			time.Sleep(2 * time.Millisecond)
		}
		waitFor(b, 60*time.Second, "the review to finish", func() bool {
			for _, cr := range sim.CheckRuns(pr.Repo) {
				if cr.Name == "Chakshu · style" && cr.Status != "completed" {
					return false
				}
			}
			return true
		})
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	med, worst := lat[len(lat)/2], lat[len(lat)-1]
	b.ReportMetric(float64(med.Milliseconds()), "median-ms")
	fmt.Printf("workflow start → job fetched, runner served by Chakshu (%d runs, loopback, download and SHA-256 check included): median %s, max %s; budget ≤ 3s\n",
		n, med.Round(time.Millisecond), worst.Round(time.Millisecond))

	// The path it replaced: go build on the runner before the same fetch.
	warm := buildRunner(b, root, "")
	fmt.Printf("workflow start → job fetched, runner built from source, warm build cache: %s build + %s = %s\n",
		warm.Round(100*time.Millisecond), med.Round(time.Millisecond), (warm + med).Round(100*time.Millisecond))
	if os.Getenv("CHAKSHU_BENCH_COLD") == "1" {
		cold := buildRunner(b, root, b.TempDir())
		fmt.Printf("workflow start → job fetched, runner built from source, cold build cache: %s build + %s = %s\n",
			cold.Round(time.Second), med.Round(time.Millisecond), (cold + med).Round(time.Second))
	} else {
		fmt.Println("workflow start → job fetched, runner built from source, cold build cache: skipped (CHAKSHU_BENCH_COLD=1 measures it: minutes on 2 cores)")
	}
}

// buildRunner times what the old workflow step did: go build of
// chakshu-action, with gocache as GOCACHE ("" keeps the warm one).
func buildRunner(b *testing.B, root, gocache string) time.Duration {
	b.Helper()
	cmd := exec.Command("go", "build", "-p", "2", "-trimpath", "-o", filepath.Join(b.TempDir(), "chakshu-action"), "./cmd/chakshu-action")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false", "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	if gocache != "" {
		cmd.Env = append(cmd.Env, "GOCACHE="+gocache)
	}
	t0 := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build ./cmd/chakshu-action: %v: %s", err, out)
	}
	return time.Since(t0)
}

func moduleRoot(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "go.mod") {
		tb.Fatalf("go env GOMOD: %v %s", err, out)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}
