package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/eval"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
	"github.com/chakshu-dev/chakshu/internal/syncbuf"
)

const evalCorpus = "../../testdata/eval-corpus"

// runEval runs `chakshu eval ARGS --json` and decodes the report.
func runEval(t *testing.T, args ...string) *eval.Report {
	t.Helper()
	var stdout, stderr syncbuf.Buffer
	if err := run(context.Background(), append(append([]string{"eval"}, args...), "--json"), &stdout, &stderr); err != nil {
		t.Fatalf("chakshu eval %v: %v\n%s", args, err, stderr.String())
	}
	var rep eval.Report
	if err := json.Unmarshal([]byte(stdout.String()), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout.String())
	}
	return &rep
}

func profile(f eval.Figures, name string) eval.Scores {
	for _, p := range f.Profiles {
		if p.Profile == name {
			return p.Scores
		}
	}
	return eval.Scores{}
}

func figures(rep *eval.Report, reviewer string) eval.Figures {
	for _, f := range rep.Reviewers {
		if f.Reviewer == reviewer {
			return f
		}
	}
	return eval.Figures{}
}

// matched says whether some run's finding matched the expected comment at path:line of case.
func matched(t *testing.T, rep *eval.Report, c *eval.Corpus, caseName, path string, line int) []string {
	t.Helper()
	var k *eval.Case
	for i := range c.Cases {
		if c.Cases[i].Name == caseName {
			k = &c.Cases[i]
		}
	}
	if k == nil {
		t.Fatalf("no case %s", caseName)
	}
	var by []string
	for _, r := range rep.Runs {
		if r.Case != caseName {
			continue
		}
		for _, p := range r.Matched {
			if e := k.Expected[p.Expected]; e.Path == path && e.Line == line {
				by = append(by, r.Reviewer)
			}
		}
	}
	return by
}

