package security

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/server/webhook"
)

func webhookHandler(t *testing.T, db *store.DB, mut func(*webhook.Config)) *webhook.Handler {
	t.Helper()
	cfg := webhook.Config{DB: db, Secrets: []string{"s3cret"}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if mut != nil {
		mut(&cfg)
	}
	h, err := webhook.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

// TestWebhookBodyBeforeSignature: an unsigned request that claims a 24 MB
// Content-Length and sends a few bytes makes the intake allocate about what
// it read, not what it claimed (before the signature can be checked,
// nothing else is known about the sender); a body over GitHub's 25 MB is
// refused unread.
func TestWebhookBodyBeforeSignature(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		h := webhookHandler(t, db, nil)
		const claimed = 24 << 20
		alloc := func() uint64 {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for range 4 {
				req := httptest.NewRequest(http.MethodPost, "/webhooks/github", io.LimitReader(strings.NewReader(strings.Repeat("x", 1000)), 1000))
				req.ContentLength = claimed
				req.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("0", 64))
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code < 400 {
					t.Fatalf("a short unsigned body answered %d", rec.Code)
				}
			}
			runtime.ReadMemStats(&after)
			return after.TotalAlloc - before.TotalAlloc
		}
		if got := alloc(); got > 4<<20 {
			t.Errorf("4 unsigned requests claiming %d MB each allocated %d MB", claimed>>20, got>>20)
		}

		// Over the cap: 413 without reading.
		req := httptest.NewRequest(http.MethodPost, "/webhooks/github", strings.NewReader("{}"))
		req.ContentLength = webhook.MaxBody + 1
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusRequestEntityTooLarge {
			t.Errorf("Content-Length over 25 MB: %d", rec.Code)
		}
		// A body that turns out longer than the cap while read is refused too.
		req = httptest.NewRequest(http.MethodPost, "/webhooks/github", bytes.NewReader(make([]byte, webhook.MaxBody+1)))
		req.ContentLength = -1
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusRequestEntityTooLarge {
			t.Errorf("a chunked body over 25 MB: %d", rec.Code)
		}
	})
}

// TestWebhookBodiesInFlightCapped: with MaxInFlight bodies being read (slow
// senders), one more request waits briefly and is answered 503 with
// Retry-After, unread; at the cap itself a request is still served.
func TestWebhookBodiesInFlightCapped(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		const limit = 3
		h := webhookHandler(t, db, func(c *webhook.Config) { c.MaxInFlight = limit; c.InFlightWait = 50 * time.Millisecond })
		var writers []*io.PipeWriter
		var wg sync.WaitGroup
		codes := make(chan int, limit+2)
		slow := func() {
			pr, pw := io.Pipe()
			writers = append(writers, pw)
			req := httptest.NewRequest(http.MethodPost, "/webhooks/github", pr)
			req.ContentLength = -1
			wg.Add(1)
			go func() {
				defer wg.Done()
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				codes <- rec.Code
			}()
			_, _ = pw.Write([]byte("{")) // the handler is now reading this body
		}
		quick := func() *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, "/webhooks/github", strings.NewReader("{}"))
			req.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("0", 64))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		for range limit - 1 {
			slow()
		}
		// N-1 in flight: the N-th is served (its bad signature is refused).
		if rec := quick(); rec.Code != http.StatusUnauthorized {
			t.Errorf("at %d bodies in flight: %d, want 401", limit-1, rec.Code)
		}
		slow()
		// N in flight: the N+1-th is turned away.
		rec := quick()
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
			t.Errorf("at %d bodies in flight: %d (Retry-After %q), want 503 with Retry-After", limit, rec.Code, rec.Header().Get("Retry-After"))
		}
		for _, pw := range writers {
			_ = pw.Close()
		}
		wg.Wait()
		// Once they are done, requests are served again.
		if rec := quick(); rec.Code != http.StatusUnauthorized {
			t.Errorf("after the slow bodies ended: %d, want 401", rec.Code)
		}
	})
}
