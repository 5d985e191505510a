package server

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"time"

	"github.com/chakshu-dev/chakshu/internal/logging"
)

// RequestIDHeader carries a request's id: taken from the request when a
// proxy set a well-formed one, otherwise made here; always answered.
const RequestIDHeader = "X-Request-Id"

var requestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// accessLog logs one line per request after it is served, in the process's
// slog format: method, route (the mux pattern that matched, never the raw
// path, which may carry ids or tokens), status, duration_ms, request_id. The
// request's context carries a logger with request_id for handlers.
func accessLog(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get(RequestIDHeader)
		if !requestID.MatchString(id) {
			b := make([]byte, 8)
			_, _ = rand.Read(b)
			id = hex.EncodeToString(b)
		}
		w.Header().Set(RequestIDHeader, id)
		rl := log.With("request_id", id)
		r = r.WithContext(logging.With(r.Context(), rl))
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			if sw.hijacked {
				status = http.StatusSwitchingProtocols
			}
			rl.Info("http request", "method", r.Method, "route", route, "status", status,
				"duration_ms", time.Since(start).Milliseconds())
		}()
		next.ServeHTTP(sw, r)
	})
}

// statusWriter remembers the status written. It passes Flush and Hijack on
// (model streams, WebSockets) and unwraps for http.ResponseController.
type statusWriter struct {
	http.ResponseWriter
	status   int
	hijacked bool
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("hijack not supported")
	}
	w.hijacked = true
	return h.Hijack()
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
