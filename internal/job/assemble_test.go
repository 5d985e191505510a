package job

import (
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/reviewerspec"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

// Assemble's limits: the run's own model and cap before the reviewer's, a
// reply's caps at the setting and one past it, wall time per kind, samples
// for reviews only.
func TestAssembleLimits(t *testing.T) {
	b := New(Config{Limits: Limits{ReplyMaxCostUSD: 0.5, ReplyMaxTurns: 12, ReviewWallSeconds: 600, ReplyWallSeconds: 60,
		ModelRetryHorizon: 90 * time.Second}})
	reviewer := func(cost float64, turns int) Reviewer {
		c := reviewerconfig.Defaults()
		c.MaxCostUSD, c.MaxTurns, c.Samples, c.Agree = cost, turns, 3, 2
		return Reviewer{Name: "security", Config: c}
	}
	reply := &runnerproto.Reply{Thread: []runnerproto.Comment{{Author: "alice", Body: "why?"}}, Path: "a.go", Line: 1}
	for _, c := range []struct {
		name          string
		p             Parts
		model         string
		cost          float64
		turns, wall   int
		samples       int
		forcedIsKnown bool
	}{
		{"review: the reviewer's", Parts{Kind: run.KindReview, Reviewer: reviewer(2, 40)}, "claude-sonnet-5-5", 2, 40, 600, 3, true},
		{"review: the run's own model and cap", Parts{Kind: run.KindReview, Reviewer: reviewer(2, 40), Model: "claude-opus-5-5", MaxCostUSD: 0.75},
			"claude-opus-5-5", 0.75, 40, 600, 3, true},
		{"review: a model the catalogue lacks", Parts{Kind: run.KindReview, Reviewer: reviewer(2, 40), Model: "unknown-model"},
			"unknown-model", 2, 40, 600, 3, false},
		{"reply at the caps", Parts{Kind: run.KindReply, Reviewer: reviewer(0.5, 12), Reply: reply}, "claude-sonnet-5-5", 0.5, 12, 60, 0, true},
		{"reply one past the caps", Parts{Kind: run.KindReply, Reviewer: reviewer(0.51, 13), Reply: reply}, "claude-sonnet-5-5", 0.5, 12, 60, 0, true},
		{"reply under the caps", Parts{Kind: run.KindReply, Reviewer: reviewer(0.25, 5), Reply: reply}, "claude-sonnet-5-5", 0.25, 5, 60, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := b.Assemble(c.p)
			if err != nil {
				t.Fatal(err)
			}
			j := a.Job
			if j.Model != c.model || j.MaxCostUSD != c.cost || j.MaxTurns != c.turns || j.WallSeconds != c.wall || j.RetrySeconds != 90 {
				t.Errorf("model %s cost %v turns %d wall %d retry %d; want %s %v %d %d 90", j.Model, j.MaxCostUSD, j.MaxTurns, j.WallSeconds,
					j.RetrySeconds, c.model, c.cost, c.turns, c.wall)
			}
			if j.Samples != c.samples || (c.samples > 0 && j.Agree != 2) {
				t.Errorf("samples %d agree %d, want %d", j.Samples, j.Agree, c.samples)
			}
			// A review carries the default lenses of several passes and the
			// default verification; a reply neither.
			review := c.samples > 0
			if review != (len(j.Lenses) == len(reviewerspec.DefaultLenses) && j.Verify != nil && j.Verify.MinConfidence == reviewerconfig.DefaultVerifyMinConfidence) ||
				!review && (j.Lenses != nil || j.Verify != nil) {
				t.Errorf("lenses %q verify %+v", j.Lenses, j.Verify)
			}
			if (j.ForcedToolChoice != nil) != c.forcedIsKnown || (a.Price != "") != c.forcedIsKnown {
				t.Errorf("forced tool choice %v price %q: the catalogue lookup is wrong", j.ForcedToolChoice, a.Price)
			}
			if j.System == "" || j.Prompt == "" {
				t.Error("prompts not rendered")
			}
		})
	}
}

// The reviewer's own lenses and verify: false reach the job.
func TestAssembleLensesAndVerify(t *testing.T) {
	c := reviewerconfig.Defaults()
	c.Lenses, c.Verify = []string{"only security"}, false
	a, err := New(Config{}).Assemble(Parts{Kind: run.KindReview, Reviewer: Reviewer{Name: "security", Config: c}})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Job.Lenses) != 1 || a.Job.Lenses[0] != "only security" || a.Job.Verify != nil {
		t.Fatalf("lenses %q verify %+v", a.Job.Lenses, a.Job.Verify)
	}
}

// A reply job cannot be assembled without its thread.
func TestAssembleReplyNeedsItsThread(t *testing.T) {
	if _, err := New(Config{}).Assemble(Parts{Kind: run.KindReply, Reviewer: Reviewer{Config: reviewerconfig.Defaults()}}); err == nil {
		t.Fatal("a reply job without its thread was assembled")
	}
}
