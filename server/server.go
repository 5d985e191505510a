// Package server is Chakshu's HTTP front: it mounts the webhook intake, the
// runner API, GraphQL, login and the portal, and serves health and metrics.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Route is one handler mounted on the server's mux (Go 1.22 patterns).
type Route struct {
	Pattern string
	Handler http.Handler
}

// Config builds a Server.
type Config struct {
	// Log receives the access log and errors; nil discards.
	Log *slog.Logger
	// Ready reports whether the process can serve (database reachable).
	// Ignored when Health is set.
	Ready func(ctx context.Context) error
	// Health answers /healthz and /readyz; nil builds one from Ready.
	Health *Health
	// Routes are mounted as given.
	Routes []Route
	// Registry, when set, is also served at /metrics on this handler. The
	// processes serve metrics on the internal listener only (Internal).
	Registry prometheus.Gatherer
}

// Health answers liveness and readiness. Readiness is 503 until Started,
// after Drain (at once on SIGTERM, while in-flight requests finish), and
// whenever Ready fails.
type Health struct {
	ready             func(ctx context.Context) error
	started, draining atomic.Bool
}

// NewHealth returns a Health that is not started yet. ready may be nil.
func NewHealth(ready func(ctx context.Context) error) *Health {
	return &Health{ready: ready}
}

// Start marks the process as serving.
func (h *Health) Start() { h.started.Store(true) }

// Drain turns readiness to 503 for good.
func (h *Health) Drain() { h.draining.Store(true) }

func (h *Health) routes(log *slog.Logger) []Route {
	return []Route{
		{Pattern: "GET /healthz", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		})},
		{Pattern: "GET /readyz", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case h.draining.Load():
				WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
				return
			case !h.started.Load():
				WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "starting"})
				return
			}
			if h.ready != nil {
				ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
				defer cancel()
				if err := h.ready(ctx); err != nil {
					log.Warn("not ready", "err", err)
					WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
					return
				}
			}
			WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
		})},
	}
}

// Handler returns the mux with health, readiness, the routes (and metrics
// when cfg.Registry is set), every request logged (accesslog.go).
func Handler(cfg Config) http.Handler {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	hl := cfg.Health
	if hl == nil {
		hl = NewHealth(cfg.Ready)
		hl.Start()
	}
	mux := http.NewServeMux()
	for _, r := range hl.routes(cfg.Log) {
		mux.Handle(r.Pattern, r.Handler)
	}
	if cfg.Registry != nil {
		mux.Handle("GET /metrics", promhttp.HandlerFor(cfg.Registry, promhttp.HandlerOpts{}))
	}
	for _, r := range cfg.Routes {
		mux.Handle(r.Pattern, r.Handler)
	}
	return accessLog(cfg.Log, recoverer(cfg.Log, mux))
}

// InternalConfig builds the internal listener's handler.
type InternalConfig struct {
	Log      *slog.Logger
	Health   *Health
	Registry prometheus.Gatherer
}

// Internal is what every process serves on CHAKSHU_INTERNAL_ADDR: /metrics,
// /healthz and /readyz, and nothing a user reaches. Scrapes and probes are
// not access-logged (one line every few seconds says nothing).
func Internal(cfg InternalConfig) http.Handler {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	mux := http.NewServeMux()
	for _, r := range cfg.Health.routes(cfg.Log) {
		mux.Handle(r.Pattern, r.Handler)
	}
	mux.Handle("GET /metrics", promhttp.HandlerFor(cfg.Registry, promhttp.HandlerOpts{}))
	return recoverer(cfg.Log, mux)
}

// DefaultDrain is Serve's drain when none is given.
const DefaultDrain = 15 * time.Second

// Serve listens on ln until ctx ends, then drains for up to DefaultDrain.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger) error {
	return ServeDrain(ctx, ln, h, log, DefaultDrain)
}

// ServeDrain listens on ln until ctx ends, then stops accepting and gives
// the requests in flight (a relayed model stream may last minutes) up to
// drain to finish; what is still open then is closed.
func ServeDrain(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger, drain time.Duration) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		if !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		log.Warn("drain timeout: closing the requests still in flight", "addr", ln.Addr().String(), "drain", drain.String())
		srv.Close() //nolint:errcheck
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// AcceptsGzip reports whether the request takes a gzip-encoded body
// (Accept-Encoding names gzip without q=0).
func AcceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			return strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0"
		}
	}
	return false
}

// WriteJSON writes v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v) //nolint:errcheck
}

// ErrorBody is the one JSON shape every Chakshu HTTP error takes.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail carries a machine code and a safe message.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// WriteError writes the common error shape. message must be safe to show.
func WriteError(w http.ResponseWriter, status int, code, message string) {
	WriteJSON(w, status, ErrorBody{Error: ErrorDetail{Code: code, Message: message}})
}

func recoverer(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.Error("panic serving request", "path", r.URL.Path, "panic", v)
				WriteError(w, http.StatusInternalServerError, "internal", "internal error")
			}
		}()
		next.ServeHTTP(w, r)
	})
}
