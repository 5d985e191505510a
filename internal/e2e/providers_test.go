package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/app"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// The same review through each model provider: the sandbox puts the
// provider's simulator (Bedrock's signed invoke and event stream, Vertex's
// OAuth and raw predict, Foundry's resource key, Chat Completions) in front
// of the same scripted model, so the same findings must come out, with the
// cost metered from what that provider reported, on each database.
func TestReviewThroughEachProvider(t *testing.T) {
	var want []string
	for _, db := range storetest.Dialects {
		t.Run(db, func(t *testing.T) {
			for _, provider := range []string{"anthropic", "bedrock", "vertex", "foundry", "openai"} {
				t.Run(provider, func(t *testing.T) {
					url := ""
					if db == "postgres" {
						url = storetest.NewPostgresDatabase(t)
					}
					reviewThrough(t, provider, startSandbox(t, url, nil, app.SandboxOptions{HistoryRuns: -1, Provider: provider}), &want)
				})
			}
		})
	}
}

// reviewThrough asks for a security review through provider and checks that
// its findings are *want (set by the first review) and that the run was
// metered from that provider.
func reviewThrough(t *testing.T, provider string, c *chakshu, want *[]string) {
	sim := c.SB.Sim
	pr := c.SB.PRs[0]
	waitFor(t, 60*time.Second, "the reviewers to sync", func() bool { return c.reviewersSynced(t) })
	sim.Comment(pr.Repo, pr.Number, sandbox.Writer, "@chakshu review security")
	waitFor(t, 120*time.Second, "the security check to finish", func() bool {
		for _, cr := range sim.CheckRuns(pr.Repo) {
			if cr.Status == "completed" {
				return true
			}
		}
		return false
	})
	var ids []string
	for _, cm := range sim.ReviewComments(pr.Repo, pr.Number) {
		if i := strings.Index(cm.Body, "<!-- chakshu:finding:"); i >= 0 {
			ids = append(ids, cm.Path+" "+cm.Body[i:strings.Index(cm.Body[i:], "-->")+i])
		}
	}
	slices.Sort(ids)
	if len(ids) == 0 {
		t.Fatalf("no findings published through %s", provider)
	}
	if *want == nil {
		*want = ids
	} else if !slices.Equal(ids, *want) {
		t.Errorf("findings through %s differ from the first review's:\n%v\nwant\n%v", provider, ids, *want)
	}
	if provider != "anthropic" && c.SB.ProviderCalls() == 0 {
		t.Errorf("no model request went through the %s simulator", provider)
	}
	s := c.loginSandbox(t)
	waitFor(t, 30*time.Second, "the run to succeed with a metered cost", func() bool {
		var out struct {
			Runs struct {
				Edges []struct {
					Node struct {
						Status      string  `json:"status"`
						CostUsd     float64 `json:"costUsd"`
						InputTokens int64   `json:"inputTokens"`
						Provider    string  `json:"provider"`
					} `json:"node"`
				} `json:"edges"`
			} `json:"runs"`
		}
		s.graphql(t, `{ runs(first: 5) { edges { node { status costUsd inputTokens provider } } } }`, nil, &out)
		for _, e := range out.Runs.Edges {
			if strings.EqualFold(e.Node.Status, "succeeded") && e.Node.CostUsd > 0 && e.Node.InputTokens > 0 && e.Node.Provider == provider {
				return true
			}
		}
		return false
	})
}