// The shipped corpus (the sandbox's seeded PRs and two clean PRs) through the
// runner, the gateway and the scripted model: the planted bugs the scripted
// rules can see are found by the reviewer whose focus they are, the overall
// figures are the union's, and a clean PR adds no true positive.
func TestEvalShippedCorpus(t *testing.T) {
	c, err := eval.Load(evalCorpus)
	if err != nil {
		t.Fatal(err)
	}
	// One pass: the sandbox's reviewers run three (samples 3, agree 2).
	rep := runEval(t, "--corpus", evalCorpus, "--samples", "1")
	if rep.Cases != len(c.Cases) || len(rep.Reviewers) != 3 || len(rep.Runs) != 3*len(c.Cases) {
		t.Fatalf("%d cases, %d reviewers, %d runs", rep.Cases, len(rep.Reviewers), len(rep.Runs))
	}
	// The scripted model slips an unfounded twin in beside some findings;
	// the runner's evidence check drops them before they are scored.
	if rep.Overall.Failed != 0 || rep.Overall.CostPerPR <= 0 || rep.Overall.Dropped == 0 {
		t.Fatalf("overall: %+v", rep.Overall)
	}
	// The gateway meters cache reads: the agent's later turns read the
	// tools and system prompt from the prompt cache, its first writes them.
	if o := rep.Overall; o.CacheReadTokens <= 0 || o.CacheReadTokens >= o.InputTokens || o.CacheReadShare != float64(o.CacheReadTokens)/float64(o.InputTokens) {
		t.Fatalf("cache reads %d of %d input tokens, share %f", o.CacheReadTokens, o.InputTokens, o.CacheReadShare)
	}
	// The SQL injections and the committed key are the security reviewer's.
	for _, bug := range []struct {
		caseName, path string
		line           int
	}{
		{"acme/payments-api#1", "internal/store/store.go", 52},
		{"acme/payments-api#1", "internal/handlers/refund.go", 11},
		{"acme/data-pipeline#1", "pipeline/load.py", 24},
	} {
		if by := matched(t, rep, c, bug.caseName, bug.path, bug.line); strings.Join(by, ",") != "security" {
			t.Errorf("%s %s:%d matched by %v, want security alone", bug.caseName, bug.path, bug.line, by)
		}
	}
	if by := matched(t, rep, c, "acme/payments-api#1", "internal/store/store.go", 61); strings.Join(by, ",") != "correctness" {
		t.Errorf("the ignored Scan error matched by %v, want correctness", by)
	}
	// Figures are computed from the runs: recall is matched over expected
	// per profile; the union of reviewers finds at least what each does.
	var expected, inStrict int
	for _, k := range c.Cases {
		for _, e := range k.Expected {
			expected++
			if eval.Profiles[0].Has(e.Category) {
				inStrict++
			}
		}
	}
	all := profile(rep.Overall, "all")
	if all.TP+all.FN != expected || profile(rep.Overall, "strict").TP+profile(rep.Overall, "strict").FN != inStrict {
		t.Fatalf("overall counts %+v do not cover the %d expected comments", all, expected)
	}
	for _, f := range rep.Reviewers {
		if r := profile(f, "strict").Recall; r > profile(rep.Overall, "strict").Recall {
			t.Errorf("%s recall %.3f above the overall %.3f", f.Reviewer, r, profile(rep.Overall, "strict").Recall)
		}
		var findings int
		for _, r := range rep.Runs {
			if r.Reviewer == f.Reviewer {
				findings += len(r.Findings)
			}
		}
		if s := profile(f, "all"); s.TP+s.FP != findings {
			t.Errorf("%s: TP %d + FP %d under all, but %d findings", f.Reviewer, s.TP, s.FP, findings)
		}
	}
	if all.Recall >= 1 || all.Recall <= 0.5 {
		t.Errorf("overall recall %.3f: the scripted rules miss some planted bugs (the unchecked rows.Err) and find most", all.Recall)
	}
	// The clean payments PR gets nothing; the clean pipeline PR's CLI print is
	// taken for debugging output: that is the corpus's false positive.
	for _, r := range rep.Runs {
		if r.Case == "acme/payments-api#2" && len(r.Findings) > 0 {
			t.Errorf("%s reported %d findings on the clean payments PR", r.Reviewer, len(r.Findings))
		}
	}

	// Without the clean pipeline PR the style reviewer's precision is higher,
	// by exactly its findings there.
	var onClean int
	for _, r := range rep.Runs {
		if r.Case == "acme/data-pipeline#2" && r.Reviewer == "style" {
			onClean = len(r.Findings)
		}
	}
	if onClean == 0 {
		t.Fatal("the style reviewer found nothing on the clean pipeline PR")
	}
	without := copyCorpus(t, func(golden string) string {
		return strings.Replace(golden, `  {
    "pr_title": "Command line to load one export",
    "url": "https://github.com/acme/data-pipeline/pull/2",
    "source": "clean: the command's print is its output, not debugging",
    "comments": []
  }
`, "", 1)
	}, "data-pipeline.json", ",\n  {\n    \"pr_title\": \"Command line")
	rep2 := runEval(t, "--corpus", without, "--reviewer", "style")
	with, wo := profile(figures(rep, "style"), "all"), profile(figures(rep2, "style"), "all")
	if wo.FP != with.FP-onClean || wo.TP != with.TP || wo.Precision <= with.Precision {
		t.Fatalf("style without the clean PR %+v, with it %+v (%d findings there)", wo, with, onClean)
	}
}

