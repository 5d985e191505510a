package runnerapi

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/ghsim"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

func TestLimiter(t *testing.T) {
	l := newLimiter(1000, 3)
	for i := 0; i < 3; i++ {
		if !l.allow("a") {
			t.Fatalf("request %d refused within the burst", i)
		}
	}
	if l.allow("a") {
		t.Fatal("request past the burst allowed")
	}
	if !l.allow("b") {
		t.Fatal("another token shares the bucket")
	}
	time.Sleep(5 * time.Millisecond) // 1000/s refills
	if !l.allow("a") {
		t.Fatal("bucket did not refill")
	}
}

func TestGatewayCapAndRateLimitThroughAPI(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		rn := w.dispatch(run.KindReview)
		db.Run.UpdateOne(rn).SetMaxCostUsd(0.0025).ExecX(ctx) // one answer (1000 in + 100 out on Sonnet 5.5) costs $0.003
		st, job, e := w.fetchJob(rn, w.token(rn))
		if st != 200 {
			t.Fatalf("job: %d %+v", st, e)
		}
		if job.MaxCostUSD != 0.0025 {
			t.Fatalf("job cap %v", job.MaxCostUSD)
		}
		path := runPath(runnerproto.PathModel, rn.ID) + "/v1/messages"
		msg := `{"model":"claude-sonnet-5-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
		hdr := map[string]string{"Authorization": "Bearer " + job.RunToken}
		if st := w.do(path, msg, hdr, nil); st != 200 {
			t.Fatalf("first: %d", st)
		}
		var eb runnerproto.Error
		if st := w.do(path, msg, hdr, &eb); st != 429 || eb.Error.Code != "cost_cap_reached" {
			t.Fatalf("past the cap: %d %+v", st, eb)
		}
		hdr["X-Chakshu-Final"] = "1"
		if st := w.do(path, msg, hdr, nil); st != 200 {
			t.Fatalf("final: %d", st)
		}
		if st := w.do(path, msg, hdr, nil); st != 429 {
			t.Fatalf("second final: %d", st)
		}

		// Rate limit per run token.
		api, err := New(Config{DB: db, Log: slog.New(slog.DiscardHandler), GitHub: w.apps, Issuer: w.sim.IssuerURL(), Audience: audience,
			PublicURL: "http://chakshu.test", RatePerSecond: 0.001, Burst: 2})
		if err != nil {
			t.Fatal(err)
		}
		w.api = api
		w.srv.Close()
		w.srv = newServer(t, api)
		tool := strings.Replace(runPath(runnerproto.PathTool, rn.ID), "{tool}", "github.get_file", 1)
		codes := []int{}
		for i := 0; i < 3; i++ {
			codes = append(codes, w.do(tool, `{"input":{"repo":"acme/widget","path":"main.go"}}`, bearer(job.RunToken), nil))
		}
		if codes[0] != 200 || codes[1] != 200 || codes[2] != 429 {
			t.Fatalf("rate limit: %v", codes)
		}
	})
}

// TestKeySetRefetchBounded: tokens naming unknown key ids fetch the
// issuer's keys at most once per interval, whoever sends them; a token of a
// known key is verified without a fetch, also right after a refused one.
func TestKeySetRefetchBounded(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		var fetches atomic.Int32
		hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if strings.HasSuffix(r.URL.Path, "/jwks") {
				fetches.Add(1)
			}
			return http.DefaultTransport.RoundTrip(r)
		})}
		api, err := New(Config{DB: db, Log: slog.New(slog.DiscardHandler), GitHub: w.apps, Issuer: w.sim.IssuerURL(), Audience: audience,
			PublicURL: "http://chakshu.test", HTTPClient: hc})
		if err != nil {
			t.Fatal(err)
		}
		w.srv = newServer(t, api)
		rn := w.dispatch(run.KindReview)
		stranger, _ := rsa.GenerateKey(rand.Reader, 2048)
		codes := []int{}
		for i := range 5 {
			tok, err := w.sim.IssueTokenWithClaims(w.sim.ActionsClaims(rn.ActionsRunID, audience),
				ghsim.TokenOptions{Key: stranger, KeyID: fmt.Sprint("made-up-", i)})
			if err != nil {
				t.Fatal(err)
			}
			st, _, _ := w.fetchJob(rn, tok)
			codes = append(codes, st)
		}
		if want := []int{401, 429, 429, 429, 429}; !slices.Equal(codes, want) {
			t.Fatalf("unknown key ids answered %v, want %v", codes, want)
		}
		if st, _, e := w.fetchJob(rn, w.token(rn)); st != 200 {
			t.Fatalf("the runner's own token after the flood: %d %+v", st, e)
		}
		if n := fetches.Load(); n != 1 {
			t.Fatalf("issuer keys fetched %d times, want once", n)
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestJunkRunTokensGetNoBucket: a made-up chkr_ token is refused before it
// is given a rate-limit bucket (issue 43 item 3: every such token got one,
// and past 10,000 each call scanned them all under the limiter's lock).
func TestJunkRunTokensGetNoBucket(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		rn := w.dispatch(run.KindReview)
		path := runPath(runnerproto.PathModel, rn.ID) + "/v1/messages"
		for i := range 200 {
			if st := w.do(path, `{}`, bearer(fmt.Sprintf("chkr_made-up-%d", i)), nil); st != 401 {
				t.Fatalf("made-up token %d: %d", i, st)
			}
		}
		w.api.limits.mu.Lock()
		n := len(w.api.limits.buckets)
		w.api.limits.mu.Unlock()
		if n != 0 {
			t.Fatalf("200 refused tokens left %d limiter buckets", n)
		}
	})
}
