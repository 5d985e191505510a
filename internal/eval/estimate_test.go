package eval

import (
	"math"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// The estimate grows with what a run does: reviewers, passes, judging; a
// run's cost never exceeds its cap; clean pull requests are not judged.
func TestEstimateCost(t *testing.T) {
	c, err := Load("../../testdata/eval-corpus")
	if err != nil {
		t.Fatal(err)
	}
	rv := func(name string, samples int, maxCost float64) reviewerconfig.Local {
		cfg := reviewerconfig.Defaults()
		cfg.Samples, cfg.MaxCostUSD = samples, maxCost
		return reviewerconfig.Local{Name: name, Config: cfg}
	}
	one, err := EstimateCost(c, []reviewerconfig.Local{rv("a", 1, 5)}, nil, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if one.ReviewUSD <= 0 || one.JudgeCalls != 0 || one.CapUSD != 5*float64(len(c.Cases)) || one.Passes != len(c.Cases) {
		t.Fatalf("one reviewer: %+v", one)
	}
	judgeModel := reviewerconfig.Defaults().Model
	for _, tc := range []struct {
		name   string
		rvs    []reviewerconfig.Local
		judge  bool
		review float64 // times one's review cost
		calls  int
	}{
		{"two reviewers", []reviewerconfig.Local{rv("a", 1, 5), rv("b", 1, 5)}, false, 2, 0},
		{"three passes", []reviewerconfig.Local{rv("a", 3, 5)}, false, 3, 0},
		// 3 cases have golden comments (11 in all): per review an
		// extraction and comments × 4 issues, then all reviewers together
		// (the same for one reviewer).
		{"judged", []reviewerconfig.Local{rv("a", 1, 5)}, true, 1, 2 * (3 + 11*4)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := EstimateCost(c, tc.rvs, nil, tc.judge, judgeModel)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(e.ReviewUSD-tc.review*one.ReviewUSD) > 1e-9 || e.JudgeCalls != tc.calls || (tc.judge != (e.JudgeUSD > 0)) {
				t.Fatalf("%+v (one reviewer's reviews $%f)", e, one.ReviewUSD)
			}
		})
	}
	// A cap below the expected cost bounds it.
	capped, err := EstimateCost(c, []reviewerconfig.Local{rv("a", 5, 0.001)}, nil, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if capped.ReviewUSD > capped.CapUSD+1e-12 || capped.CapUSD != 0.001*float64(len(c.Cases)) {
		t.Fatalf("capped %+v", capped)
	}
}
