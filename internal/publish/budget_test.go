package publish_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// DESIGN §11: GitHub calls to publish a review of N ≤ 50 findings.
const (
	budgetREST    = 6
	budgetGraphQL = 2
)

// bigFile is a new file in the PR: every line is commentable.
var bigFile = map[string]string{"lib/big.go": file(numbered("big", 200))}

// manyFindings returns n findings: four in five inline on lib/big.go, the
// rest on a file the PR does not touch (review body). They are four lines
// apart: their titles differ by a number only, and nearer they would be
// one finding (findings.Same).
func manyFindings(n int, tag string) findings.Result {
	res := findings.Result{Summary: "many", Checked: findings.Checked{Files: []string{"lib/big.go"}}}
	for i := range n {
		fd := f("lib/big.go", 4*i+1, findings.Severities[i%4], fmt.Sprintf("%s finding %d", tag, i))
		if i%5 == 4 {
			fd.Path = "README.md"
		}
		res.Findings = append(res.Findings, fd)
	}
	return res
}

// publishCounting publishes a run of res on a fresh run and returns the
// GitHub calls it made: REST (minus installation token minting), GraphQL.
func publishCounting(e *env, res findings.Result, set ...func(*ent.RunCreate)) (rest, graphql int) {
	r := e.newRun(res, set...)
	e.sim.ResetCalls()
	e.publish(r.ID)
	for k, n := range e.sim.Calls() {
		switch {
		case k == "POST /graphql":
			graphql += n
		case strings.Contains(k, "/access_tokens"):
		default:
			rest += n
		}
	}
	return rest, graphql
}

func TestPublishCallBudget(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 50, "blocker"), bigFile)
		e.sim.RequestReviewers(repoName, e.pr, "alice", nil, []string{"security"})
		rest, gql := publishCounting(e, manyFindings(50, "a"), func(c *ent.RunCreate) {
			c.SetTrigger(run.TriggerReviewRequest).SetRequestTarget("team:security")
		})
		if rest > budgetREST || gql > budgetGraphQL {
			t.Fatalf("50 findings took %d REST + %d GraphQL calls; budget %d + %d", rest, gql, budgetREST, budgetGraphQL)
		}
		if n := len(e.sim.ReviewComments(repoName, e.pr)); n != 40 {
			t.Fatalf("%d inline comments, want 40", n)
		}
	})
}

func BenchmarkPublishCalls(b *testing.B) {
	for _, n := range []int{1, 10, 50} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			var rest, gql int
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				e := newEnv(b, storetest.Open(b, "sqlite"), rules(findings.Nit, 50, "blocker"), bigFile)
				e.sim.RequestReviewers(repoName, e.pr, "alice", nil, []string{"security"})
				b.StartTimer()
				r, g := publishCounting(e, manyFindings(n, "b"), func(c *ent.RunCreate) {
					c.SetTrigger(run.TriggerReviewRequest).SetRequestTarget("team:security")
				})
				rest, gql = rest+r, gql+g
			}
			perREST, perGQL := float64(rest)/float64(b.N), float64(gql)/float64(b.N)
			b.ReportMetric(perREST, "rest/review")
			b.ReportMetric(perGQL, "graphql/review")
			b.Logf("N=%d findings: %.0f REST + %.0f GraphQL calls per published review (DESIGN §11 budget: ≤ %d REST + ≤ %d GraphQL + 1 per resolved thread)",
				n, perREST, perGQL, budgetREST, budgetGraphQL)
		})
	}
}