// copyCorpus copies the shipped corpus to a temporary directory, rewriting
// golden_comments/file with edit; cut must no longer be in it.
func copyCorpus(t *testing.T, edit func(string) string, file, cut string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := os.CopyFS(dir, os.DirFS(evalCorpus)); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "golden_comments", file)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := edit(string(b))
	s = strings.Replace(s, "  },\n]", "  }\n]", 1)
	if strings.Contains(s, cut) {
		t.Fatalf("%s still has %q", file, cut)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// stripLocations copies the shipped corpus without paths and lines, as the
// Martian benchmark publishes its golden comments; edit may reword one.
func stripLocations(t *testing.T, edit func(string) string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := os.CopyFS(dir, os.DirFS(evalCorpus)); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "golden_comments", "*.json"))
	loc := regexp.MustCompile(`,\n\s*"path": "[^"]*",\n\s*"line": \d+`)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := edit(loc.ReplaceAllString(string(b), ""))
		if strings.Contains(s, `"path"`) || strings.Contains(s, `"line"`) {
			t.Fatalf("%s keeps a location", p)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runOf(rep *eval.Report, caseName, reviewer string) eval.RunResult {
	for _, r := range rep.Runs {
		if r.Case == caseName && r.Reviewer == reviewer {
			return r
		}
	}
	return eval.RunResult{}
}

// Golden comments without a place, as the benchmark publishes them: matching
// by place finds nothing; the judge (the scripted model through the gateway)
// scores as Martian does: issues extracted from every comment, summary
// included; one issue matching two golden comments; pull requests without
// golden comments skipped; counts summed over pull requests.
func TestEvalJudgeScoresAsMartian(t *testing.T) {
	stripped := stripLocations(t, func(s string) string { return s })
	plain := runEval(t, "--corpus", stripped)
	if plain.Overall.Total.TP != 0 || plain.Scoring != "location" {
		t.Fatalf("by place, without places: %+v", plain.Overall.Total)
	}
	judged := runEval(t, "--corpus", stripped, "--judge")
	if judged.Scoring != "martian" || judged.JudgeModel == "" || judged.JudgeCostUSD <= 0 {
		t.Fatalf("judged report: scoring %q judge %q cost %f", judged.Scoring, judged.JudgeModel, judged.JudgeCostUSD)
	}
	// The correctness reviewer's one finding on the refunds PR (the
	// discarded Scan error) is the problem of two golden comments: the
	// Scan error and the unchecked rows.Err.
	r := runOf(judged, "acme/payments-api#1", "correctness")
	if r.Evaluation.TP != 2 || len(r.Candidates) != 1 || !r.Extracted {
		t.Fatalf("correctness on the refunds PR: %d candidates (extracted %v), evaluation %+v", len(r.Candidates), r.Extracted, r.Evaluation)
	}
	if a, b := r.Evaluation.TruePositives[0], r.Evaluation.TruePositives[1]; a.MatchedCandidate != b.MatchedCandidate || a.Confidence <= 0 {
		t.Fatalf("two golden comments, one candidate: %+v", r.Evaluation.TruePositives)
	}
	// The summary ("Found 1 issue …") was sent for extraction and left out.
	if !strings.HasPrefix(r.Summary, "Found ") || slices.Contains(r.Candidates, r.Summary) {
		t.Fatalf("summary %q, candidates %q", r.Summary, r.Candidates)
	}
	// Clean pull requests are skipped: the style reviewer's print finding
	// on the clean pipeline PR, a false positive by place, counts nothing.
	clean := runOf(judged, "acme/data-pipeline#2", "style")
	if !clean.Evaluation.Skipped || len(clean.Findings) == 0 {
		t.Fatalf("style on the clean PR: %d findings, evaluation %+v", len(clean.Findings), clean.Evaluation)
	}
	// Figures are the runs' counts summed.
	for _, f := range judged.Reviewers {
		var sum eval.Counts
		for _, r := range judged.Runs {
			if r.Reviewer == f.Reviewer {
				sum.Total(r.Evaluation)
			}
		}
		if sum != f.Total.Counts {
			t.Errorf("%s: total %+v, runs sum to %+v", f.Reviewer, f.Total.Counts, sum)
		}
	}
	if judged.Overall.Total.TP <= 0 || profile(judged.Overall, "strict").TP <= 0 {
		t.Fatalf("overall %+v", judged.Overall)
	}

	// A golden comment reworded into another problem at the same place:
	// the judge no longer matches the Scan finding to it.
	moved := stripLocations(t, func(golden string) string {
		return strings.Replace(golden, "The error of rows.Scan is discarded, so a row that fails to scan is appended as a zero Charge and returned as if it were real.",
			"Refunds are listed oldest first although the doc comment promises newest first.", 1)
	})
	named := runEval(t, "--corpus", moved, "--reviewer", "correctness", "--judge=claude-haiku-5-5")
	if named.JudgeModel != "claude-haiku-5-5" || named.Scoring != "martian" {
		t.Fatalf("--judge=MODEL: judged by %q, scoring %q", named.JudgeModel, named.Scoring)
	}
	rm := runOf(named, "acme/payments-api#1", "correctness")
	if rm.Evaluation.TP != 1 || rm.Evaluation.FN != r.Evaluation.FN+1 {
		t.Fatalf("after the rewording: %+v (before %+v)", rm.Evaluation, r.Evaluation)
	}
}

func TestEvalMinF1AndUsage(t *testing.T) {
	var stdout, stderr syncbuf.Buffer
	ctx := context.Background()
	err := run(ctx, []string{"eval", "--corpus", evalCorpus, "--reviewer", "style", "--min-f1", "0.99"}, &stdout, &stderr)
	if !errors.Is(err, errBelowMinF1) || !strings.Contains(stdout.String(), "precision") {
		t.Fatalf("--min-f1 0.99: %v\n%s", err, stdout.String())
	}
	// --work-dir keeps each evaluation in a folder of its own: a second run
	// into the same directory works.
	work := t.TempDir()
	for range 2 {
		if err := run(ctx, []string{"eval", "--corpus", evalCorpus, "--reviewer", "style", "--min-f1", "0.01", "--work-dir", work}, &stdout, &stderr); err != nil {
			t.Fatalf("--min-f1 0.01 --work-dir: %v", err)
		}
	}
	if kept, _ := filepath.Glob(filepath.Join(work, "chakshu-eval-*", "db")); len(kept) != 2 {
		t.Fatalf("--work-dir kept %v", kept)
	}
	for _, args := range [][]string{{"eval"}, {"eval", "--corpus", evalCorpus, "--min-f1-profile", "loose"}, {"eval", "--corpus", evalCorpus, "extra"}} {
		if err := run(ctx, args, &stdout, &stderr); err != errUsage {
			t.Errorf("%v: %v, want the usage error", args, err)
		}
	}
	for args, want := range map[string]string{
		"--reviewer nobody":        "no such reviewer",
		"--provider bedrock":       "not configured",
		"--reviewers /nonexistent": "--reviewers",
	} {
		err := run(ctx, append([]string{"eval", "--corpus", evalCorpus}, strings.Fields(args)...), &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}

// A provider name runs through the gateway configured from the CHAKSHU_*
// settings, as `chakshu web` is: here Anthropic's API at CHAKSHU_MODEL_URL
// (the scripted model, which insists on the configured key).
func TestEvalConfiguredProvider(t *testing.T) {
	url, stop, err := eval.SandboxModel(scriptedmodel.Config{APIKey: "sk-eval-key"})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	t.Setenv("CHAKSHU_MODEL_URL", url)
	t.Setenv("CHAKSHU_MODEL_API_KEY", "sk-eval-key")
	t.Setenv("CHAKSHU_DATA_DIR", t.TempDir())
	// Without --yes: the estimate, and no model call.
	var out, errOut syncbuf.Buffer
	err = run(context.Background(), []string{"eval", "--corpus", evalCorpus, "--provider", "anthropic", "--reviewer", "security"}, &out, &errOut)
	if !errors.Is(err, errNotConfirmed) || !strings.Contains(errOut.String(), "Estimate: 5 pull requests × 1 reviewers") || out.String() != "" {
		t.Fatalf("without --yes: %v\n%s%s", err, errOut.String(), out.String())
	}
	rep := runEval(t, "--corpus", evalCorpus, "--provider", "anthropic", "--reviewer", "security", "--yes")
	if rep.Overall.Failed != 0 || profile(rep.Overall, "strict").TP == 0 || rep.Overall.CostUSD <= 0 {
		t.Fatalf("through the configured provider: %+v", rep.Overall)
	}
	// A key the provider refuses fails every review: an error, not a score of 0.
	t.Setenv("CHAKSHU_MODEL_API_KEY", "wrong")
	var stdout, stderr syncbuf.Buffer
	err = run(context.Background(), []string{"eval", "--corpus", evalCorpus, "--provider", "anthropic", "--reviewer", "security", "--yes"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "every review failed") || stdout.String() != "" {
		t.Fatalf("with a key the provider refuses: %v\n%s", err, stdout.String())
	}
}

// With the scripted model's doubts switched on, verification of a single
// pass refutes false positives and keeps every planted bug the pass found,
// for a cost of its own.
func TestEvalShowsVerificationEffect(t *testing.T) {
	off := runEval(t, "--corpus", evalCorpus, "--hunches", "--samples", "1", "--verify", "off")
	on := runEval(t, "--corpus", evalCorpus, "--hunches", "--samples", "1", "--verify", "on")
	o, v := profile(off.Overall, "all"), profile(on.Overall, "all")
	t.Logf("unverified: TP %d FP %d precision %.2f, $%.4f/PR; verified: TP %d FP %d precision %.2f, $%.4f/PR",
		o.TP, o.FP, o.Precision, off.Overall.CostPerPR, v.TP, v.FP, v.Precision, on.Overall.CostPerPR)
	if o.FP == 0 || v.FP >= o.FP || v.TP != o.TP {
		t.Fatalf("verified %+v, unverified %+v: want fewer false positives, every true one kept", v, o)
	}
	if on.Overall.CostPerPR <= off.Overall.CostPerPR {
		t.Fatalf("verification costs nothing: $%.4f per PR with it, $%.4f without", on.Overall.CostPerPR, off.Overall.CostPerPR)
	}
}

// With the scripted model's doubts switched on (--hunches), three passes that
// must agree twice (--samples 3 --agree 2) keep every planted bug the single
// pass found and remove false positives, at a higher cost: the precision
// knob's effect, measured on the shipped corpus.
func TestEvalShowsSamplesEffect(t *testing.T) {
	// The vote alone: verification (on by default) would refute the hunches
	// before the vote could.
	one := runEval(t, "--corpus", evalCorpus, "--hunches", "--samples", "1", "--verify", "off")
	three := runEval(t, "--corpus", evalCorpus, "--hunches", "--samples", "3", "--agree", "2", "--verify", "off")
	o, a := profile(one.Overall, "all"), profile(three.Overall, "all")
	if o.FP == 0 {
		t.Fatalf("one pass with hunches has no false positive: %+v", o)
	}
	if a.FP >= o.FP || a.TP < o.TP || a.Precision <= o.Precision {
		t.Fatalf("samples 3 / agree 2 %+v, one pass %+v: want fewer false positives, every true one kept", a, o)
	}
	if three.Overall.CostPerPR <= one.Overall.CostPerPR {
		t.Fatalf("three passes cost $%.4f per PR, one pass $%.4f", three.Overall.CostPerPR, one.Overall.CostPerPR)
	}
	// Each run reports what the vote (and the evidence check) dropped.
	if three.Overall.Dropped <= one.Overall.Dropped {
		t.Fatalf("dropped %d with agreement, %d without", three.Overall.Dropped, one.Overall.Dropped)
	}
	var stderr syncbuf.Buffer
	for _, args := range [][]string{{"--passes", "2", "--agree", "3"}, {"--samples", "9"}, {"--passes", "-1"}, {"--hunches", "--provider", "anthropic"}} {
		err := run(context.Background(), append([]string{"eval", "--corpus", evalCorpus}, args...), &syncbuf.Buffer{}, &stderr)
		if !errors.Is(err, errUsage) {
			t.Errorf("eval %v: err %v, want a usage error", args, err)
		}
	}
}

// Editing a reviewer changes its eval figures: the style reviewer whose
// CLAUDE.md also switches the security rules on finds the planted injections
// too (the scripted model follows the reviewer's `Rules:` line).
func TestEvalFollowsAnEditedReviewer(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, sandbox.ReviewersFS()); err != nil {
		t.Fatal(err)
	}
	before := runEval(t, "--corpus", evalCorpus, "--reviewers", dir, "--reviewer", "style")
	md := filepath.Join(dir, "style", "CLAUDE.md")
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), "Rules: style", "Rules: style, security", 1)
	if edited == string(b) {
		t.Fatal("the style reviewer's CLAUDE.md has no `Rules: style` line to edit")
	}
	if err := os.WriteFile(md, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	after := runEval(t, "--corpus", evalCorpus, "--reviewers", dir, "--reviewer", "style")
	b4, af := profile(before.Overall, "all"), profile(after.Overall, "all")
	if af.TP <= b4.TP || af.Recall <= b4.Recall {
		t.Fatalf("style with security rules %+v, before %+v: want more planted bugs found", af, b4)
	}
}

// The shipped sandbox corpus, written by `chakshu eval --out`, appears as
// Chakshu's rows in the benchmark's table (here a benchmark checkout of our
// own in the published layout), with cost per PR and a note that it was
// matched by place.
func TestEvalLeaderboardWithChakshu(t *testing.T) {
	const martian = "../../internal/eval/testdata/martian"
	results := filepath.Join(t.TempDir(), "results.json")
	var stdout, stderr syncbuf.Buffer
	ctx := context.Background()
	if err := run(ctx, []string{"eval", "--corpus", evalCorpus, "--out", results}, &stdout, &stderr); err != nil {
		t.Fatalf("eval --out: %v\n%s", err, stderr.String())
	}
	rep, err := eval.ReadReport(results)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Models) != 3 || len(rep.ReviewerVersions) != 3 || rep.ReviewerVersions["security"] == "" || rep.WallSeconds <= 0 || rep.Overall.TokensPerPR <= 0 {
		t.Fatalf("results file: models %v versions %v wall %f tokens/PR %f", rep.Models, rep.ReviewerVersions, rep.WallSeconds, rep.Overall.TokensPerPR)
	}
	stdout = syncbuf.Buffer{}
	if err := run(ctx, []string{"eval", "leaderboard", "--martian", martian, "--with", results}, &stdout, &stderr); err != nil {
		t.Fatalf("leaderboard: %v\n%s", err, stderr.String())
	}
	out := stdout.String()
	sec := figures(rep, "security")
	row := regexp.MustCompile(`(?m)^\s*chakshu/security\*\s+` + regexp.QuoteMeta(fmt.Sprintf("%.3f   %.3f  %.3f", sec.Total.Precision, sec.Total.Recall, sec.Total.F1)) +
		`\s+` + fmt.Sprintf("%d\\s+%d\\s+%d\\s+\\$%.4f", sec.Total.TP, sec.Total.FP, sec.Total.FN, sec.CostPerPR) + `$`)
	if !row.MatchString(out) || !strings.Contains(out, "tool-b") || !strings.Contains(out, "chakshu (all reviewers)") ||
		!strings.Contains(out, "* on corpus "+evalCorpus+" (5 pull requests), not the benchmark's; matched by place, not judged") {
		t.Fatalf("leaderboard with Chakshu's rows:\n%s", out)
	}
	// Rows stay sorted by F1 with Chakshu's among them.
	var f1s []float64
	for _, l := range strings.Split(out, "\n") {
		var name string
		var p, r, f float64
		if n, _ := fmt.Sscanf(strings.TrimSpace(strings.Replace(l, "chakshu (all reviewers)", "chakshu-all", 1)), "%s %f %f %f", &name, &p, &r, &f); n == 4 {
			f1s = append(f1s, f)
		}
	}
	if len(f1s) != 2+4 || !slices.IsSortedFunc(f1s, func(a, b float64) int { return cmp.Compare(b, a) }) {
		t.Fatalf("F1 column %v: want 6 rows sorted down\n%s", f1s, out)
	}
	for _, args := range [][]string{{"leaderboard"}, {"leaderboard", "--martian", martian, "--profile", "loose"}, {"leaderboard", "--martian", martian, "--check", "--profile", "core"}} {
		if err := run(ctx, append([]string{"eval"}, args...), &stdout, &stderr); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
	if err := run(ctx, []string{"eval", "leaderboard", "--martian", martian, "--check"}, &stdout, &stderr); err != nil {
		t.Fatalf("--check on the fixture: %v", err)
	}
}

// `chakshu eval import` against the simulated GitHub (CHAKSHU_GITHUB_URL,
// GITHUB_TOKEN): a progress line per pull request, a corpus eval loads, and
// a second run that fetches nothing.
func TestEvalImport(t *testing.T) {
	sim := ghsimtest.New(t)
	sim.CreateRepo("acme", "ledger", map[string]string{"ledger/post.go": "package ledger\n"})
	sim.CreateBranch("acme/ledger", "fees", "main")
	sim.Commit("acme/ledger", "fees", map[string]string{"ledger/post.go": "package ledger\n\nfunc Post() {}\n"}, "Post")
	sim.OpenPR("acme/ledger", "fees", "main", "Post fees as separate entries", "", "ana", false)
	sim.CreateBranch("acme/ledger", "docs", "main")
	sim.Commit("acme/ledger", "docs", map[string]string{"docs/export.md": "# Export\n"}, "Docs")
	sim.OpenPR("acme/ledger", "docs", "main", "Document the export format", "", "ana", false)
	sim.SetPublic("acme/ledger", true) // the benchmark's repositories are public
	t.Setenv("CHAKSHU_GITHUB_URL", sim.URL())
	t.Setenv("GITHUB_TOKEN", sim.UserToken("reader"))
	out := filepath.Join(t.TempDir(), "corpus")
	args := []string{"eval", "import", "--martian", "../../internal/eval/testdata/martian-import", "--out", out}
	for i, want := range []string{"[2/2] acme/ledger#2: Document the export format: 1 changed files", "[2/2] acme/ledger#2: already imported"} {
		var stdout, stderr syncbuf.Buffer
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), want) {
			t.Fatalf("run %d: no %q in\n%s", i, want, stderr.String())
		}
	}
	if c, err := eval.Load(out); err != nil || len(c.Cases) != 2 {
		t.Fatalf("imported corpus: %v", err)
	}
}

