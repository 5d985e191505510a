package reliability

import (
	"bytes"
	"context"
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

// binPath is the real chakshu binary, built once by TestMain.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "chakshu-reliability-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "chakshu")
	out, err := exec.Command("go", "build", "-o", binPath, "github.com/chakshu-dev/chakshu/cmd/chakshu").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build chakshu: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	runnerbintest.Cleanup()
	os.Exit(code)
}

// full reports whether the soak sizes were asked for (make soak).
func full() bool { return os.Getenv("CHAKSHU_SOAK") == "full" }

// githubLimits are GitHub's documented limits for an installation (REST
// and GraphQL primary quotas, the secondary limits on content creation and
// on requests at once), enforced by the simulator in real time.
var githubLimits = ghsim.Limits{Primary: 5000, GraphQLPrimary: 5000, ContentPerMinute: 80, ContentPerHour: 500, MaxConcurrent: 100}

// size picks the CI or the full figure.
func size(ci, soak int) int {
	if full() {
		return soak
	}
	return ci
}

// proc is one running chakshu process of the real binary.
type proc struct {
	name string
	mode string // web | worker
	// addr (web only, guarded by cluster.mu) is where the present start
	// listens, as its "web listening" log line said; "" while it starts or
	// once it has exited. Each start binds 127.0.0.1:0: a port picked here
	// and handed over is free only until another test package's process
	// takes it (CI once saw "address already in use", and the proxy then
	// sent runners to a stranger that answered 404).
	addr string
	cmd  *exec.Cmd
	done chan struct{}
}

// cluster is N web and M worker processes on one PostgreSQL, a round-robin
// proxy in front of the webs, and the sandbox (simulator, scripted model,
// simulated Actions runner) in the test process.
type cluster struct {
	t      *testing.T
	SB     *sandbox.Sandbox
	DB     *sql.DB
	URL    string // the proxy: CHAKSHU_PUBLIC_URL
	env    []string
	logDir string
	// actionsDir holds each simulated Actions run's log (the runner log).
	actionsDir string

	mu    sync.Mutex
	procs []*proc
	kills atomic.Int64
}

type clusterOptions struct {
	webs, workers int
	env           map[string]string // extra settings (timings)
	// hold keeps the simulated runner away from an Actions run: the test
	// plays the runner for it.
	hold func(ghsim.WorkflowRun) bool
}

// startCluster starts everything and waits until the reviewers are synced.
func startCluster(t *testing.T, o clusterOptions) *cluster {
	t.Helper()
	secret := webhookSecret
	actions := filepath.Join(t.TempDir(), "actions")
	// GitHub's limits are on, as GitHub documents them and in real time
	// (ghsim.Limits; API.md "Rate limits"), and so is Chakshu's pacing under
	// them (its defaults: 80 content writes a minute, 500 an hour): the
	// soak's sizes fit inside them, and settle checks none was refused.
	sb, err := sandbox.Start(sandbox.Options{AppSlug: "chakshu", WebhookSecret: secret, RunnerLogDir: actions, Hold: o.hold,
		GitHubLimits: &githubLimits})
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

	c := &cluster{t: t, SB: sb, DB: db, logDir: t.TempDir(), actionsDir: actions}
	px := newProxy(o.webs, c.webAddrs)
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
		"CHAKSHU_WEBHOOK_SECRET":      secret,
		"CHAKSHU_GITHUB_URL":          sb.Sim.URL(),
		"CHAKSHU_GITHUB_GRAPHQL_URL":  sb.Sim.GraphQLURL(),
		"CHAKSHU_OIDC_ISSUER":         sb.Sim.IssuerURL(),
		"CHAKSHU_OIDC_AUDIENCE":       c.URL,
		"CHAKSHU_PUBLIC_URL":          c.URL,
		"CHAKSHU_MODEL_URL":           sb.ModelURL,
		"CHAKSHU_MODEL_API_KEY":       "sk-ant-reliability-test-key-not-real",
		"CHAKSHU_SECRET_KEY":          base64.StdEncoding.EncodeToString(key),
		"CHAKSHU_DATABASE_URL":        dbURL,
		"CHAKSHU_DATA_DIR":            t.TempDir(),
		"CHAKSHU_ADMINS":              sandbox.User,
		"CHAKSHU_LOG_FORMAT":          "json",
		"CHAKSHU_LOG_LEVEL":           "debug",
		"CHAKSHU_OAUTH_CLIENT_ID":     sb.ClientID, // web refuses an App without its OAuth client
		"CHAKSHU_OAUTH_CLIENT_SECRET": sb.Secret,
		"CHAKSHU_INTERNAL_ADDR":       "127.0.0.1:0", // several processes on one host
		"CHAKSHU_POLL_INTERVAL":       "500ms",
		"CHAKSHU_RUNNER_DIR":          runnerbintest.Dir(t),
	}
	for k, v := range o.env {
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
	mig := exec.Command(binPath, "migrate")
	mig.Env = c.env
	if out, err := mig.CombinedOutput(); err != nil {
		t.Fatalf("chakshu migrate: %v\n%s", err, out)
	}
	for i := 0; i < o.webs; i++ {
		c.add(&proc{name: fmt.Sprintf("web%d", i+1), mode: "web"})
	}
	for i := 0; i < o.workers; i++ {
		c.add(&proc{name: fmt.Sprintf("worker%d", i+1), mode: "worker"})
	}
	t.Cleanup(c.stopAll)
	for _, p := range c.procs {
		if p.mode == "web" {
			c.waitHealthy(p, 60*time.Second)
		}
	}
	sb.Connect(c.URL, c.URL)
	waitFor(t, 90*time.Second, "the reviewers to sync", func() bool {
		return c.count(`SELECT count(*) FROM reviewers WHERE synced_commit <> ''`) >= 3
	})
	return c
}

