package runner

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/action/agent"
	"github.com/chakshu-dev/chakshu/action/tools"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
)

// seedDir holds the sandbox's seeded repositories, pull requests and reviewers.
const seedDir = "../../internal/sandbox/seed"

// readSeed reads a folder of the sandbox seed as path → content (the .seed
// suffix dropped, as the sandbox does).
func readSeed(tb testing.TB, root string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[strings.TrimSuffix(filepath.ToSlash(rel), ".seed")] = string(b)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// sandboxPR is one of the sandbox's seeded pull requests: its diff as the
// simulated GitHub serves it and its head files.
type sandboxPR struct {
	name  string
	diff  string
	files []string
	head  map[string]string
}

// sandboxPRs opens the sandbox's seeded pull requests in a simulator, as
// internal/sandbox seeds them, and reads their diffs through its REST API.
func sandboxPRs(tb testing.TB) []sandboxPR {
	tb.Helper()
	sim := ghsimtest.New(tb)
	appID, _ := sim.CreateApp("chakshu")
	prs := []struct{ repo, dir string }{{"payments-api", "payments-api-1"}, {"web-dashboard", "web-dashboard-1"}, {"data-pipeline", "data-pipeline-1"}}
	var out []sandboxPR
	for _, p := range prs {
		base := readSeed(tb, filepath.Join(seedDir, "repos", p.repo))
		changes := readSeed(tb, filepath.Join(seedDir, "prs", p.dir))
		full := "acme/" + p.repo
		sim.CreateRepo("acme", p.repo, base)
		sim.CreateBranch(full, "pr", "main")
		sim.Commit(full, "pr", changes, "change")
		n := sim.OpenPR(full, "pr", "main", p.dir, "", "acme", false)
		inst := sim.Install(appID, "acme", []string{full}, nil)
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%srepos/%s/pulls/%d", sim.URL(), full, n), nil)
		req.Header.Set("Accept", "application/vnd.github.diff")
		req.Header.Set("Authorization", "token "+sim.InstallationToken(inst))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		diff, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(diff), "diff --git") {
			tb.Fatalf("%s diff: %d %s", full, resp.StatusCode, diff)
		}
		head := map[string]string{}
		for k, v := range base {
			head[k] = v
		}
		var files []string
		for k, v := range changes {
			head[k] = v
			files = append(files, k)
		}
		out = append(out, sandboxPR{name: full + "#" + fmt.Sprint(n), diff: string(diff), files: files, head: head})
	}
	return out
}

// effect counts the findings of reviews with a setting of samples/agree.
type effect struct {
	findings, truePos, falsePos int
	costUSD                     float64
}

// reviewPR runs the agent over pr as the sandbox reviewer name would, with
// samples passes that must agree, against model; it returns the result and
// the estimated cost of all passes.
func reviewPR(tb testing.TB, modelURL string, pr sandboxPR, name string, samples, agree int) (*findings.Result, float64) {
	tb.Helper()
	fsys, err := tools.OpenFS(writeTree(tb, pr.head))
	if err != nil {
		tb.Fatal(err)
	}
	defer fsys.Close()
	rules, _ := os.ReadFile(filepath.Join(seedDir, "reviewers", name, "CLAUDE.md"))
	job := &runnerproto.Job{RunID: 1, Kind: "review", Reviewer: name, Repository: "acme/x",
		System: "You are " + name + ", an AI code reviewer run by Chakshu.",
		Prompt: "<pr_files>\n" + strings.Join(pr.files, "\n") + "\n</pr_files>\n<diff>\n" + pr.diff + "</diff>\nReview the diff.",
		Diff:   pr.diff, Files: pr.files, ClaudeMD: string(rules), Model: "claude-sonnet-5-5",
		MaxCostUSD: 2, MaxTurns: 40, WallSeconds: 120, Samples: samples, Agree: agree,
		RunToken: "chkr_test", ModelURL: modelURL}
	set, err := tools.New(tools.Config{FS: fsys, Kind: "review"})
	if err != nil {
		tb.Fatal(err)
	}
	out, _ := runReview(context.Background(), agent.Config{Job: job, Tools: set})
	if out.Failure != nil {
		tb.Fatalf("%s %s: %+v", pr.name, name, out.Failure)
	}
	return out.Result.Review, out.CostUSD
}

