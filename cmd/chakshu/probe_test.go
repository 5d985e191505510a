package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

func TestProbe(t *testing.T) {
	var draining atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/healthz":
		case r.URL.Path == "/readyz" && !draining.Load():
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	ctx := context.Background()
	// As in the image: the listener on every interface, asked on loopback.
	t.Setenv("CHAKSHU_INTERNAL_ADDR", "0.0.0.0:"+port)
	var out, errb bytes.Buffer
	if err := run(ctx, []string{"probe"}, &out, &errb); err != nil || !strings.Contains(out.String(), "127.0.0.1:"+port+"/readyz: 200") {
		t.Fatalf("ready: %v %q", err, out.String())
	}
	draining.Store(true)
	if err := run(ctx, []string{"probe"}, &out, &errb); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("draining: %v", err)
	}
	if err := run(ctx, []string{"probe", "--live"}, &out, &errb); err != nil {
		t.Fatalf("alive while draining: %v", err)
	}
	if err := run(ctx, []string{"probe", "--ready"}, &out, &errb); err != errUsage {
		t.Fatalf("unknown flag: %v", err)
	}
	srv.Close()
	if err := run(ctx, []string{"probe"}, &out, &errb); err == nil {
		t.Fatal("a closed listener answered")
	}
	t.Setenv("CHAKSHU_INTERNAL_ADDR", "9090")
	if err := run(ctx, []string{"probe"}, &out, &errb); err == nil || !strings.Contains(err.Error(), "host:port") {
		t.Fatalf("bad address: %v", err)
	}
}