func (c *cluster) add(p *proc) {
	c.mu.Lock()
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	c.start(p)
}

// start (re)starts p; its output is appended to <logDir>/<name>.log.
func (c *cluster) start(p *proc) {
	c.t.Helper()
	logPath := filepath.Join(c.logDir, p.name+".log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		c.t.Fatal(err)
	}
	cmd := exec.Command(binPath, p.mode)
	cmd.Env = c.env
	if p.mode == "web" {
		cmd.Env = append(append([]string{}, c.env...), "CHAKSHU_ADDR=127.0.0.1:0")
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		c.t.Fatalf("start %s: %v", p.name, err)
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
	if p.mode == "web" {
		go c.learnAddr(p, cmd, logPath, fi.Size(), done)
	}
}

// learnAddr reads p's log from off, where this start's output begins, until
// the "web listening" line gives the address it bound, or the process ends.
func (c *cluster) learnAddr(p *proc, cmd *exec.Cmd, logPath string, off int64, done <-chan struct{}) {
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
func (c *cluster) setAddr(p *proc, cmd *exec.Cmd, addr string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.cmd == cmd {
		p.addr = addr
	}
}

// addrOf is where p listens now ("" while it starts or is down).
func (c *cluster) addrOf(p *proc) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return p.addr
}

// webAddrs are the addresses of the web processes that listen now.
func (c *cluster) webAddrs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, p := range c.procs {
		if p.mode == "web" && p.addr != "" {
			out = append(out, p.addr)
		}
	}
	return out
}

// kill sends SIGKILL to p and waits until it is gone.
func (c *cluster) kill(p *proc) {
	c.mu.Lock()
	cmd, done := p.cmd, p.done
	c.mu.Unlock()
	cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck
	<-done
	c.kills.Add(1)
}

// signal sends sig to p (SIGSTOP / SIGCONT).
func (c *cluster) signal(p *proc, sig syscall.Signal) {
	c.mu.Lock()
	cmd := p.cmd
	c.mu.Unlock()
	cmd.Process.Signal(sig) //nolint:errcheck
}

func (c *cluster) stopAll() {
	c.mu.Lock()
	procs := append([]*proc(nil), c.procs...)
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
			b, _ := os.ReadFile(filepath.Join(c.logDir, p.name+".log"))
			c.t.Logf("--- %s log (tail):\n%s", p.name, tail(string(b), 60))
		}
	}
}

func (c *cluster) byMode(mode string) []*proc {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*proc
	for _, p := range c.procs {
		if p.mode == mode {
			out = append(out, p)
		}
	}
	return out
}

func (c *cluster) waitHealthy(p *proc, d time.Duration) {
	c.t.Helper()
	waitFor(c.t, d, p.name+" to answer /healthz", func() bool {
		a := c.addrOf(p)
		return a != "" && healthy("http://"+a)
	})
}

func healthy(base string) bool {
	cl := &http.Client{Timeout: 2 * time.Second}
	resp, err := cl.Get(base + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == 200
}

// count runs a count query on the shared database.
func (c *cluster) count(q string, args ...any) int {
	c.t.Helper()
	var n int
	if err := c.DB.QueryRow(q, args...).Scan(&n); err != nil {
		c.t.Fatalf("%s: %v", q, err)
	}
	return n
}

// logs returns every process's output so far.
func (c *cluster) logs() string {
	var b strings.Builder
	for _, p := range c.byMode("web") {
		x, _ := os.ReadFile(filepath.Join(c.logDir, p.name+".log"))
		b.Write(x)
	}
	for _, p := range c.byMode("worker") {
		x, _ := os.ReadFile(filepath.Join(c.logDir, p.name+".log"))
		b.Write(x)
	}
	return b.String()
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func tail(s string, n int) string {
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

// ctxTimeout is a bounded context for one test step.
func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
