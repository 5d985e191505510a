// Package cluster runs the real chakshu binary as separate web and worker
// processes on one PostgreSQL, behind a round-robin proxy, against the
// sandbox (GitHub simulator, scripted model, simulated Actions runner) in the
// calling test process. The reliability tests and BenchmarkOrgScale share it;
// only tests import it.
package cluster

import (
	"bytes"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/runnerbin/runnerbintest"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Build builds the real chakshu binary into a temporary folder; cleanup
// removes it.
func Build() (bin string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "chakshu-cluster-")
	if err != nil {
		return "", nil, err
	}
	bin = filepath.Join(dir, "chakshu")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/chakshu-dev/chakshu/cmd/chakshu").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("build chakshu: %w\n%s", err, out)
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

// GitHubLimits are GitHub's documented limits for an installation (REST
// and GraphQL primary quotas, the secondary limits on content creation and
// on requests at once), enforced by the simulator in real time.
var GitHubLimits = ghsim.Limits{Primary: 5000, GraphQLPrimary: 5000, ContentPerMinute: 80, ContentPerHour: 500, MaxConcurrent: 100}

// Proc is one running chakshu process of the real binary.
type Proc struct {
	Name string
	Mode string // web | worker
	// addr (web only, guarded by Cluster.mu) is where the present start
	// listens, as its "web listening" log line said; "" while it starts or
	// once it has exited. Each start binds 127.0.0.1:0: a port picked here
	// and handed over is free only until another test package's process
	// takes it (CI once saw "address already in use", and the proxy then
	// sent runners to a stranger that answered 404).
	addr string
	cmd  *exec.Cmd
	done chan struct{}
}

// Cluster is N web and M worker processes on one PostgreSQL, a round-robin
// proxy in front of the webs, and the sandbox (simulator, scripted model,
// simulated Actions runner) in the test process.
type Cluster struct {
	t      testing.TB
	bin    string
	SB     *sandbox.Sandbox
	DB     *sql.DB
	URL    string // the proxy: CHAKSHU_PUBLIC_URL
	env    []string
	LogDir string
	// ActionsDir holds each simulated Actions run's log (the runner log).
	ActionsDir string

	mu    sync.Mutex
	procs []*Proc
	kills atomic.Int64
}

// Options configure a cluster.
type Options struct {
	// Binary is the chakshu binary Build made.
	Binary        string
	Webs, Workers int
	// WebhookSecret signs the simulator's deliveries.
	WebhookSecret string
	// Limits are the simulator's realistic limits (GitHubLimits; nil: none).
	Limits *ghsim.Limits
	Env    map[string]string // extra settings (timings)
	// Hold keeps the simulated runner away from an Actions run: the test
	// plays the runner for it, or none does.
	Hold func(ghsim.WorkflowRun) bool
}

// Start starts everything and waits until the sandbox org's reviewers are
// synced.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	actions := filepath.Join(t.TempDir(), "actions")
	sb, err := sandbox.Start(sandbox.Options{AppSlug: "chakshu", WebhookSecret: o.WebhookSecret, RunnerLogDir: actions, Hold: o.Hold,
		GitHubLimits: o.Limits})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	dbURL := storetest.NewPostgresDatabase(t)
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })

	c := &Cluster{t: t, bin: o.Binary, SB: sb, DB: db, LogDir: t.TempDir(), ActionsDir: actions}
	px := newProxy(o.Webs, c.webAddrs)
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	psrv := &http.Server{Handler: px, ReadHeaderTimeout: 10 * time.Second}
	go psrv.Serve(pln) //nolint:errcheck
	t.Cleanup(func() { psrv.Close() })
	c.URL = "http://" + pln.Addr().String()

	key := make([]byte, 32)
	rand.Read(key) //nolint:errcheck
	settings := map[string]string{
		"CHAKSHU_APP_ID":              fmt.Sprint(sb.AppID),
		"CHAKSHU_APP_SLUG":            "chakshu",
		"CHAKSHU_PRIVATE_KEY":         string(sb.AppKey),
		"CHAKSHU_WEBHOOK_SECRET":      o.WebhookSecret,
		"CHAKSHU_GITHUB_URL":          sb.Sim.URL(),
		"CHAKSHU_GITHUB_GRAPHQL_URL":  sb.Sim.GraphQLURL(),
		"CHAKSHU_OIDC_ISSUER":         sb.Sim.IssuerURL(),
		"CHAKSHU_OIDC_AUDIENCE":       c.URL,
		"CHAKSHU_PUBLIC_URL":          c.URL,
		"CHAKSHU_MODEL_URL":           sb.ModelURL,
		"CHAKSHU_MODEL_API_KEY":       "sk-ant-cluster-test-key-not-real",
		"CHAKSHU_SECRET_KEY":          base64.StdEncoding.EncodeToString(key),
		"CHAKSHU_DATABASE_URL":        dbURL,
		"CHAKSHU_DATA_DIR":            t.TempDir(),
		"CHAKSHU_ADMINS":              sandbox.User,
		"CHAKSHU_LOG_FORMAT":          "json",
		"CHAKSHU_LOG_LEVEL":           "debug",
		"CHAKSHU_OAUTH_CLIENT_ID":     sb.ClientID, // web refuses an App without its OAuth client
		"CHAKSHU_OAUTH_CLIENT_SECRET": sb.Secret,
		"CHAKSHU_INTERNAL_ADDR":       "127.0.0.1:0", // several processes on one host
		"CHAKSHU_RUNNER_DIR":          runnerbintest.Dir(t),
	}
	for k, v := range o.Env {
		settings[k] = v
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CHAKSHU_") {
			c.env = append(c.env, kv)
		}
	}
	for k, v := range settings {
		c.env = append(c.env, k+"="+v)
	}
	// One migration before the processes start (each start migrates too).
	mig := exec.Command(c.bin, "migrate")
	mig.Env = c.env
	if out, err := mig.CombinedOutput(); err != nil {
		t.Fatalf("chakshu migrate: %v\n%s", err, out)
	}
	for i := 0; i < o.Webs; i++ {
		c.Add("web")
	}
	for i := 0; i < o.Workers; i++ {
		c.Add("worker")
	}
	t.Cleanup(c.stopAll)
	for _, p := range c.ByMode("web") {
		c.WaitHealthy(p, 60*time.Second)
	}
	sb.Connect(c.URL, c.URL)
	WaitFor(t, 90*time.Second, "the reviewers to sync", func() bool {
		return c.Count(`SELECT count(*) FROM reviewers WHERE synced_commit <> ''`) >= 3
	})
	return c
}

