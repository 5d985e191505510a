package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

// DownloadConfig is one download of the served runner.
type DownloadConfig struct {
	// ServerURL is Chakshu's URL (the workflow's CHAKSHU_URL).
	ServerURL string
	// Dir receives chakshu-action (RUNNER_TEMP).
	Dir string
	// Log is the Actions log.
	Log io.Writer
	// GOOS and GOARCH pick the platform; empty means this machine's.
	GOOS, GOARCH string
	// Attempts and Backoff bound retries (defaults 6 and 200 ms, as the
	// template's curl --retry 5).
	Attempts int
	Backoff  time.Duration
	// HTTPClient downloads; nil means a client with a 5-minute timeout.
	HTTPClient *http.Client
}

// RunnerArch is RUNNER_ARCH on a hosted runner of this machine's architecture.
func RunnerArch() string {
	switch runtime.GOARCH {
	case "amd64":
		return "X64"
	case "arm64":
		return "ARM64"
	}
	return strings.ToUpper(runtime.GOARCH)
}

// DownloadRunner does what the workflow template's download step does: GET
// chakshu-action and its SHA-256 from Chakshu with one client (so over one
// kept-alive connection), retrying failures, check the digest and make the
// file executable. It prints the template's ::error:: line for each failure
// to the log and returns the binary's path.
func DownloadRunner(ctx context.Context, c DownloadConfig) (string, error) {
	if c.GOOS == "" {
		c.GOOS, c.GOARCH = runtime.GOOS, runtime.GOARCH
	}
	if c.Attempts <= 0 {
		c.Attempts = 6
	}
	if c.Backoff <= 0 {
		c.Backoff = 200 * time.Millisecond
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: 5 * time.Minute}
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	fail := func(msg string, err error) (string, error) {
		fmt.Fprintln(c.Log, "::error::"+msg)
		return "", fmt.Errorf("download chakshu-action: %w", err)
	}
	if c.GOOS != "linux" || (c.GOARCH != "amd64" && c.GOARCH != "arm64") {
		return fail(fmt.Sprintf("Chakshu's runner is built for Linux on X64 and ARM64, not %s/%s: use runs-on: ubuntu-latest (or ubuntu-24.04-arm).", c.GOOS, c.GOARCH),
			fmt.Errorf("unsupported platform %s/%s", c.GOOS, c.GOARCH))
	}
	base := strings.TrimRight(c.ServerURL, "/") + strings.NewReplacer("{os}", c.GOOS, "{arch}", c.GOARCH).Replace(runnerproto.PathRunner)
	bin := filepath.Join(c.Dir, "chakshu-action")
	fmt.Fprintf(c.Log, "Downloading %s\n", base)
	var sum, want string
	var last error
	for attempt := range c.Attempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return fail("Could not download chakshu-action from Chakshu at "+c.ServerURL+": cancelled.", ctx.Err())
			case <-time.After(c.Backoff):
			}
		}
		sum, last = fetchTo(ctx, c.HTTPClient, base, bin)
		if last != nil {
			continue
		}
		var line string
		line, last = fetchText(ctx, c.HTTPClient, base+".sha256")
		if last != nil {
			continue
		}
		want, _, _ = strings.Cut(strings.TrimSpace(line), " ")
		break
	}
	if last != nil {
		return fail(fmt.Sprintf("Could not download chakshu-action from Chakshu at %s (tried %d times): check that CHAKSHU_URL is right and that the server is up and reachable from this runner. %s",
			c.ServerURL, c.Attempts, oneLine(last.Error())), last)
	}
	if !strings.EqualFold(sum, want) {
		os.Remove(bin)
		return fail("chakshu-action from "+c.ServerURL+" does not match the SHA-256 the server published: the download was corrupted or altered on the way. Nothing was run; trigger the review again.",
			fmt.Errorf("sha256 %s, published %q", sum, want))
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		return "", err
	}
	fmt.Fprintf(c.Log, "chakshu-action: sha256 %s verified\n", sum)
	return bin, nil
}

// fetchTo saves url's body to path and returns its SHA-256 (hex). The
// client's transport asks for gzip and decompresses, as curl --compressed.
func fetchTo(ctx context.Context, hc *http.Client, url, path string) (string, error) {
	resp, err := get(ctx, hc, url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(f, h), resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", url, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func fetchText(ctx context.Context, hc *http.Client, url string) (string, error) {
	resp, err := get(ctx, hc, url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", url, err)
	}
	return string(b), nil
}

func get(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: HTTP %d: Chakshu answered: %s", url, resp.StatusCode, oneLine(string(b)))
	}
	return resp, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
