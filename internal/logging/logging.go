// Package logging sets up log/slog for Chakshu and carries a logger in a context.
package logging

import (
	"context"
	"io"
	"log/slog"
	"os"

	"github.com/chakshu-dev/chakshu/internal/redact"
)

// New returns a logger at level ("debug"…"error") in format ("json", "text",
// or "" for JSON unless w is a terminal). Every string value is redacted.
func New(w io.Writer, level, format string) *slog.Logger {
	var lv slog.Level
	lv.UnmarshalText([]byte(level)) //nolint:errcheck
	if format == "" {
		format = "json"
		if f, ok := w.(*os.File); ok && isTerminal(f) {
			format = "text"
		}
	}
	opts := &slog.HandlerOptions{Level: lv, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		switch a.Value.Kind() {
		case slog.KindString:
			a.Value = slog.StringValue(redact.String(a.Value.String()))
		case slog.KindAny:
			if err, ok := a.Value.Any().(error); ok {
				a.Value = slog.StringValue(redact.Error(err))
			}
		}
		return a
	}}
	var h slog.Handler
	if format == "text" {
		h = slog.NewTextHandler(w, opts)
	} else {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(h)
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

type ctxKey struct{}

// With returns ctx carrying log.
func With(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, ctxKey{}, log)
}

// From returns the logger in ctx, or slog.Default().
func From(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(ctxKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// Add returns ctx carrying its logger with args (key-value pairs) added: a
// unit of work names what it learns (the PR, the reviewer) once, and every
// log line below carries it.
func Add(ctx context.Context, args ...any) context.Context {
	return With(ctx, From(ctx).With(args...))
}
