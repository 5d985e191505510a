package runnerapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/closedport"
	"github.com/chakshu-dev/chakshu/internal/runnerbin"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/server"
)

const servedVersion = "v9.9.9"

// runnerDir writes fake runner binaries of version for the given platforms
// (with their gzip copies) and returns the folder and each one's bytes.
func runnerDir(t *testing.T, version string, ps ...runnerbin.Platform) (string, map[runnerbin.Platform][]byte) {
	t.Helper()
	dir := t.TempDir()
	out := map[runnerbin.Platform][]byte{}
	for _, p := range ps {
		body := bytes.Repeat([]byte("chakshu-action "+version+" "+p.String()+"\n"), 5000)
		name := filepath.Join(dir, runnerbin.FileName(version, p))
		if err := os.WriteFile(name, body, 0o755); err != nil {
			t.Fatal(err)
		}
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(body)
		zw.Close()
		if err := os.WriteFile(name+".gz", gz.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out[p] = body
	}
	return dir, out
}

func binaryServer(t *testing.T, dir string, tls bool) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	api := &API{cfg: Config{Version: servedVersion, Runners: runnerbin.New(dir, servedVersion)}, log: slog.New(slog.DiscardHandler)}
	srv := httptest.NewUnstartedServer(server.Handler(server.Config{Log: slog.New(slog.DiscardHandler), Routes: api.Routes()}))
	conns := &atomic.Int64{}
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, conns
}

func runnerURL(base, goos, goarch string) string {
	return base + strings.NewReplacer("{os}", goos, "{arch}", goarch).Replace(runnerproto.PathRunner)
}

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// The runner API serves each platform's binary of its own version, gzip to
// clients that accept it, with the SHA-256 of the uncompressed bytes beside it.
func TestRunnerServed(t *testing.T) {
	linux, arm := runnerbin.Platform{OS: "linux", Arch: "amd64"}, runnerbin.Platform{OS: "linux", Arch: "arm64"}
	dir, bodies := runnerDir(t, servedVersion, linux, arm)
	srv, _ := binaryServer(t, dir, false)
	raw := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, p := range []runnerbin.Platform{linux, arm} {
		u := runnerURL(srv.URL, p.OS, p.Arch)
		// gzip asked for: the gzip copy, decompressing to the binary.
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := raw.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		zbody, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s: %d, Content-Encoding %q", p, resp.StatusCode, resp.Header.Get("Content-Encoding"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(zbody))
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := io.ReadAll(zr)
		if !bytes.Equal(plain, bodies[p]) || len(zbody) >= len(plain) {
			t.Fatalf("%s: gzip answer of %d bytes does not decompress to the binary", p, len(zbody))
		}
		if got := resp.Header.Get(runnerproto.HeaderRunnerSHA256); got != sum(bodies[p]) {
			t.Fatalf("%s: digest header %q", p, got)
		}
		// No gzip: the binary as is.
		resp, err = raw.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(b, bodies[p]) {
			t.Fatalf("%s: plain answer: encoding %q, %d bytes", p, resp.Header.Get("Content-Encoding"), len(b))
		}
		// The checksum, as sha256sum writes it.
		resp, err = raw.Get(u + ".sha256")
		if err != nil {
			t.Fatal(err)
		}
		b, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := sum(bodies[p]) + "  chakshu-action\n"; resp.StatusCode != 200 || string(b) != want {
			t.Fatalf("%s: checksum %d %q, want %q", p, resp.StatusCode, b, want)
		}
	}
	for _, c := range []struct {
		name, os, arch string
		status         int
		code           string
	}{
		{"windows", "windows", "amd64", 404, codeUnsupportedPlatform},
		{"darwin", "darwin", "arm64", 404, codeUnsupportedPlatform},
		{"32-bit", "linux", "386", 404, codeUnsupportedPlatform},
	} {
		for _, suffix := range []string{"", ".sha256"} {
			resp, err := raw.Get(runnerURL(srv.URL, c.os, c.arch) + suffix)
			if err != nil {
				t.Fatal(err)
			}
			var e runnerproto.Error
			json.NewDecoder(resp.Body).Decode(&e)
			resp.Body.Close()
			if resp.StatusCode != c.status || e.Error.Code != c.code || !strings.Contains(e.Error.Message, "linux/amd64 and linux/arm64") {
				t.Fatalf("%s%s: %d %+v", c.name, suffix, resp.StatusCode, e)
			}
		}
	}
}

