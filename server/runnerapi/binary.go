package runnerapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/runnerbin"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/server"
)

// Error codes of the runner download and the version check.
const (
	codeUnsupportedPlatform = "unsupported_platform"
	codeRunnerUnavailable   = "runner_unavailable"
	codeRunnerVersion       = "runner_version"
)

// runnerFor resolves {os}/{arch} to a servable binary, answering the caller
// itself (and returning nil) when there is none.
func (a *API) runnerFor(w http.ResponseWriter, r *http.Request) *runnerbin.Binary {
	p := runnerbin.ParsePlatform(r.PathValue("os"), r.PathValue("arch"))
	if !runnerbin.Supported(p) {
		var names []string
		for _, q := range runnerbin.Platforms {
			names = append(names, q.String())
		}
		server.WriteError(w, http.StatusNotFound, codeUnsupportedPlatform,
			fmt.Sprintf("Chakshu serves chakshu-action for %s, not %s", strings.Join(names, " and "), p))
		return nil
	}
	b, err := a.cfg.Runners.Get(p)
	if err != nil {
		// Logged with the folder for the operator; the caller learns only
		// that this server cannot hand out its runner.
		a.log.Error("runner binary unavailable", "platform", p.String(), "dir", a.cfg.Runners.Dir(), "err", err)
		msg := "this Chakshu server has no runner binary for " + p.String() + " (its operator must install them: `make build`, the container image, or CHAKSHU_RUNNER_DIR)"
		if !errors.Is(err, runnerbin.ErrMissing) {
			msg = "this Chakshu server cannot read its runner binary for " + p.String()
		}
		server.WriteError(w, http.StatusServiceUnavailable, codeRunnerUnavailable, msg)
		return nil
	}
	return b
}

// handleRunner serves chakshu-action of this server's version: the gzip copy
// (Content-Encoding: gzip) to clients that accept it, else the binary. Its
// SHA-256 (of the uncompressed bytes) is in HeaderRunnerSHA256 and at
// PathRunnerSHA256.
func (a *API) handleRunner(w http.ResponseWriter, r *http.Request) {
	b := a.runnerFor(w, r)
	if b == nil {
		return
	}
	path := b.Path
	h := w.Header()
	h.Set("Vary", "Accept-Encoding")
	if b.GzPath != "" && server.AcceptsGzip(r) {
		path = b.GzPath
		h.Set("Content-Encoding", "gzip")
	}
	f, err := os.Open(path)
	if err != nil {
		a.log.Error("open runner binary", "path", path, "err", err)
		server.WriteError(w, http.StatusServiceUnavailable, codeRunnerUnavailable, "this Chakshu server cannot read its runner binary for "+b.Platform.String())
		return
	}
	defer f.Close()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Disposition", `attachment; filename="chakshu-action"`)
	h.Set("Cache-Control", "no-cache") // the URL names no version: revalidate (ETag) after an upgrade
	etag := b.SHA256
	if h.Get("Content-Encoding") == "gzip" {
		etag += "-gz"
	}
	h.Set("ETag", `"`+etag+`"`)
	h.Set(runnerproto.HeaderRunnerSHA256, b.SHA256)
	h.Set("X-Chakshu-Version", a.cfg.Version)
	http.ServeContent(w, r, "", b.ModTime, f)
}

// handleRunnerSHA256 answers the served binary's SHA-256 in sha256sum's
// format ("<hex>  chakshu-action").
func (a *API) handleRunnerSHA256(w http.ResponseWriter, r *http.Request) {
	b := a.runnerFor(w, r)
	if b == nil {
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Chakshu-Version", a.cfg.Version)
	fmt.Fprint(w, runnerbin.ChecksumLine(b.SHA256))
}

// runnerCompatible reports whether the server hands a job to the runner of
// req (runnerproto.Protocol says the rule): a runner of a protocol this
// server speaks, or, without a protocol, of this very build.
func runnerCompatible(req runnerproto.JobRequest, serverVersion string) bool {
	if req.Protocol == 0 {
		return req.RunnerVersion == serverVersion
	}
	return req.Protocol >= runnerproto.MinProtocol && req.Protocol <= runnerproto.Protocol
}

// refuseVersion answers a job request from a runner this server does not
// serve. The run stays dispatched: the failed workflow run then fails it (or
// the stale sweep does), and triggering the review again dispatches a
// workflow that downloads this server's runner.
func (a *API) refuseVersion(w http.ResponseWriter, log *slog.Logger, req runnerproto.JobRequest) {
	got := req.RunnerVersion
	if got == "" {
		got = "of an unknown version (one that does not send it)"
	}
	proto := "no runner protocol"
	if req.Protocol != 0 {
		proto = fmt.Sprintf("runner protocol %d", req.Protocol)
	}
	log.Warn("job: runner of another version refused", "runner_version", got, "runner_protocol", req.Protocol,
		"version", a.cfg.Version, "protocol", runnerproto.Protocol)
	server.WriteError(w, http.StatusConflict, codeRunnerVersion, fmt.Sprintf(
		"this runner is chakshu-action %s speaking %s but Chakshu is %s and serves runner protocols %d to %d: the workflow must run the chakshu-action Chakshu serves. "+
			"Replace .github/workflows/chakshu.yml on the default branch with the output of `chakshu workflow print` "+
			"(it downloads the runner from Chakshu), then trigger the review again; if you build the runner from source, build it at Chakshu's version %s",
		got, proto, a.cfg.Version, runnerproto.MinProtocol, runnerproto.Protocol, a.cfg.Version))
}
