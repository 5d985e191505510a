package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/chakshu-dev/chakshu/internal/config"
)

const probeUsage = `Usage: chakshu probe [--live]

Asks this process's internal listener (CHAKSHU_INTERNAL_ADDR) for /readyz, or
/healthz with --live, and exits 0 on 200: a container health check for an
image with no shell or curl.`

// probeCmd asks this process's internal listener (CHAKSHU_INTERNAL_ADDR) for
// /readyz, or /healthz with --live: a container health check for an image
// with no shell or curl. A wildcard host (0.0.0.0, ::) is asked on loopback.
func probeCmd(ctx context.Context, args []string, stdout, _ io.Writer) error {
	path := "/readyz"
	switch {
	case len(args) == 1 && (args[0] == "--help" || args[0] == "-h"):
		fmt.Fprintln(stdout, probeUsage)
		return nil
	case len(args) == 1 && args[0] == "--live":
		path = "/healthz"
	case len(args) != 0:
		return errUsage
	}
	look, err := config.FromEnv()
	if err != nil {
		return err
	}
	addr, ok := look("CHAKSHU_INTERNAL_ADDR")
	if !ok || addr == "" {
		addr = config.DefaultInternalAddr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("CHAKSHU_INTERNAL_ADDR: want host:port, got %q", addr)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	url := "http://" + net.JoinHostPort(host, port) + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("probe %s: %w", url, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("probe %s: %s", url, resp.Status)
	}
	fmt.Fprintf(stdout, "%s: %s\n", url, resp.Status)
	return nil
}
