package agent

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
)

// Thinking blocks ride back to the model unaltered (the double refuses an
// edited signature) and their tokens are counted as output.
func TestThinkingBlocksAreSentBack(t *testing.T) {
	plain, _, _ := setup(t, scriptedmodel.Config{}, runnerproto.Job{MaxTurns: 10})
	base := Run(context.Background(), plain)
	cfg, _, log := setup(t, scriptedmodel.Config{Thinking: true, ThinkingTokens: 300}, runnerproto.Job{MaxTurns: 10})
	out := Run(context.Background(), cfg)
	if out.Failure != nil || base.Failure != nil {
		t.Fatalf("failure %+v / %+v\n%s", out.Failure, base.Failure, log)
	}
	if out.Turns != base.Turns || out.Usage.Output < base.Usage.Output+int64(out.Turns)*300 {
		t.Fatalf("thinking run %d turns, %d output tokens; plain %d turns, %d", out.Turns, out.Usage.Output, base.Turns, base.Usage.Output)
	}
}

func TestStopReasons(t *testing.T) {
	cases := map[string]struct {
		model     scriptedmodel.Config
		maxTokens int64
		reason    string // "" means a result is submitted
		turns     int
		log       string
	}{
		// The submit (findings, summary) does not fit 1,200 tokens after
		// 1,000 of thinking; the earlier turns' tool calls do.
		"submit cut at max_tokens is asked again with room": {
			model:     scriptedmodel.Config{Thinking: true, ThinkingTokens: 1000, StopAtMaxTokens: true},
			maxTokens: 1200, turns: 4, log: "in a tool_use block; asking again with max_tokens 2400",
		},
		"thinking that never fits fails the pass": {
			model:     scriptedmodel.Config{Thinking: true, ThinkingTokens: 200_000, StopAtMaxTokens: true},
			maxTokens: 1200, reason: ReasonTruncated, turns: DefaultMaxTruncated + 1,
		},
		"refusal fails the pass with its reason": {
			model: scriptedmodel.Config{RefuseAt: 2}, reason: ReasonRefusal, turns: 2, log: "refused",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			cfg, n, log := setup(t, c.model, runnerproto.Job{MaxTurns: 10})
			cfg.MaxTokens = c.maxTokens
			out := Run(context.Background(), cfg)
			switch {
			case c.reason == "" && out.Failure != nil:
				t.Fatalf("failure %+v\n%s", out.Failure, log)
			case c.reason != "" && (out.Failure == nil || out.Failure.Reason != c.reason):
				t.Fatalf("failure %+v, want %q\n%s", out.Failure, c.reason, log)
			}
			if out.Turns != c.turns || int(n.n.Load()) != c.turns {
				t.Fatalf("%d turns, %d requests, want %d\n%s", out.Turns, n.n.Load(), c.turns, log)
			}
			if !strings.Contains(log.String(), c.log) {
				t.Fatalf("log lacks %q:\n%s", c.log, log)
			}
			if c.reason == "" {
				r, err := reviewOf(out)
				if err != nil || len(r.Findings) == 0 {
					t.Fatalf("result %+v %v", r, err)
				}
			}
		})
	}
}

// A run whose requests each stay under Haiku 5.5's 100k-token tier but
// whose total passes it is priced at the base rate, request by request.
func TestCostIsPricedPerRequest(t *testing.T) {
	cfg, c, log := setup(t, scriptedmodel.Config{ExtraInputTokens: 60_000}, runnerproto.Job{MaxTurns: 10, Model: "claude-haiku-5-5"})
	rec := &usages{h: c.h}
	c.h = rec
	out := Run(context.Background(), cfg)
	if out.Failure != nil {
		t.Fatalf("failure %+v\n%s", out.Failure, log)
	}
	e, err := models.Builtin().Lookup("claude-haiku-5-5")
	if err != nil || len(e.Tiers) == 0 {
		t.Fatalf("catalogue: %v, tiers %v", err, e)
	}
	var want float64
	for _, u := range rec.u {
		mu := models.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CacheCreationInputTokens: u.CacheCreationInputTokens, CacheReadInputTokens: u.CacheReadInputTokens}
		if mu.PromptTokens() > e.Tiers[0].AbovePromptTokens {
			t.Fatalf("a request crossed the tier itself: %+v", u)
		}
		want += e.Price.Cost(mu)
	}
	total := models.Usage{InputTokens: out.Usage.Input, OutputTokens: out.Usage.Output,
		CacheCreationInputTokens: out.Usage.CacheWrite, CacheReadInputTokens: out.Usage.CacheRead}
	if total.PromptTokens() <= e.Tiers[0].AbovePromptTokens {
		t.Fatalf("the run's total (%d) must pass the tier for this test to mean anything", total.PromptTokens())
	}
	if len(rec.u) != out.Turns || math.Abs(out.CostUSD-want) > 1e-9 {
		t.Fatalf("estimate $%.6f over %d requests, want $%.6f (cumulative tiering gives $%.6f)", out.CostUSD, len(rec.u), want, e.Cost(total))
	}
}

// A pass with a lens says its focus in its first user turn, after the pass
// line; a pass without one says nothing of a focus.
func TestLensInTheFirstTurn(t *testing.T) {
	for _, lens := range []string{"", "security and data safety"} {
		var prompts []string
		cfg, _, log := setup(t, scriptedmodel.Config{Seen: func(_, p string) { prompts = append(prompts, p) }}, runnerproto.Job{MaxTurns: 10})
		cfg.Pass, cfg.Passes, cfg.Lens = 2, 3, lens
		if out := Run(context.Background(), cfg); out.Failure != nil {
			t.Fatalf("failure %+v\n%s", out.Failure, log)
		}
		has := strings.Contains(prompts[0], "Focus of this pass: security and data safety.")
		if has != (lens != "") || !strings.Contains(prompts[0], "pass 2 of 3") || strings.Contains(prompts[0], "Focus of this pass: .") {
			t.Fatalf("lens %q, first turn:\n%s", lens, prompts[0])
		}
	}
}
