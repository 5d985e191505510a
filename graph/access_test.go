package graph

import (
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// viewers of the access matrix, in order.
var matrixViewers = []string{"anonymous", "alice", "bob", "carol", "alice-read", "alice-write"}

// TestAccessMatrix runs every query and mutation as each kind of viewer:
// anonymous, a user without access to repo B (alice), a user with access
// (bob), an admin (carol), and alice's read and write API tokens.
func TestAccessMatrix(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		runA := e.seedRun(e.repoA, e.revSec, e.prA, run.StatusSucceeded, 1.25, 60000, 2)
		e.seedRun(e.repoA, e.revPrf, e.prA, run.StatusSucceeded, 0.75, 30000, 1)
		runB := e.seedRun(e.repoB, e.revSec, e.prB, run.StatusFailed, 3.0, 90000, 1)
		e.seedFailedEvent("acme/api")
		e.seedFailedEvent("acme/secret")

		alice := e.login("alice")
		cs := map[string]*client{
			"anonymous":   e.anon(),
			"alice":       alice,
			"bob":         e.login("bob"),
			"carol":       e.login("carol"),
			"alice-read":  alice.token("read"),
			"alice-write": alice.token("write"),
		}
		from := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
		to := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		idOf := func(id any) map[string]any { return map[string]any{"id": id} }

		type check func(t *testing.T, who string, r gqlResp)
		// count asserts a number found at a JSON path, per viewer.
		count := func(path string, want map[string]int) check {
			return func(t *testing.T, who string, r gqlResp) {
				var v any
				r.into(t, &v)
				got := dig(v, path)
				if w, ok := want[who]; ok && got != float64(w) {
					t.Errorf("%s: %s = %v, want %d (%s)", who, path, got, w, r.raw)
				}
			}
		}
		cases := []struct {
			name  string
			query func(who string) (string, map[string]any)
			codes map[string]string // viewer → code; missing means OK
			check check
		}{
			{"viewer", fixed(`{ viewer { login isAdmin canWrite authMethod } }`, nil), nil,
				func(t *testing.T, who string, r gqlResp) {
					if who == "anonymous" && !strings.Contains(r.raw, `"viewer":null`) {
						t.Errorf("anonymous viewer: %s", r.raw)
					}
					if who == "alice-read" && !strings.Contains(r.raw, `"canWrite":false`) {
						t.Errorf("read token canWrite: %s", r.raw)
					}
				}},
			{"runs", fixed(`{ runs(first: 10) { totalCount edges { node { id failureDetail } } } }`, nil), anonOnly,
				func(t *testing.T, who string, r gqlResp) {
					count("runs.totalCount", map[string]int{"alice": 2, "bob": 3, "carol": 3, "alice-read": 2, "alice-write": 2})(t, who, r)
					if who != "carol" && who != "anonymous" && strings.Contains(r.raw, "ghs_") {
						t.Errorf("%s sees operator detail: %s", who, r.raw)
					}
					if who == "carol" && !strings.Contains(r.raw, "failed") {
						t.Errorf("admin misses operator detail: %s", r.raw)
					}
				}},
			{"run B by id", fixed(`query($id: ID!) { run(id: $id) { id prNumber } }`, idOf(runB.ID)),
				map[string]string{"anonymous": "UNAUTHENTICATED", "alice": "NOT_FOUND", "alice-read": "NOT_FOUND", "alice-write": "NOT_FOUND"}, nil},
			{"node B", fixed(`query($id: ID!) { node(id: $id) { id ... on Run { prNumber } } }`, idOf(runB.ID)),
				map[string]string{"anonymous": "UNAUTHENTICATED", "alice": "NOT_FOUND", "alice-read": "NOT_FOUND", "alice-write": "NOT_FOUND"}, nil},
			{"node A with timeline and links", fixed(`query($id: ID!) { node(id: $id) { ... on Run { timeline { message detail } links { pullRequest checkRun } findingCounts { total } } } }`, idOf(runA.ID)),
				anonOnly, func(t *testing.T, who string, r gqlResp) {
					if who != "anonymous" && !strings.Contains(r.raw, "/acme/api/runs/77") {
						t.Errorf("%s: check run link: %s", who, r.raw)
					}
					if (who == "alice" || who == "bob") && strings.Contains(r.raw, "operator detail") {
						t.Errorf("%s sees event detail: %s", who, r.raw)
					}
				}},
			{"findings of run B", fixed(`query($id: ID!) { findings(first: 10, where: {runID: $id}) { totalCount } }`, idOf(runB.ID)), anonOnly,
				count("findings.totalCount", map[string]int{"alice": 0, "alice-write": 0, "bob": 1, "carol": 1})},
			{"findings", fixed(`{ findings(first: 10) { totalCount } }`, nil), anonOnly,
				count("findings.totalCount", map[string]int{"alice": 3, "bob": 4, "carol": 4})},
			{"cost summary", fixed(`query($f: Time!, $t: Time!) { costSummary(from: $f, to: $t, groupBy: REPOSITORY) { total { runs costUsd } buckets { key runs } } }`,
				map[string]any{"f": from, "t": to}), anonOnly,
				count("costSummary.total.runs", map[string]int{"alice": 2, "bob": 3, "carol": 3, "alice-read": 2})},
			{"quality", fixed(`query($f: Time!, $t: Time!) { quality(from: $f, to: $t, groupBy: REPOSITORY, interval: DAY) { total { pullRequests } groups { key } } }`,
				map[string]any{"f": from, "t": to}), anonOnly,
				count("quality.total.pullRequests", map[string]int{"alice": 1, "bob": 2, "carol": 2, "alice-read": 1})},
			{"cost series", fixed(`query($f: Time!, $t: Time!) { costSeries(from: $f, to: $t, interval: DAY, by: REPOSITORY) { key total { runs } points { runs } } }`,
				map[string]any{"f": from, "t": to}), anonOnly,
				func(t *testing.T, who string, r gqlResp) {
					if strings.HasPrefix(who, "alice") && strings.Contains(r.raw, "acme/secret") {
						t.Errorf("%s sees repo B cost series: %s", who, r.raw)
					}
					if (who == "bob" || who == "carol") && !strings.Contains(r.raw, "acme/secret") {
						t.Errorf("%s misses repo B cost series: %s", who, r.raw)
					}
				}},
			{"expensive PRs", fixed(`query($f: Time!, $t: Time!) { expensivePullRequests(from: $f, to: $t) { repository { fullName } costUsd } }`,
				map[string]any{"f": from, "t": to}), anonOnly,
				func(t *testing.T, who string, r gqlResp) {
					if strings.HasPrefix(who, "alice") && strings.Contains(r.raw, "acme/secret") {
						t.Errorf("%s sees repo B costs: %s", who, r.raw)
					}
				}},
			{"status", fixed(`{ status { failedWebhooks runQueues { status count } workers { alive } installations { accountLogin } } }`, nil), anonOnly,
				count("status.failedWebhooks", map[string]int{"alice": 1, "bob": 2, "carol": 2})},
			{"webhook events", fixed(`{ webhookEvents(first: 10) { totalCount edges { node { repository lastError payload } } } }`, nil), anonOnly,
				func(t *testing.T, who string, r gqlResp) {
					count("webhookEvents.totalCount", map[string]int{"alice": 1, "bob": 2, "carol": 2})(t, who, r)
					if who != "carol" && who != "anonymous" && (strings.Contains(r.raw, "payload\":\"") || strings.Contains(r.raw, "boom")) {
						t.Errorf("%s sees payload or error: %s", who, r.raw)
					}
				}},
			{"reviewers with skills and stats", fixed(`{ reviewers(first: 10) { totalCount edges { node { name skills { name description } connectors stats { runs } } } } }`, nil), anonOnly,
				func(t *testing.T, who string, r gqlResp) {
					count("reviewers.totalCount", map[string]int{"alice": 2, "bob": 2, "carol": 2})(t, who, r)
					if strings.Contains(r.raw, "SECRET SKILL BODY") {
						t.Errorf("skill content leaked: %s", r.raw)
					}
				}},
			{"learnings", fixed(`{ reviewLearnings(first: 10) { totalCount } }`, nil), anonOnly, nil},
			{"api tokens", fixed(`{ apiTokens(first: 10) { totalCount edges { node { prefix owner { login } } } } }`, nil), anonOnly,
				count("apiTokens.totalCount", map[string]int{"bob": 0, "carol": 2, "alice": 2})},
			{"connector credentials", fixed(`{ connectorCredentials { name } }`, nil), adminOnly, nil},
			// Mutations.
			{"cancelRun A", func(who string) (string, map[string]any) {
				return `mutation($id: ID!) { cancelRun(id: $id) { status cancellable } }`, idOf(e.seedQueued(e.repoA, "").ID)
			}, map[string]string{"anonymous": "UNAUTHENTICATED", "bob": "FORBIDDEN", "alice-read": "FORBIDDEN"}, nil},
			{"cancelRun B", func(who string) (string, map[string]any) {
				return `mutation($id: ID!) { cancelRun(id: $id) { status } }`, idOf(e.seedQueued(e.repoB, "").ID)
			}, map[string]string{"anonymous": "UNAUTHENTICATED", "alice": "NOT_FOUND", "bob": "FORBIDDEN", "alice-read": "FORBIDDEN", "alice-write": "NOT_FOUND"}, nil},
			{"retryWebhookEvent", func(who string) (string, map[string]any) {
				return `mutation($id: ID!) { retryWebhookEvent(id: $id) { status } }`, idOf(e.seedFailedEvent("acme/api").ID)
			}, adminOnlyMut, nil},
			{"syncReviewers", fixed(`mutation { syncReviewers }`, nil), adminOnlyMut, nil},
			{"setReviewersRepository", fixed(`mutation($i: ID!) { setReviewersRepository(installation: $i, repository: "acme/review-bots") { reviewersRepo } }`,
				map[string]any{"i": e.inst.ID}), adminOnlyMut,
				func(t *testing.T, who string, r gqlResp) {
					if !strings.Contains(r.raw, `"reviewersRepo":"acme/review-bots"`) {
						t.Errorf("%s: %s", who, r.raw)
					}
				}},
			{"setReviewersRepository of another account", fixed(`mutation($i: ID!) { setReviewersRepository(installation: $i, repository: "evil/bots") { reviewersRepo } }`,
				map[string]any{"i": e.inst.ID}),
				map[string]string{"anonymous": "UNAUTHENTICATED", "alice": "FORBIDDEN", "bob": "FORBIDDEN", "alice-read": "FORBIDDEN", "alice-write": "FORBIDDEN", "carol": "INVALID"}, nil},
			{"createLearning repo A", fixed(`mutation($r: ID!) { createLearning(input: {repositoryID: $r, scope: repo, glob: "**/*.go", directive: "Prefer errors.Is"}) { id enabled } }`,
				map[string]any{"r": e.repoA.ID}),
				map[string]string{"anonymous": "UNAUTHENTICATED", "bob": "FORBIDDEN", "alice-read": "FORBIDDEN"}, nil},
			{"createLearning installation", fixed(`mutation($i: ID!) { createLearning(input: {installationID: $i, scope: installation, directive: "Be brief"}) { id } }`,
				map[string]any{"i": e.inst.ID}), adminOnlyMut, nil},
			{"setConnectorCredential", fixed(`mutation($i: ID!) { setConnectorCredential(input: {installationID: $i, connector: "http", name: "jira", secret: "s3cret", hosts: ["jira.example.com"]}) { id name hosts installation { accountLogin } } }`,
				map[string]any{"i": e.inst.ID}), adminOnlyMut,
				func(t *testing.T, who string, r gqlResp) {
					if strings.Contains(r.raw, "s3cret") {
						t.Errorf("secret returned: %s", r.raw)
					}
				}},
			{"createAPIToken", fixed(`mutation { createAPIToken(input: {name: "x", scope: read}) { token } }`, nil),
				map[string]string{"anonymous": "UNAUTHENTICATED", "alice-read": "FORBIDDEN", "alice-write": "FORBIDDEN"}, nil},
			{"requestReview A", fixed(`mutation($u: String!) { requestReview(input: {prURL: $u, reviewers: ["security"], note: "please"}) { runs { id status trigger } alreadyQueued headSha } }`,
				map[string]any{"u": e.sim.WebURL() + "/acme/api/pull/" + itoa(e.prA)}),
				map[string]string{"anonymous": "UNAUTHENTICATED", "bob": "FORBIDDEN", "alice-read": "FORBIDDEN"}, nil},
			{"requestReview B", fixed(`mutation($u: String!) { requestReview(input: {prURL: $u}) { runs { id } } }`,
				map[string]any{"u": e.sim.WebURL() + "/acme/secret/pull/" + itoa(e.prB)}),
				map[string]string{"anonymous": "UNAUTHENTICATED", "alice": "NOT_FOUND", "bob": "FORBIDDEN", "alice-read": "FORBIDDEN", "alice-write": "NOT_FOUND"}, nil},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				for _, who := range matrixViewers {
					q, vars := tc.query(who)
					r := cs[who].do(q, vars)
					want := "OK"
					if c, ok := tc.codes[who]; ok {
						want = c
					}
					if got := r.code(); got != want {
						t.Errorf("%s: code %s, want %s: %s", who, got, want, r.raw)
						continue
					}
					if tc.check != nil && r.code() == "OK" {
						tc.check(t, who, r)
					}
				}
			})
		}
		// Revoking: alice's token is invisible to bob, and revoked tokens stop working.
		tok := alice.token("read")
		r := cs["carol"].do(`{ apiTokens(first: 100) { edges { node { id revokedAt } } } }`, nil)
		r.ok(t)
		var ids struct {
			APITokens struct {
				Edges []struct{ Node struct{ ID string } }
			}
		}
		r.into(t, &ids)
		last := ids.APITokens.Edges[len(ids.APITokens.Edges)-1].Node.ID
		if r := cs["bob"].do(`mutation($id: ID!) { revokeAPIToken(id: $id) { id } }`, idOf(last)); r.code() != "NOT_FOUND" {
			t.Errorf("bob revoking alice's token: %s", r.raw)
		}
		if r := tok.do(`{ viewer { login } }`, nil); r.code() != "OK" {
			t.Fatalf("token before revoke: %s", r.raw)
		}
		if r := alice.do(`mutation($id: ID!) { revokeAPIToken(id: $id) { revokedAt } }`, idOf(last)); r.code() != "OK" {
			t.Fatalf("alice revoking her token: %s", r.raw)
		}
		if r := tok.do(`{ viewer { login } }`, nil); r.Status != 401 {
			t.Errorf("revoked token: %d %s", r.Status, r.raw)
		}
	})
}

var (
	anonOnly     = map[string]string{"anonymous": "UNAUTHENTICATED"}
	adminOnly    = map[string]string{"anonymous": "UNAUTHENTICATED", "alice": "FORBIDDEN", "bob": "FORBIDDEN", "alice-read": "FORBIDDEN", "alice-write": "FORBIDDEN"}
	adminOnlyMut = adminOnly
)

func fixed(q string, vars map[string]any) func(string) (string, map[string]any) {
	return func(string) (string, map[string]any) { return q, vars }
}

// dig follows a dotted path through decoded JSON.
func dig(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}
