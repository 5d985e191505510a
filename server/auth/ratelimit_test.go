package auth

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// limitEnv is Auth's middleware over a real database with two API tokens
// and a clock the test moves.
type limitEnv struct {
	t       *testing.T
	h       http.Handler
	tokA    string
	tokB    string
	mu      sync.Mutex
	now     time.Time
	reached int // requests the wrapped handler saw
	rateCfg [2]int
}

func newLimitEnv(t *testing.T, db *store.DB, perMinute, burst int) *limitEnv {
	t.Helper()
	ctx := context.Background()
	e := &limitEnv{t: t, now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	key := make([]byte, 32)
	rand.Read(key) //nolint:errcheck
	cfg := &config.Config{PublicURL: "http://127.0.0.1:1", GitHubURL: "http://127.0.0.1:1/", SecretKey: key,
		APITokenRate: perMinute, APITokenBurst: burst}
	a, err := New(Config{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Config: cfg,
		Now: func() time.Time { e.mu.Lock(); defer e.mu.Unlock(); return e.now }})
	if err != nil {
		t.Fatal(err)
	}
	u := db.User.Create().SetGithubID(7).SetLogin("dash").SaveX(ctx)
	for _, tok := range []*string{&e.tokA, &e.tokB} {
		*tok = NewToken()
		db.APIToken.Create().SetName("dash").SetTokenHash(HashToken(*tok)).SetPrefix(TokenDisplayPrefix(*tok)).
			SetOwner(u).SaveX(ctx)
	}
	e.h = a.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.reached++
		e.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	return e
}

func (e *limitEnv) advance(d time.Duration) { e.mu.Lock(); e.now = e.now.Add(d); e.mu.Unlock() }

// get makes one request with token tok ("" for none) and returns the recorder.
func (e *limitEnv) get(tok string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "/graphql", nil) // GET: no CSRF check for the cookie-less case
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, req)
	return w
}

// TestTokenRateLimit: with burst N, N requests of one token pass at once and
// the N+1st is refused with 429, Retry-After and RATE_LIMITED in both error
// shapes; the refill lets one more through; another token and sessions are
// not affected.
func TestTokenRateLimit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		const burst = 3
		e := newLimitEnv(t, db, 60, burst) // one request per second refills
		for i := 1; i <= burst; i++ {
			if w := e.get(e.tokA); w.Code != http.StatusOK {
				t.Fatalf("request %d of %d: %d %s", i, burst, w.Code, w.Body)
			}
		}
		w := e.get(e.tokA)
		if w.Code != http.StatusTooManyRequests {
			t.Fatalf("request %d: %d, want 429", burst+1, w.Code)
		}
		if got := w.Header().Get("Retry-After"); got != "1" {
			t.Errorf("Retry-After = %q, want 1", got)
		}
		var body struct {
			Error  struct{ Code string }
			Errors []struct {
				Message    string
				Extensions struct {
					Code              string
					RetryAfterSeconds int
				}
			}
		}
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		if body.Error.Code != CodeRateLimited || len(body.Errors) != 1 || body.Errors[0].Extensions.Code != CodeRateLimited ||
			body.Errors[0].Extensions.RetryAfterSeconds != 1 {
			t.Errorf("body %s", w.Body)
		}
		if e.reached != burst {
			t.Errorf("handler reached %d times, want %d", e.reached, burst)
		}
		// Refused requests do not use up the allowance: still 1 s to wait.
		e.advance(999 * time.Millisecond)
		if w := e.get(e.tokA); w.Code != http.StatusTooManyRequests {
			t.Errorf("after 999 ms: %d, want 429", w.Code)
		}
		e.advance(time.Millisecond)
		if w := e.get(e.tokA); w.Code != http.StatusOK {
			t.Errorf("after 1 s: %d, want 200", w.Code)
		}
		if w := e.get(e.tokA); w.Code != http.StatusTooManyRequests {
			t.Errorf("second after 1 s: %d, want 429", w.Code)
		}
		// The other token has its own bucket; requests without a token (sessions) are not limited.
		for i := 1; i <= burst; i++ {
			if w := e.get(e.tokB); w.Code != http.StatusOK {
				t.Errorf("token B request %d: %d", i, w.Code)
			}
		}
		for i := 0; i < 10; i++ {
			if w := e.get(""); w.Code != http.StatusOK {
				t.Errorf("anonymous request %d: %d", i, w.Code)
			}
		}
	})
}

// TestTokenRateLimitOff: CHAKSHU_API_TOKEN_RATE=0 turns the limit off.
func TestTokenRateLimitOff(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newLimitEnv(t, db, 0, 1)
		for i := 0; i < 20; i++ {
			if w := e.get(e.tokA); w.Code != http.StatusOK {
				t.Fatalf("request %d: %d", i, w.Code)
			}
		}
	})
}

// TestRetryAfterRoundsUp: a wait of a fraction of a second is "1", 2.1 s is "3".
func TestRetryAfterRoundsUp(t *testing.T) {
	for wait, want := range map[time.Duration]string{time.Millisecond: "1", time.Second: "1", 2100 * time.Millisecond: "3"} {
		w := httptest.NewRecorder()
		rateLimited(w, wait)
		if got := w.Header().Get("Retry-After"); got != want || w.Code != http.StatusTooManyRequests {
			t.Errorf("wait %v: Retry-After %q status %d, want %q 429", wait, got, w.Code, want)
		}
	}
}

// TestTokenBucketsPruned: past tokenBucketsKept buckets, full ones are dropped.
func TestTokenBucketsPruned(t *testing.T) {
	l := newTokenLimits(60, 2)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for id := 0; id < tokenBucketsKept; id++ {
		l.wait(id, now)
	}
	if len(l.byID) != tokenBucketsKept {
		t.Fatalf("%d buckets", len(l.byID))
	}
	l.wait(-1, now.Add(2*time.Second)) // every old bucket has refilled
	if len(l.byID) != 1 {
		t.Errorf("after prune: %d buckets, want 1", len(l.byID))
	}
}