// Add starts one more process of mode (web | worker), named after its rank.
func (c *Cluster) Add(mode string) *Proc {
	c.mu.Lock()
	n := 1
	for _, q := range c.procs {
		if q.Mode == mode {
			n++
		}
	}
	p := &Proc{Name: fmt.Sprintf("%s%d", mode, n), Mode: mode}
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	c.Start(p)
	return p
}

// Start (re)starts p; its output is appended to <LogDir>/<name>.log.
func (c *Cluster) Start(p *Proc) {
	c.t.Helper()
	logPath := filepath.Join(c.LogDir, p.Name+".log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		c.t.Fatal(err)
	}
	cmd := exec.Command(c.bin, p.Mode)
	cmd.Env = c.env
	if p.Mode == "web" {
		cmd.Env = append(append([]string{}, c.env...), "CHAKSHU_ADDR=127.0.0.1:0")
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		c.t.Fatalf("start %s: %v", p.Name, err)
	}
	done := make(chan struct{})
	c.mu.Lock()
	p.cmd, p.done, p.addr = cmd, done, ""
	c.mu.Unlock()
	go func() {
		cmd.Wait() //nolint:errcheck
		f.Close()
		c.setAddr(p, cmd, "")
		close(done)
	}()
	if p.Mode == "web" {
		go c.learnAddr(p, cmd, logPath, fi.Size(), done)
	}
}

// Done is closed when p's present start has exited.
func (c *Cluster) Done(p *Proc) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return p.done
}

// Pid is the process id of p's present start.
func (c *Cluster) Pid(p *Proc) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return p.cmd.Process.Pid
}

// learnAddr reads p's log from off, where this start's output begins, until
// the "web listening" line gives the address it bound, or the process ends.
func (c *Cluster) learnAddr(p *Proc, cmd *exec.Cmd, logPath string, off int64, done <-chan struct{}) {
	var pending []byte
	for {
		exited := false
		select {
		case <-done:
			exited = true
		default:
		}
		if f, err := os.Open(logPath); err == nil {
			if _, err := f.Seek(off, io.SeekStart); err == nil {
				b, _ := io.ReadAll(f)
				off += int64(len(b))
				pending = append(pending, b...)
			}
			f.Close()
		}
		for {
			i := bytes.IndexByte(pending, '\n')
			if i < 0 {
				break
			}
			var line struct{ Msg, Addr string }
			if json.Unmarshal(pending[:i], &line) == nil && line.Msg == "web listening" && line.Addr != "" {
				c.setAddr(p, cmd, line.Addr)
				return
			}
			pending = pending[i+1:]
		}
		if exited {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// setAddr records addr for p's start cmd, unless p has been started again.
func (c *Cluster) setAddr(p *Proc, cmd *exec.Cmd, addr string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.cmd == cmd {
		p.addr = addr
	}
}

// Addr is where p listens now ("" while it starts or is down).
func (c *Cluster) Addr(p *Proc) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return p.addr
}

// webAddrs are the addresses of the web processes that listen now.
func (c *Cluster) webAddrs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, p := range c.procs {
		if p.Mode == "web" && p.addr != "" {
			out = append(out, p.addr)
		}
	}
	return out
}

// Kill sends SIGKILL to p and waits until it is gone.
func (c *Cluster) Kill(p *Proc) {
	c.signalAndWait(p, syscall.SIGKILL)
	c.kills.Add(1)
}

// Stop sends SIGTERM to p and waits until it has drained and exited.
func (c *Cluster) Stop(p *Proc) { c.signalAndWait(p, syscall.SIGTERM) }

func (c *Cluster) signalAndWait(p *Proc, sig syscall.Signal) {
	c.mu.Lock()
	cmd, done := p.cmd, p.done
	c.mu.Unlock()
	cmd.Process.Signal(sig) //nolint:errcheck
	<-done
}

// Kills is how many times Kill was called.
func (c *Cluster) Kills() int { return int(c.kills.Load()) }

// Signal sends sig to p (SIGSTOP / SIGCONT).
func (c *Cluster) Signal(p *Proc, sig syscall.Signal) {
	c.mu.Lock()
	cmd := p.cmd
	c.mu.Unlock()
	cmd.Process.Signal(sig) //nolint:errcheck
}

func (c *Cluster) stopAll() {
	c.mu.Lock()
	procs := append([]*Proc(nil), c.procs...)
	c.mu.Unlock()
	for _, p := range procs {
		p.cmd.Process.Signal(syscall.SIGCONT) //nolint:errcheck
		p.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck
	}
	for _, p := range procs {
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			p.cmd.Process.Kill() //nolint:errcheck
			<-p.done
		}
	}
	if c.t.Failed() {
		for _, p := range procs {
			b, _ := os.ReadFile(filepath.Join(c.LogDir, p.Name+".log"))
			c.t.Logf("--- %s log (tail):\n%s", p.Name, Tail(string(b), 60))
		}
	}
}

