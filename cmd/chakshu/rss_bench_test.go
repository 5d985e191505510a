package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/syncbuf"
)

// idleSettle is how long a process is left alone after its start-up work
// (readiness, the installation webhook, the reviewer sync) before its
// resident memory is read. A longer settle (-idle.settle 4m) shows where the
// figure goes once the garbage collector has run on its own.
var idleSettle = flag.Duration("idle.settle", 15*time.Second, "BenchmarkIdleRSS: how long to leave the process idle before reading its RSS")

// rssBudgetMB is DESIGN §11's budget for the idle RSS of `chakshu all`.
const rssBudgetMB = 80

// BenchmarkIdleRSS starts the real binary as `chakshu all` twice and reads its
// resident memory once idle, against DESIGN §11's ≤ 80 MB:
//
//   - sandbox: no settings, so the in-process GitHub simulator, simulated
//     runner and scripted model are included, with 600 seeded past runs;
//   - production: a configured GitHub App on SQLite. The test plays GitHub
//     (a simulator seeded like the sandbox's, on 127.0.0.1) and the model,
//     seeds the same 600 past runs into the database, and delivers the
//     installation webhook once Chakshu is ready, so the process does the
//     installation and the reviewer sync before it settles.
//
// Run with: go test ./cmd/chakshu -run '^$' -bench IdleRSS -benchtime 1x [-v for the largest mappings]
func BenchmarkIdleRSS(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "chakshu")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	b.Run("sandbox", func(b *testing.B) {
		p := startIdle(b, bin, []string{"CHAKSHU_DATA_DIR=" + b.TempDir()})
		defer p.stop()
		p.waitStdout(b, "sandbox mode") // printed once the sandbox is seeded and installed
		p.report(b, "sandbox mode, simulator included")
	})
	b.Run("production", func(b *testing.B) {
		sb, err := sandbox.Start(sandbox.Options{AppSlug: "chakshu", WebhookSecret: "bench-secret"})
		if err != nil {
			b.Fatal(err)
		}
		defer sb.Close()
		// Install before Chakshu runs (no webhook URL yet, so the delivery is
		// only recorded), seed the history against that installation, then
		// redeliver the installation webhook once Chakshu is ready.
		sb.InstID = sb.Sim.Install(sb.AppID, sandbox.Org, nil, nil)
		sb.Sim.WaitDeliveries()
		dir := b.TempDir()
		seedHistory(b, sb, dir)
		keyFile := filepath.Join(b.TempDir(), "app.pem")
		if err := os.WriteFile(keyFile, sb.AppKey, 0o600); err != nil {
			b.Fatal(err)
		}
		secret := make([]byte, 32)
		rand.Read(secret) //nolint:errcheck
		p := startIdle(b, bin, []string{
			"CHAKSHU_DATA_DIR=" + dir,
			"CHAKSHU_APP_ID=" + strconv.FormatInt(sb.AppID, 10),
			"CHAKSHU_APP_SLUG=chakshu",
			"CHAKSHU_PRIVATE_KEY_FILE=" + keyFile,
			"CHAKSHU_WEBHOOK_SECRET=bench-secret",
			"CHAKSHU_GITHUB_URL=" + sb.Sim.URL(),
			"CHAKSHU_GITHUB_GRAPHQL_URL=" + sb.Sim.GraphQLURL(),
			"CHAKSHU_OIDC_ISSUER=" + sb.Sim.IssuerURL(),
			"CHAKSHU_OAUTH_CLIENT_ID=" + sb.ClientID,
			"CHAKSHU_OAUTH_CLIENT_SECRET=" + sb.Secret,
			"CHAKSHU_MODEL_URL=" + sb.ModelURL,
			"CHAKSHU_MODEL_API_KEY=bench-key",
			"CHAKSHU_SECRET_KEY=" + base64.StdEncoding.EncodeToString(secret),
		})
		defer p.stop()
		sb.Connect("http://"+p.addr, "http://"+p.addr)
		// Chakshu's recovery may already have asked for the failed delivery
		// again (worker/recover.go), before there was a URL: more attempts,
		// one delivery.
		installed := sb.Sim.DeliveriesOf("installation", "created")
		if len(installed) == 0 {
			b.Fatal("no installation delivery")
		}
		for _, d := range installed {
			if d.ID != installed[0].ID {
				b.Fatalf("two installation deliveries: %s and %s", installed[0].ID, d.ID)
			}
		}
		if err := sb.Sim.Redeliver(installed[0].ID); err != nil {
			b.Fatal(err)
		}
		sb.Sim.WaitDeliveries()
		if got := sb.Sim.DeliveriesOf("installation", "created"); got[len(got)-1].Status/100 != 2 {
			b.Fatalf("installation webhook: %d %s\n%s", got[len(got)-1].Status, got[len(got)-1].Err, p.stderr.String())
		}
		p.report(b, "production mode, GitHub App on SQLite")
	})
}