// samplesEffect reviews the sandbox's seeded PRs with each sandbox reviewer
// against a scripted model with hunches (scriptedmodel.Config.Speculative),
// with samples 1 and with samples 3 / agree 2. Findings are counted by
// meaning (findings.Group: a finding and its reworded twin are one); a
// finding is true when the scripted model without hunches reports the same
// finding (findings.Same; its rules: the planted bugs), false otherwise.
func samplesEffect(tb testing.TB) (one, three effect, lines []string) {
	truthSrv := httptest.NewServer(scriptedmodel.Handler())
	defer truthSrv.Close()
	noisySrv := httptest.NewServer(scriptedmodel.New(scriptedmodel.Config{Speculative: true}))
	defer noisySrv.Close()
	lines = append(lines, fmt.Sprintf("%-28s %-12s %-18s %8s %5s %5s %9s", "PR", "reviewer", "samples/agree", "findings", "true", "false", "cost"))
	for _, pr := range sandboxPRs(tb) {
		for _, name := range []string{"security", "correctness", "style"} {
			truth, _ := reviewPR(tb, truthSrv.URL, pr, name, 1, 1)
			for _, s := range []struct {
				samples, agree int
				sum            *effect
			}{{1, 1, &one}, {3, 2, &three}} {
				res, cost := reviewPR(tb, noisySrv.URL, pr, name, s.samples, s.agree)
				groups := findings.Group(res.Findings)
				e := effect{findings: len(groups), costUSD: cost}
				for _, g := range groups {
					if slices.ContainsFunc(truth.Findings, func(k findings.Finding) bool { return findings.Same(&res.Findings[g[0]], &k) }) {
						e.truePos++
					} else {
						e.falsePos++
					}
				}
				s.sum.findings += e.findings
				s.sum.truePos += e.truePos
				s.sum.falsePos += e.falsePos
				s.sum.costUSD += e.costUSD
				lines = append(lines, fmt.Sprintf("%-28s %-12s %-18s %8d %5d %5d %9s", pr.name, name, fmt.Sprintf("%d/%d", s.samples, s.agree), e.findings, e.truePos, e.falsePos, fmt.Sprintf("$%.4f", e.costUSD)))
			}
		}
	}
	for _, s := range []struct {
		label string
		e     effect
	}{{"samples 1", one}, {"samples 3, agree 2", three}} {
		lines = append(lines, fmt.Sprintf("all PRs, %-18s: %d findings, %d true, %d false positives, precision %.0f%%, cost $%.4f",
			s.label, s.e.findings, s.e.truePos, s.e.falsePos, 100*float64(s.e.truePos)/float64(max(s.e.findings, 1)), s.e.costUSD))
	}
	return one, three, lines
}

// TestSamplesEffectOnSandboxPRs: on the sandbox's seeded PRs, three passes
// that must agree keep every true finding, report fewer false positives
// than one pass, and cost two to three times as much. `go test -v` prints
// the figures.
func TestSamplesEffectOnSandboxPRs(t *testing.T) {
	one, three, lines := samplesEffect(t)
	for _, l := range lines {
		t.Log(l)
	}
	if one.truePos == 0 || one.falsePos == 0 {
		t.Fatalf("one pass: %+v; the sandbox PRs should give true findings and hunches", one)
	}
	if three.truePos != one.truePos {
		t.Errorf("true findings %d with three passes, %d with one: agreement must keep what every pass reports", three.truePos, one.truePos)
	}
	if three.falsePos >= one.falsePos {
		t.Errorf("false positives %d with three passes, %d with one: agreement removed none", three.falsePos, one.falsePos)
	}
	// Three passes cost less than three times one: passes 2 and 3 read the
	// tools and system prompt that pass 1 wrote to the prompt cache.
	if three.costUSD < 2*one.costUSD || three.costUSD > 3*one.costUSD {
		t.Errorf("cost $%.4f with three passes, $%.4f with one; want two to three times", three.costUSD, one.costUSD)
	}
}

// BenchmarkSamplesEffect prints the same figures for `make bench`.
func BenchmarkSamplesEffect(b *testing.B) {
	for range b.N {
		_, _, lines := samplesEffect(b)
		for _, l := range lines {
			fmt.Println(l)
		}
	}
}