// A folder without this version's binary (one left from another version, or
// none at all) serves nothing, and says the operator must install them; a
// gzip copy that is not the binary is never served.
func TestRunnerUnavailable(t *testing.T) {
	linux := runnerbin.Platform{OS: "linux", Arch: "amd64"}
	dir, bodies := runnerDir(t, "v1.0.0", linux) // another version's binaries
	srv, _ := binaryServer(t, dir, false)
	for _, suffix := range []string{"", ".sha256"} {
		resp, err := http.Get(runnerURL(srv.URL, "linux", "amd64") + suffix)
		if err != nil {
			t.Fatal(err)
		}
		var e runnerproto.Error
		json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != 503 || e.Error.Code != codeRunnerUnavailable || !strings.Contains(e.Error.Message, "CHAKSHU_RUNNER_DIR") {
			t.Fatalf("other version%s: %d %+v", suffix, resp.StatusCode, e)
		}
	}

	// A corrupt gzip copy: the binary goes out uncompressed instead.
	dir, bodies = runnerDir(t, servedVersion, linux)
	name := filepath.Join(dir, runnerbin.FileName(servedVersion, linux))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("not the binary"))
	zw.Close()
	os.WriteFile(name+".gz", gz.Bytes(), 0o644)
	srv, _ = binaryServer(t, dir, false)
	req, _ := http.NewRequest(http.MethodGet, runnerURL(srv.URL, "linux", "amd64"), nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(b, bodies[linux]) {
		t.Fatalf("corrupt gzip copy: encoding %q, %d bytes", resp.Header.Get("Content-Encoding"), len(b))
	}
}

// downloadStep is the workflow template's download step script.
func downloadStep(t *testing.T) string {
	t.Helper()
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(action.WorkflowTemplate), &wf); err != nil {
		t.Fatal(err)
	}
	for _, s := range wf.Jobs["review"].Steps {
		if s.Name == "Download chakshu-action from Chakshu" {
			return s.Run
		}
	}
	t.Fatal("the template has no download step")
	return ""
}