// seedHistory gives the production database the same 600 past runs the
// sandbox seeds, so both figures describe a portal with history.
func seedHistory(b *testing.B, sb *sandbox.Sandbox, dir string) {
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{DataDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	if err := sb.SeedHistory(ctx, db, 600); err != nil {
		b.Fatal(err)
	}
}

type idleProc struct {
	addr   string // where its web listener is, from its log
	cmd    *exec.Cmd
	stdout *syncbuf.Buffer
	stderr *syncbuf.Buffer
}

// startIdle starts `chakshu all` with env on a port of its choosing and
// waits for /readyz.
func startIdle(b *testing.B, bin string, env []string) *idleProc {
	p := &idleProc{cmd: exec.Command(bin, "all"), stdout: &syncbuf.Buffer{}, stderr: &syncbuf.Buffer{}}
	base := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CHAKSHU_") && !strings.HasPrefix(kv, "GOGC=") && !strings.HasPrefix(kv, "GOMEMLIMIT=") {
			base = append(base, kv)
		}
	}
	p.cmd.Env = append(append(base, "CHAKSHU_ADDR=127.0.0.1:0", "CHAKSHU_INTERNAL_ADDR=127.0.0.1:0", "CHAKSHU_LOG_FORMAT=json"), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	ready := false
	defer func() {
		if !ready { // a failed wait ends the benchmark: leave no process behind
			p.stop()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p.addr = loggedAddr(ctx, b, p.stderr, "web listening")
	for {
		if resp, err := http.Get("http://" + p.addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				ready = true
				return p
			}
		}
		if ctx.Err() != nil {
			b.Fatalf("no /readyz within 60s\n%s", p.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop kills the process and waits for it, so one measurement never overlaps
// the next.
func (p *idleProc) stop() {
	p.cmd.Process.Kill() //nolint:errcheck
	p.cmd.Wait()         //nolint:errcheck
}

func (p *idleProc) waitStdout(b *testing.B, want string) {
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(p.stdout.String(), want) {
		if time.Now().After(deadline) {
			b.Fatalf("no %q on stdout: %q", want, p.stdout.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// report lets the process settle, then reads and prints its VmRSS.
func (p *idleProc) report(b *testing.B, what string) {
	time.Sleep(*idleSettle)
	if p.cmd.ProcessState != nil {
		b.Fatalf("process exited\n%s", p.stderr.String())
	}
	pid := p.cmd.Process.Pid
	kb := vmRSS(b, pid)
	mb := float64(kb) / 1024
	b.ReportMetric(mb, "idle-RSS-MB")
	verdict := "within"
	if mb > rssBudgetMB {
		verdict = "OVER"
	}
	fmt.Printf("idle RSS of chakshu all (%s), %s after start-up: %.1f MB; budget ≤ %d MB: %s\n", what, *idleSettle, mb, rssBudgetMB, verdict)
	if testing.Verbose() {
		b.Logf("%s; largest mappings by Rss:\n%s", rssSplit(b, pid), smapsTop(b, pid, 12))
	}
}

func vmRSS(b *testing.B, pid int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			return kbField(rest)
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

// rssSplit is the status file's split of VmRSS into anonymous memory (Go
// heap, SQLite's allocations), file pages (the binary, the mapped database)
// and shared memory.
func rssSplit(b *testing.B, pid int) string {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	var parts []string
	for _, line := range strings.Split(string(raw), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.HasPrefix(k, "Rss") {
			parts = append(parts, fmt.Sprintf("%s %.1f MB", k, float64(kbField(v))/1024))
		}
	}
	return strings.Join(parts, ", ")
}

func kbField(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "kB")))
	return n
}

// smapsTop lists the n mappings of pid with the most resident memory.
func smapsTop(b *testing.B, pid, n int) string {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	type mapping struct {
		head string
		rss  int
	}
	var ms []mapping
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if rest, ok := strings.CutPrefix(line, "Rss:"); ok && len(ms) > 0 {
			ms[len(ms)-1].rss = kbField(rest)
		} else if f := strings.Fields(line); len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			ms = append(ms, mapping{head: line})
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].rss > ms[j].rss })
	var out strings.Builder
	for i := 0; i < n && i < len(ms); i++ {
		fmt.Fprintf(&out, "%8d kB  %s\n", ms[i].rss, ms[i].head)
	}
	return out.String()
}