// ByMode lists the processes of mode (web | worker).
func (c *Cluster) ByMode(mode string) []*Proc {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*Proc
	for _, p := range c.procs {
		if p.Mode == mode {
			out = append(out, p)
		}
	}
	return out
}

func (c *Cluster) WaitHealthy(p *Proc, d time.Duration) {
	c.t.Helper()
	WaitFor(c.t, d, p.Name+" to answer /healthz", func() bool {
		a := c.Addr(p)
		return a != "" && Healthy("http://"+a)
	})
}

func Healthy(base string) bool {
	cl := &http.Client{Timeout: 2 * time.Second}
	resp, err := cl.Get(base + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == 200
}

// Count runs a count query on the shared database.
func (c *Cluster) Count(q string, args ...any) int {
	c.t.Helper()
	var n int
	if err := c.DB.QueryRow(q, args...).Scan(&n); err != nil {
		c.t.Fatalf("%s: %v", q, err)
	}
	return n
}

// Logs returns every process's output so far.
func (c *Cluster) Logs() string {
	var b strings.Builder
	for _, p := range c.ByMode("web") {
		x, _ := os.ReadFile(filepath.Join(c.LogDir, p.Name+".log"))
		b.Write(x)
	}
	for _, p := range c.ByMode("worker") {
		x, _ := os.ReadFile(filepath.Join(c.LogDir, p.Name+".log"))
		b.Write(x)
	}
	return b.String()
}

// WaitFor polls cond until it holds or the timeout passes.
func WaitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Tail is the last n lines of s.
func Tail(s string, n int) string {
	l := strings.Split(s, "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// proxy is a round-robin load balancer over the web processes that listen
// now; one that is down or still starting is left out, and one that refuses
// the connection (killed a moment ago) is skipped, as a load balancer's
// health check would.
type proxy struct {
	webs     int             // how many web processes there are
	backends func() []string // the addresses that listen now
	next     atomic.Uint64
	tr       *http.Transport
}

func newProxy(webs int, backends func() []string) *proxy {
	return &proxy{webs: webs, backends: backends, tr: &http.Transport{MaxIdleConnsPerHost: 16, ResponseHeaderTimeout: 60 * time.Second}}
}

const proxyBodyLimit = 128 << 20

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, proxyBodyLimit))
	if err != nil {
		http.Error(w, "proxy: read body", http.StatusBadGateway)
		return
	}
	start := p.next.Add(1)
	var lastErr error
	for attempt := 0; attempt < 3*p.webs; attempt++ {
		bes := p.backends()
		if len(bes) == 0 {
			lastErr = errors.New("every web process is starting")
			time.Sleep(300 * time.Millisecond)
			continue
		}
		be := bes[(int(start)+attempt)%len(bes)]
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, "http://"+be+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		req.Host = r.Host
		resp, err := p.tr.RoundTrip(req)
		if err != nil {
			lastErr = err
			if r.Context().Err() != nil {
				return
			}
			if attempt >= p.webs-1 {
				time.Sleep(300 * time.Millisecond) // every web is restarting
			}
			continue
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		fl, _ := w.(http.Flusher)
		buf := make([]byte, 32<<10)
		for {
			n, rerr := resp.Body.Read(buf)
			if n > 0 {
				w.Write(buf[:n]) //nolint:errcheck
				if fl != nil {
					fl.Flush()
				}
			}
			if rerr != nil {
				break
			}
		}
		resp.Body.Close()
		return
	}
	http.Error(w, fmt.Sprintf("proxy: no web process answered: %v", lastErr), http.StatusBadGateway)
}

var _ http.Handler = (*proxy)(nil)
