package agent

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/action/tools"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestSystemSuffixGolden(t *testing.T) {
	cases := map[string]struct {
		rules  string
		skills []runnerproto.Skill
		submit string
	}{
		"rules_and_skills": {"Flag SQL injection.\n\nIgnore generated files.", []runnerproto.Skill{
			{Name: "sql-injection", Description: "How to spot\ninjectable SQL"}, {Name: "secrets", Description: "Hard-coded credentials"}}, tools.NameSubmit},
		"bare_reply": {"", nil, tools.NameSubmitReply},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := SystemSuffix(c.rules, c.skills, c.submit)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if got != string(want) {
				t.Fatalf("system prompt changed (run with -update to accept):\n%s", got)
			}
		})
	}
}

// counting counts requests to the model.
type counting struct {
	h http.Handler
	n atomic.Int32
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.n.Add(1)
	c.h.ServeHTTP(w, r)
}

func setup(t *testing.T, model scriptedmodel.Config, job runnerproto.Job) (Config, *counting, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n// TODO later\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys, err := tools.OpenFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	set, err := tools.New(tools.Config{FS: fsys, Kind: job.Kind})
	if err != nil {
		t.Fatal(err)
	}
	model.APIKey = "chkr_token"
	c := &counting{h: scriptedmodel.New(model)}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	job.ModelURL, job.RunToken = srv.URL, "chkr_token"
	if job.Model == "" {
		job.Model = "claude-sonnet-5-5"
	}
	if job.Prompt == "" {
		job.Prompt = "<pr_files>\na.go\n</pr_files>\n<diff>\ndiff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,2 @@\n package a\n+// TODO later\n</diff>"
	}
	log := &bytes.Buffer{}
	return Config{Job: &job, Tools: set, Log: log, HTTPClient: srv.Client()}, c, log
}

func TestRunSubmits(t *testing.T) {
	cfg, c, log := setup(t, scriptedmodel.Config{}, runnerproto.Job{MaxTurns: 10})
	out := Run(context.Background(), cfg)
	if out.Failure != nil {
		t.Fatalf("failure %+v\n%s", out.Failure, log)
	}
	r, err := reviewOf(out)
	// The scripted model adds an unfounded second finding (a misquote) for
	// this TODO; the runner's evidence check drops it, not the agent.
	if err != nil || len(r.Findings) != 2 || r.Findings[0].Line != 2 || r.Findings[0].Severity != findings.Nit ||
		r.Findings[0].Evidence != "// TODO later" || r.Findings[1].Evidence != "// TODOV2 later" {
		t.Fatalf("result %+v %v", r, err)
	}
	if out.Turns != int(c.n.Load()) || out.Turns != 3 || out.Usage.Output == 0 || out.CostUSD <= 0 {
		t.Fatalf("outcome %+v, %d calls", out, c.n.Load())
	}
	if out.Usage.CacheWrite == 0 || out.Usage.CacheRead == 0 {
		t.Fatalf("prompt caching not used: %+v", out.Usage)
	}
}

func TestTextOnlyAnswersAreBounded(t *testing.T) {
	cfg, c, _ := setup(t, scriptedmodel.Config{TextOnly: true}, runnerproto.Job{MaxTurns: 20})
	cfg.MaxMalformed = 2
	out := Run(context.Background(), cfg)
	if out.Failure == nil || out.Failure.Reason != ReasonMalformed || c.n.Load() != 3 {
		t.Fatalf("outcome %+v after %d calls", out.Failure, c.n.Load())
	}
}

func TestWallTime(t *testing.T) {
	cfg, _, _ := setup(t, scriptedmodel.Config{NeverSubmit: true, Latency: 400 * time.Millisecond}, runnerproto.Job{MaxTurns: 50, WallSeconds: 1})
	zero := 0
	cfg.MaxRetries = &zero
	start := time.Now()
	out := Run(context.Background(), cfg)
	if out.Failure == nil || out.Failure.Reason != ReasonWallTime {
		t.Fatalf("outcome %+v", out.Failure)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("wall time of 1s took %v", d)
	}
}

func TestGatewayErrorIsRedacted(t *testing.T) {
	cfg, _, _ := setup(t, scriptedmodel.Config{}, runnerproto.Job{MaxTurns: 5})
	cfg.Job.RunToken = "chkr_" + strings.Repeat("w", 30) // wrong key: 401
	out := Run(context.Background(), cfg)
	if out.Failure == nil || out.Failure.Reason != ReasonGateway {
		t.Fatalf("outcome %+v", out.Failure)
	}
	if strings.Contains(out.Failure.Detail, cfg.Job.RunToken) {
		t.Fatalf("detail carries the token: %s", out.Failure.Detail)
	}
}

func TestEstimateCost(t *testing.T) {
	u := Usage{Input: 1_000_000, Output: 100_000, CacheWrite: 1_000_000, CacheRead: 1_000_000}
	// From the catalogue, exact ids: Opus 4.6 is $5/$25 (not Opus 4's $15/$75), an unknown id 0.
	cases := map[string]float64{"claude-sonnet-5-5": 2 + 1 + 2.5 + 0.1, "claude-opus-4-6": 5 + 2.5 + 6.25 + 0.5,
		"claude-haiku-4-5": 1 + 0.5 + 1.25 + 0.1, "claude-opus-4-6-new": 0}
	for m, want := range cases {
		if got := EstimateCost(m, u); got < want-1e-9 || got > want+1e-9 {
			t.Errorf("EstimateCost(%s) = %v, want %v", m, got, want)
		}
	}
}

// reviewOf is the review result out carries, as the submit tool parsed it.
func reviewOf(out *Outcome) (*findings.Result, error) {
	if out.Result == nil || out.Result.Review == nil {
		return nil, errors.New("no review result")
	}
	return out.Result.Review, nil
}