// The template's download step, run by bash with curl against the real
// handler over TLS, as on a hosted runner: it saves a verified, executable
// binary, fetching the binary and its SHA-256 over one connection, and prints
// one clear ::error:: line for each failure.
func TestWorkflowDownloadStep(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed (hosted runners have it): %v", tool, err)
		}
	}
	script := downloadStep(t)
	// Shorter waits than on GitHub, same retry logic.
	for _, s := range []string{"--retry 5 --retry-delay 2", "--connect-timeout 10"} {
		if !strings.Contains(script, s) {
			t.Fatalf("the download step lost %q", s)
		}
	}
	script = strings.NewReplacer("--retry 5 --retry-delay 2", "--retry 2 --retry-delay 1", "--connect-timeout 10", "--connect-timeout 2").Replace(script)

	linux, arm := runnerbin.Platform{OS: "linux", Arch: "amd64"}, runnerbin.Platform{OS: "linux", Arch: "arm64"}
	dir, bodies := runnerDir(t, servedVersion, linux, arm)
	srv, conns := binaryServer(t, dir, true)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)

	step := func(t *testing.T, url, runnerOS, arch string) (string, string, error) {
		t.Helper()
		tmp := t.TempDir()
		cmd := exec.Command("bash", "-e", "-c", script)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "RUNNER_TEMP=" + tmp, "RUNNER_OS=" + runnerOS,
			"RUNNER_ARCH=" + arch, "CHAKSHU_URL=" + url, "CURL_CA_BUNDLE=" + caFile}
		out, err := cmd.CombinedOutput()
		return tmp, string(out), err
	}
	for _, c := range []struct {
		arch string
		p    runnerbin.Platform
	}{{"X64", linux}, {"ARM64", arm}} {
		t.Run("ok "+c.arch, func(t *testing.T) {
			before := conns.Load()
			tmp, out, err := step(t, srv.URL+"/", "Linux", c.arch)
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			b, _ := os.ReadFile(filepath.Join(tmp, "chakshu-action"))
			st, _ := os.Stat(filepath.Join(tmp, "chakshu-action"))
			if !bytes.Equal(b, bodies[c.p]) || st.Mode()&0o100 == 0 {
				t.Fatalf("saved %d bytes, mode %v", len(b), st.Mode())
			}
			if n := conns.Load() - before; n != 1 {
				t.Fatalf("binary and checksum came over %d connections, want 1", n)
			}
		})
	}
	t.Run("unsupported runner", func(t *testing.T) {
		for _, p := range [][2]string{{"Windows", "X64"}, {"macOS", "ARM64"}, {"Linux", "ARM"}} {
			_, out, err := step(t, srv.URL, p[0], p[1])
			if err == nil || !strings.Contains(out, "::error::Chakshu's runner is built for Linux on X64 and ARM64, not "+p[0]+"/"+p[1]) {
				t.Fatalf("%v: %v %s", p, err, out)
			}
		}
	})
	t.Run("no CHAKSHU_URL", func(t *testing.T) {
		_, out, err := step(t, "", "Linux", "X64")
		if err == nil || !strings.Contains(out, "::error::Set the repository or organisation variable CHAKSHU_URL") {
			t.Fatalf("%v %s", err, out)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		addr := closedport.Addr(t) // refuses connections
		tmp, out, err := step(t, "https://"+addr, "Linux", "X64")
		if err == nil || !strings.Contains(out, "::error::Could not download chakshu-action from Chakshu at https://"+addr+" (tried 6 times)") {
			t.Fatalf("%v %s", err, out)
		}
		if _, err := os.Stat(filepath.Join(tmp, "chakshu-action")); err == nil && !strings.Contains(out, "::error::") {
			t.Fatal("left a binary behind")
		}
	})
	t.Run("server has no runner", func(t *testing.T) {
		empty, _ := binaryServer(t, t.TempDir(), true)
		_, out, err := step(t, empty.URL, "Linux", "X64")
		if err == nil || !strings.Contains(out, "::error::Could not download chakshu-action") || !strings.Contains(out, codeRunnerUnavailable) {
			t.Fatalf("%v %s", err, out)
		}
	})
	t.Run("checksum mismatch", func(t *testing.T) {
		// The binary is altered after the server hashed it: what arrives is
		// not what the server published.
		tampered := t.TempDir()
		d, _ := runnerDir(t, servedVersion, linux)
		name := runnerbin.FileName(servedVersion, linux)
		b, _ := os.ReadFile(filepath.Join(d, name))
		os.WriteFile(filepath.Join(tampered, name), b, 0o755)
		api := &API{cfg: Config{Version: servedVersion, Runners: runnerbin.New(tampered, servedVersion)}, log: slog.New(slog.DiscardHandler)}
		h := server.Handler(server.Config{Log: slog.New(slog.DiscardHandler), Routes: api.Routes()})
		evil := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/chakshu-action") {
				w.Write(append(b[:len(b)-1:len(b)-1], 'X'))
				return
			}
			h.ServeHTTP(w, r)
		}))
		evil.TLS = srv.TLS
		evil.StartTLS()
		defer evil.Close()
		tmp, out, err := step(t, evil.URL, "Linux", "X64")
		if err == nil || !strings.Contains(out, "::error::chakshu-action from "+evil.URL+" does not match the SHA-256 the server published") {
			t.Fatalf("%v %s", err, out)
		}
		if st, err := os.Stat(filepath.Join(tmp, "chakshu-action")); err == nil && st.Mode()&0o100 != 0 {
			t.Fatal("a binary that failed its check was made executable")
		}
	})
	t.Run("retried", func(t *testing.T) {
		var n atomic.Int64
		h := srv.Config.Handler
		flaky := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				http.Error(w, "busy", http.StatusBadGateway)
				return
			}
			h.ServeHTTP(w, r)
		}))
		flaky.TLS = srv.TLS
		flaky.StartTLS()
		defer flaky.Close()
		tmp, out, err := step(t, flaky.URL, "Linux", "X64")
		if err != nil {
			t.Fatalf("one 502 then success: %v %s", err, out)
		}
		if b, _ := os.ReadFile(filepath.Join(tmp, "chakshu-action")); !bytes.Equal(b, bodies[linux]) {
			t.Fatal("wrong binary after the retry")
		}
	})
}