// `chakshu eval --stages` on the rewording scripted model (findings worded
// anew each pass, a planted false finding in every pass, doubts that vary
// between passes): passes grouped by meaning keep every true finding one
// pass finds, and verification then removes false positives without losing
// a true one. The table prints cost and cache-read share beside the scores.
func TestEvalStages(t *testing.T) {
	var stdout, stderr syncbuf.Buffer
	if err := run(context.Background(), []string{"eval", "--corpus", evalCorpus, "--stages", "--json"}, &stdout, &stderr); err != nil {
		t.Fatalf("eval --stages: %v\n%s", err, stderr.String())
	}
	var res []eval.StageResult
	if err := json.Unmarshal([]byte(stdout.String()), &res); err != nil {
		t.Fatalf("stages: %v\n%s", err, stdout.String())
	}
	if len(res) != 3 {
		t.Fatalf("%d stages, want 3", len(res))
	}
	one, grouped, verified := res[0].Report.Overall, res[1].Report.Overall, res[2].Report.Overall
	t.Logf("one pass %+v; grouped %+v; verified %+v", one.Total, grouped.Total, verified.Total)
	if one.Total.FP == 0 || one.Total.TP == 0 {
		t.Fatalf("one pass on the rewording model: %+v, want true and false positives", one.Total)
	}
	if grouped.Total.Recall < one.Total.Recall {
		t.Errorf("passes with grouping recall %.3f, below one pass's %.3f", grouped.Total.Recall, one.Total.Recall)
	}
	if verified.Total.FP >= grouped.Total.FP || verified.Total.TP < grouped.Total.TP {
		t.Errorf("verified %+v, unverified %+v: want fewer false positives, every true one kept", verified.Total, grouped.Total)
	}
	// The planted false finding is reported by every pass, so agreement
	// keeps it and only verification removes it.
	planted := func(rep *eval.Report) int {
		n := 0
		for _, r := range rep.Runs {
			for _, f := range r.Findings {
				if scriptedmodel.Planted(&findings.Finding{Title: f.Title}) {
					n++
				}
			}
		}
		return n
	}
	if p := planted(res[1].Report); p == 0 {
		t.Errorf("no planted false finding survives agreement of passes: the double does not exercise verification")
	}
	if p := planted(res[2].Report); p != 0 {
		t.Errorf("%d planted false findings survive verification", p)
	}
	// Each step costs more than the one before: every stage pays its own
	// way, no stage reading a prompt cache an earlier one wrote.
	if !(one.CostPerPR < grouped.CostPerPR && grouped.CostPerPR < verified.CostPerPR) {
		t.Errorf("cost per PR: one pass $%.4f, grouped $%.4f, verified $%.4f; want each step dearer", one.CostPerPR, grouped.CostPerPR, verified.CostPerPR)
	}
	for _, s := range res {
		o := s.Report.Overall
		if o.CostPerPR <= 0 || o.CacheReadTokens <= 0 || o.CacheReadShare <= 0 || o.CacheReadShare >= 1 {
			t.Errorf("stage %s: cost/PR $%.4f, cache reads %d of %d input tokens (share %.3f)", s.Stage.Name, o.CostPerPR, o.CacheReadTokens, o.InputTokens, o.CacheReadShare)
		}
	}
	// The table prints the same figures.
	var table syncbuf.Buffer
	if err := run(context.Background(), []string{"eval", "--corpus", evalCorpus, "--stages"}, &table, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, s := range res {
		o := s.Report.Overall
		row := regexp.MustCompile(regexp.QuoteMeta(s.Stage.Name) + fmt.Sprintf(`\s.*\s%.3f\s+%.3f\s+%.3f\s.*\$%.4f\s+%.1f%%`,
			o.Total.Precision, o.Total.Recall, o.Total.F1, o.CostPerPR, 100*o.CacheReadShare))
		if !row.MatchString(table.String()) {
			t.Errorf("no row for stage %s with its figures in:\n%s", s.Stage.Name, table.String())
		}
	}
	for _, args := range [][]string{{"--stages", "--verify", "on"}, {"--stages", "--samples", "3"}, {"--stages", "--provider", "anthropic"}} {
		err := run(context.Background(), append([]string{"eval", "--corpus", evalCorpus}, args...), &syncbuf.Buffer{}, &syncbuf.Buffer{})
		if !errors.Is(err, errUsage) {
			t.Errorf("eval %v: err %v, want a usage error", args, err)
		}
	}
}
