package runnerapi

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

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

func TestJobFetchRateLimited(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		api, err := New(Config{DB: db, Log: slog.New(slog.DiscardHandler), GitHub: w.apps, Issuer: w.sim.IssuerURL(), Audience: audience,
			PublicURL: "http://chakshu.test", JobRatePerSecond: 0.001, JobBurst: 2})
		if err != nil {
			t.Fatal(err)
		}
		w.srv = newServer(t, api)
		rn := w.dispatch(run.KindReview)
		codes := []int{}
		for i := 0; i < 3; i++ {
			st, _, _ := w.fetchJob(rn, "not-a-token")
			codes = append(codes, st)
		}
		if codes[0] != 403 || codes[1] != 403 || codes[2] != 429 {
			t.Fatalf("codes %v, want 403 403 429", codes)
		}
	})
}