// A runner of another build without a protocol (or one that does not say
// its version), or of a protocol outside [MinProtocol, Protocol], gets no job,
// with a message naming the fix and both protocols; the run stays dispatched
// for the right runner. A runner of another build that speaks a protocol the
// server serves gets it (a rolling deploy's neighbouring build).
func TestJobRefusesOtherRunnerVersion(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		w.api.cfg.Version = servedVersion
		rn := w.dispatch(run.KindReview)
		for _, req := range []runnerproto.JobRequest{
			{RunnerVersion: ""}, {RunnerVersion: "v9.9.8"}, {RunnerVersion: "v9.9.9-dirty"}, {RunnerVersion: "dev"},
			{RunnerVersion: "v9.9.8", Protocol: runnerproto.Protocol + 1},
			{RunnerVersion: "v9.9.8", Protocol: runnerproto.MinProtocol - 1 - 1},
			{RunnerVersion: servedVersion, Protocol: runnerproto.Protocol + 1},
		} {
			req.RunID = int64(rn.ID)
			var e runnerproto.Error
			st := w.do(runnerproto.PathJob, req, bearer(w.token(rn)), &e)
			if st != 409 || e.Error.Code != codeRunnerVersion || !strings.Contains(e.Error.Message, "chakshu workflow print") ||
				!strings.Contains(e.Error.Message, "Chakshu is "+servedVersion) ||
				!strings.Contains(e.Error.Message, fmt.Sprintf("serves runner protocols %d to %d", runnerproto.MinProtocol, runnerproto.Protocol)) {
				t.Fatalf("runner %+v: %d %+v", req, st, e)
			}
			if req.Protocol != 0 && !strings.Contains(e.Error.Message, fmt.Sprintf("speaking runner protocol %d", req.Protocol)) {
				t.Fatalf("runner %+v: the refusal does not name its protocol: %s", req, e.Error.Message)
			}
			if got := db.Run.GetX(context.Background(), rn.ID); got.Status != run.StatusDispatched || got.RunTokenHash != "" {
				t.Fatalf("runner %+v moved the run to %s", req, got.Status)
			}
		}
		var job runnerproto.Job
		if st := w.do(runnerproto.PathJob, runnerproto.JobRequest{RunID: int64(rn.ID), RunnerVersion: servedVersion}, bearer(w.token(rn)), &job); st != 200 || job.RunToken == "" {
			t.Fatalf("runner of the server's version: %d", st)
		}
		if job.Protocol != runnerproto.Protocol {
			t.Fatalf("job protocol %d, want %d", job.Protocol, runnerproto.Protocol)
		}
		// Another build at each end of the served protocols (each run
		// finished first: one active run per PR, reviewer and head).
		for _, p := range []int{runnerproto.MinProtocol, runnerproto.Protocol} {
			db.Run.Update().SetStatus(run.StatusCancelled).ExecX(context.Background())
			rn := w.dispatch(run.KindReview)
			var job runnerproto.Job
			if st := w.do(runnerproto.PathJob, runnerproto.JobRequest{RunID: int64(rn.ID), RunnerVersion: "v9.9.8", Protocol: p}, bearer(w.token(rn)), &job); st != 200 || job.RunToken == "" {
				t.Fatalf("runner of another build speaking protocol %d: %d", p, st)
			}
		}
	})
}
