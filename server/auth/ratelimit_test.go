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

	"github.com/chakshu-dev/chakshu/ent/apitoken"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// limitEnv is Auth's middleware over a real database with two API tokens
// and a clock the test moves. h is one web process; another (web) shares
// the database with it, as a second `chakshu web` would.
type limitEnv struct {
	t       *testing.T
	db      *store.DB
	h       http.Handler
	tokA    string
	tokB    string
	mu      sync.Mutex
	now     time.Time
	reached int // requests the wrapped handlers saw
	rate    [2]int
}

func newLimitEnv(t *testing.T, db *store.DB, perMinute, burst int) *limitEnv {
	t.Helper()
	ctx := context.Background()
	e := &limitEnv{t: t, db: db, now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), rate: [2]int{perMinute, burst}}
	u := db.User.Create().SetGithubID(7).SetLogin("dash").SaveX(ctx)
	for _, tok := range []*string{&e.tokA, &e.tokB} {
		*tok = NewToken()
		db.APIToken.Create().SetName("dash").SetTokenHash(HashToken(*tok)).SetPrefix(TokenDisplayPrefix(*tok)).
			SetOwner(u).SaveX(ctx)
	}
	e.h = e.web()
	return e
}

// web is one web process: its own Auth over the shared database.
func (e *limitEnv) web() http.Handler {
	e.t.Helper()
	key := make([]byte, 32)
	rand.Read(key) //nolint:errcheck
	cfg := &config.Config{
		SharedPart: config.SharedPart{PublicURL: "http://127.0.0.1:1", GitHubURL: "http://127.0.0.1:1/", SecretKey: key},
		WebPart:    config.WebPart{APITokenRate: e.rate[0], APITokenBurst: e.rate[1]},
	}
	a, err := New(Config{DB: e.db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Settings: SettingsFrom(cfg.SharedPart, cfg.WebPart),
		Now: func() time.Time { e.mu.Lock(); defer e.mu.Unlock(); return e.now }})
	if err != nil {
		e.t.Fatal(err)
	}
	return a.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.reached++
		e.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
}

func (e *limitEnv) advance(d time.Duration) { e.mu.Lock(); e.now = e.now.Add(d); e.mu.Unlock() }

// get makes one request with token tok ("" for none) to the first web
// process and returns the recorder.
func (e *limitEnv) get(tok string) *httptest.ResponseRecorder { return e.getFrom(e.h, tok) }

// getFrom makes one request with token tok to web process h.
func (e *limitEnv) getFrom(h http.Handler, tok string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "/graphql", nil) // GET: no CSRF check for the cookie-less case
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
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

// TestTokenRateLimitSharedByWebProcesses: two web processes on one
// database allow one token its burst between them, not a burst each; the
// refill is shared too, and an admitted request records the token's use.
func TestTokenRateLimitSharedByWebProcesses(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		const burst = 3
		e := newLimitEnv(t, db, 60, burst) // one request per second refills
		webs := []http.Handler{e.h, e.web()}
		for i := range burst {
			if w := e.getFrom(webs[i%2], e.tokA); w.Code != http.StatusOK {
				t.Fatalf("request %d of %d (web %d): %d %s", i+1, burst, i%2+1, w.Code, w.Body)
			}
		}
		for i, h := range webs {
			w := e.getFrom(h, e.tokA)
			if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
				t.Errorf("web %d past the shared burst: %d Retry-After %q, want 429 and 1", i+1, w.Code, w.Header().Get("Retry-After"))
			}
		}
		e.advance(time.Second)
		if w := e.getFrom(webs[1], e.tokA); w.Code != http.StatusOK {
			t.Errorf("web 2 after the refill: %d, want 200", w.Code)
		}
		if w := e.getFrom(webs[0], e.tokA); w.Code != http.StatusTooManyRequests {
			t.Errorf("web 1 after web 2 took the refill: %d, want 429", w.Code)
		}
		if e.reached != burst+1 {
			t.Errorf("handlers reached %d times, want %d", e.reached, burst+1)
		}
		tok := db.APIToken.Query().Where(apitoken.TokenHash(HashToken(e.tokA))).OnlyX(context.Background())
		if tok.LastUsedAt == nil || !tok.LastUsedAt.Equal(e.now) {
			t.Errorf("last used at %v, want %v", tok.LastUsedAt, e.now)
		}
	})
}

// TestTokenRateLimitConcurrent: requests racing through two web processes
// spend the shared bucket by compare-and-swap: exactly burst of them pass.
func TestTokenRateLimitConcurrent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		const burst, requests = 5, 16
		e := newLimitEnv(t, db, 1, burst) // no refill within the test
		webs := []http.Handler{e.h, e.web()}
		var wg sync.WaitGroup
		codes := make([]int, requests)
		for i := range requests {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = e.getFrom(webs[i%2], e.tokA).Code
			}()
		}
		wg.Wait()
		passed := 0
		for i, c := range codes {
			switch c {
			case http.StatusOK:
				passed++
			case http.StatusTooManyRequests:
			default:
				t.Errorf("request %d: %d", i, c)
			}
		}
		if passed != burst || e.reached != burst {
			t.Errorf("%d passed (%d reached the handler), want exactly %d", passed, e.reached, burst)
		}
	})
}
