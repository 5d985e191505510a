package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/eval"
	"github.com/chakshu-dev/chakshu/internal/gateway"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
)

// evalOptions are `chakshu eval`'s flags.
type evalOptions struct {
	corpus, reviewersDir, provider, judgeModel, workDir, minProfile, out string
	verify                                                               string
	names                                                                listFlag
	judge, asJSON, verbose, hunches, yes, stages                         bool
	window, samples, agree                                               int
	minF1, beta                                                          float64
}

// judgeFlag is --judge (on, the judge model from --judge-model or the first
// reviewer's) or --judge=MODEL.
type judgeFlag struct{ o *evalOptions }

func (judgeFlag) IsBoolFlag() bool { return true }

func (j judgeFlag) String() string {
	if j.o == nil || !j.o.judge {
		return "false"
	}
	return cmp.Or(j.o.judgeModel, "true")
}

func (j judgeFlag) Set(v string) error {
	switch v {
	case "true":
		j.o.judge = true
	case "false":
		j.o.judge = false
	default:
		j.o.judge, j.o.judgeModel = true, v
	}
	return nil
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// errBelowMinF1 ends `chakshu eval --min-f1` when the figure is below it.
var errBelowMinF1 = errors.New("F1 below --min-f1")

// errNotConfirmed ends a paid `chakshu eval` run without --yes.
var errNotConfirmed = errors.New("not run")

func evalCommand() command {
	o := &evalOptions{}
	return command{name: "eval", summary: "run reviewers over a labelled corpus and print precision, recall and F1",
		help: "chakshu eval --corpus DIR [--reviewer NAME...] [--provider sandbox|anthropic|bedrock|vertex|foundry|openai] [--judge] [--json]\n\n" +
			"Reviews every pull request of the corpus (DIR/golden_comments/*.json in the golden-comments format of\n" +
			"Martian's code-review benchmark, trees in DIR/cases/<owner>/<repo>/<number>/{base,head}) with each\n" +
			"reviewer, through chakshu-action's review path and Chakshu's model gateway, and matches the findings\n" +
			"the publisher would post to the expected comments by file and line window; with --judge it scores as\n" +
			"the Martian benchmark does (a model extracts the issues of each review's comments, summary included,\n" +
			"and judges every expected comment against every issue; see docs/eval.md). Prints precision, recall,\n" +
			"F1 and F-beta per reviewer and overall, over every expected comment and under the benchmark's strict,\n" +
			"core and all category profiles, with cost and tokens per PR. --provider sandbox (the default)\n" +
			"uses the sandbox's scripted model; any other provider uses the CHAKSHU_MODEL_* and provider settings\n" +
			"below, as `chakshu web` does, and costs money: the estimate is printed first, and --yes is needed to spend. Exits 0 whatever the scores, unless --min-f1 is set.",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&o.corpus, "corpus", "", "the corpus directory (required)")
			fs.StringVar(&o.reviewersDir, "reviewers", "", "a reviewers folder (<name>/reviewer.yaml, CLAUDE.md, skills/); default: the sandbox's seeded reviewers")
			fs.Var(&o.names, "reviewer", "run only this reviewer (repeatable); default: every reviewer of the folder")
			fs.StringVar(&o.provider, "provider", "sandbox", "sandbox, or the configured provider to use: anthropic, bedrock, vertex, foundry, openai")
			fs.Var(judgeFlag{o}, "judge", "score as the Martian benchmark does: a model through the gateway extracts each review's issues and judges every expected comment against every issue (needed for corpora without paths and lines); --judge=MODEL names the judge's model")
			fs.StringVar(&o.judgeModel, "judge-model", "", "the judge's model; default: the first reviewer's")
			fs.IntVar(&o.window, "window", eval.DefaultWindow, "a finding matches an expected comment within this many lines of it (±)")
			fs.BoolVar(&o.asJSON, "json", false, "print the report as JSON")
			fs.BoolVar(&o.yes, "yes", false, "spend: run on a paid provider after printing the estimate (without it, only the estimate is printed); the sandbox's scripted model needs no --yes")
			fs.StringVar(&o.out, "out", "", "also write the report as JSON to this results file (for `chakshu eval leaderboard --with`)")
			fs.Float64Var(&o.beta, "beta", eval.DefaultBeta, "the F-beta reported beside F1 (the benchmark's score_profiles.py defaults to 2)")
			fs.Float64Var(&o.minF1, "min-f1", 0, "exit 1 when the overall F1 under --min-f1-profile is below this (0: never)")
			fs.StringVar(&o.minProfile, "min-f1-profile", "core", "the profile --min-f1 checks: strict, core or all")
			fs.StringVar(&o.workDir, "work-dir", "", "keep the cases' repositories and the run database in a new folder under this one (default: a temporary directory, removed)")
			fs.BoolVar(&o.verbose, "verbose", false, "print progress and the agents' logs to stderr")
			fs.IntVar(&o.samples, "passes", 0, "run every reviewer with this many agent passes (reviewer.yaml passes); 0: each reviewer's own")
			fs.IntVar(&o.samples, "samples", 0, "the older name of --passes")
			fs.IntVar(&o.agree, "agree", 0, "keep findings at least this many passes report (reviewer.yaml agree); 0: each reviewer's own, or 1 with --passes")
			fs.StringVar(&o.verify, "verify", "", "on or off: verify every reviewer's findings (reviewer.yaml verify), or not; empty: each reviewer's own")
			fs.BoolVar(&o.stages, "stages", false, "sandbox only: run the corpus three times on the rewording scripted model (findings worded anew each pass, a planted false finding, doubts that vary between passes) and print side by side one pass, three passes grouped by meaning with two agreeing, and those verified")
			fs.BoolVar(&o.hunches, "hunches", false, "sandbox only: the scripted model also reports low-confidence findings that vary between passes, as a real model's doubts do (shows what --passes and --agree remove)")
		},
		run: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			if len(args) > 0 && args[0] == "leaderboard" {
				return leaderboardCmd(args[1:], stdout, stderr)
			}
			if len(args) > 0 && args[0] == "import" {
				return importCmd(ctx, args[1:], stdout, stderr)
			}
			if len(args) > 0 {
				fmt.Fprintf(stderr, "chakshu eval: unexpected arguments %q\n", args)
				return errUsage
			}
			return evalCmd(ctx, o, stdout, stderr)
		}}
}

func evalCmd(ctx context.Context, o *evalOptions, stdout, stderr io.Writer) error {
	if o.corpus == "" {
		fmt.Fprintln(stderr, "chakshu eval: --corpus DIR is required")
		return errUsage
	}
	if o.samples < 0 || o.samples > reviewerconfig.MaxSamples || o.agree < 0 || (o.agree > 0 && o.agree > max(o.samples, 1)) {
		fmt.Fprintf(stderr, "chakshu eval: want 0 ≤ --agree ≤ --passes ≤ %d (got --passes %d --agree %d)\n", reviewerconfig.MaxSamples, o.samples, o.agree)
		return errUsage
	}
	if o.verify != "" && o.verify != "on" && o.verify != "off" {
		fmt.Fprintf(stderr, "chakshu eval: --verify is on or off (got %q)\n", o.verify)
		return errUsage
	}
	if o.hunches && o.provider != "sandbox" {
		fmt.Fprintln(stderr, "chakshu eval: --hunches is for --provider sandbox (the scripted model)")
		return errUsage
	}
	if !slices.ContainsFunc(eval.Profiles, func(p eval.Profile) bool { return p.Name == o.minProfile }) {
		fmt.Fprintf(stderr, "chakshu eval: --min-f1-profile %q is not strict, core or all\n", o.minProfile)
		return errUsage
	}
	if o.stages && (o.provider != "sandbox" || o.samples > 0 || o.agree > 0 || o.verify != "" || o.judge) {
		fmt.Fprintln(stderr, "chakshu eval: --stages runs on --provider sandbox and sets the passes, agreement and verification itself (no --passes, --agree, --verify or --judge)")
		return errUsage
	}
	corpus, err := eval.Load(o.corpus)
	if err != nil {
		return err
	}
	if o.beta <= 0 {
		fmt.Fprintln(stderr, "chakshu eval: --beta must be positive")
		return errUsage
	}
	cfg := eval.Config{Corpus: corpus, Window: o.window, Judge: o.judge, JudgeModel: o.judgeModel, WorkDir: o.workDir, Beta: o.beta}
	if o.judge && !o.asJSON {
		fmt.Fprintln(stderr, "Scoring as the Martian benchmark does; see docs/eval.md.")
	}
	if o.verbose {
		cfg.Log = stderr
	}
	if o.stages {
		return evalStages(ctx, o, cfg, stdout)
	}
	if o.provider == "sandbox" {
		url, stop, err := eval.SandboxModel(scriptedmodel.Config{Speculative: o.hunches})
		if err != nil {
			return err
		}
		defer stop()
		cfg.Gateway = gateway.Config{UpstreamURL: url}
	} else if cfg.Gateway, cfg.Models, err = configuredGateway(ctx, o.provider); err != nil {
		return err
	}
	if cfg.Reviewers, err = loadEvalReviewers(o, cfg.Models); err != nil {
		return err
	}
	judgeModel := cfg.JudgeModel
	if judgeModel == "" {
		judgeModel = cfg.Reviewers[0].Config.Model
	}
	est, err := eval.EstimateCost(corpus, cfg.Reviewers, cfg.Models, cfg.Judge, judgeModel)
	if err != nil {
		return err
	}
	est.Write(stderr, judgeModel)
	if o.provider != "sandbox" && !o.yes {
		return fmt.Errorf("%w: this spends money on %s; run again with --yes to go ahead", errNotConfirmed, o.provider)
	}
	rep, err := eval.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := writeResults(o.out, rep); err != nil {
			return err
		}
	}
	if o.asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteTable(stdout)
	}
	if err != nil {
		return err
	}
	if o.minF1 > 0 {
		for _, p := range rep.Overall.Profiles {
			if p.Profile == o.minProfile && p.F1 < o.minF1 {
				return fmt.Errorf("%w: overall F1 under %s is %.3f, below %.3f", errBelowMinF1, p.Profile, p.F1, o.minF1)
			}
		}
	}
	return nil
}

// evalStages is `chakshu eval --stages`: the method's stages (eval.Stages)
// on the rewording scripted model, side by side.
func evalStages(ctx context.Context, o *evalOptions, cfg eval.Config, stdout io.Writer) error {
	var err error
	if cfg.Reviewers, err = loadEvalReviewers(o, cfg.Models); err != nil {
		return err
	}
	var res []eval.StageResult
	for _, st := range eval.Stages {
		// A model of its own per stage: the scripted model keeps a prompt
		// cache, and a stage must not read what the one before it wrote.
		url, stop, err := eval.SandboxModel(scriptedmodel.Config{Reword: true, Speculative: true})
		if err != nil {
			return err
		}
		cfg.Gateway = gateway.Config{UpstreamURL: url}
		r, err := eval.RunStages(ctx, cfg, []eval.Stage{st})
		stop()
		if err != nil {
			return err
		}
		res = append(res, r...)
	}
	if o.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return eval.WriteStages(stdout, res)
}

// configuredGateway builds the gateway's upstreams from the CHAKSHU_* settings,
// as `chakshu web` does, and checks that provider is among them.
func configuredGateway(ctx context.Context, provider string) (gateway.Config, *models.Source, error) {
	cfg, err := loadConfig()
	if err != nil {
		return gateway.Config{}, nil, err
	}
	switch {
	case provider == models.ProviderAnthropic:
		if cfg.ModelAPIKey == "" && cfg.ModelURL == config.DefaultModelURL {
			return gateway.Config{}, nil, errors.New("--provider anthropic needs CHAKSHU_MODEL_API_KEY")
		}
	case !slices.Contains(cfg.Providers.Configured(), provider):
		return gateway.Config{}, nil, fmt.Errorf("--provider %s is not configured (configured: anthropic%s); see README, Model providers",
			provider, prefixed(cfg.Providers.Configured()))
	}
	ups, err := gateway.Upstreams(ctx, cfg.Providers, nil)
	if err != nil {
		return gateway.Config{}, nil, err
	}
	src, err := models.NewSourceOver(models.Builtin(), cfg.ModelCatalog)
	if err != nil {
		return gateway.Config{}, nil, err
	}
	platform := cfg.Providers.Platform
	if provider != models.ProviderAnthropic {
		platform = provider
	}
	return gateway.Config{UpstreamURL: cfg.ModelURL, APIKey: cfg.ModelAPIKey, Betas: cfg.ModelBetas,
		Upstreams: ups, Platform: platform}, src, nil
}

func prefixed(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ", " + strings.Join(ss, ", ")
}

// loadEvalReviewers reads the reviewers folder (the sandbox's by default) and
// keeps those --reviewer names.
func loadEvalReviewers(o *evalOptions, src *models.Source) ([]reviewerconfig.Local, error) {
	var all []reviewerconfig.Local
	var err error
	if o.reviewersDir == "" {
		all, err = reviewerconfig.LoadFS(sandbox.ReviewersFS(), "sandbox reviewers", src, time.Now())
	} else {
		if _, err := os.Stat(o.reviewersDir); err != nil {
			return nil, fmt.Errorf("--reviewers: %w", err)
		}
		all, err = reviewerconfig.LoadDir(o.reviewersDir, src, time.Now())
	}
	if err != nil {
		return nil, err
	}
	if o.samples > 0 {
		for i := range all {
			all[i].Config.Samples, all[i].Config.Agree = o.samples, max(o.agree, 1)
		}
	} else if o.agree > 0 {
		for i := range all {
			all[i].Config.Agree = min(o.agree, all[i].Config.Samples)
		}
	}
	if o.verify != "" {
		for i := range all {
			all[i].Config.Verify = o.verify == "on"
		}
	}
	if len(o.names) == 0 {
		return all, nil
	}
	var out []reviewerconfig.Local
	for _, n := range o.names {
		i := slices.IndexFunc(all, func(r reviewerconfig.Local) bool { return r.Name == n })
		if i < 0 {
			names := make([]string, len(all))
			for j, r := range all {
				names[j] = r.Name
			}
			return nil, fmt.Errorf("--reviewer %s: no such reviewer (have %s)", n, strings.Join(names, ", "))
		}
		if !slices.ContainsFunc(out, func(r reviewerconfig.Local) bool { return r.Name == n }) {
			out = append(out, all[i])
		}
	}
	return out, nil
}

// writeResults writes the report to path as JSON.
func writeResults(path string, rep *eval.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if err := rep.WriteJSON(f); err != nil {
		f.Close()
		return fmt.Errorf("--out: %w", err)
	}
	return f.Close()
}

// leaderboardCmd is `chakshu eval leaderboard`.
func leaderboardCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval leaderboard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("martian", "", "a checkout of github.com/withmartian/code-review-benchmark (required)")
	judge := fs.String("judge", "", "the published judge whose results to show: its folder under offline/results, or a part of one (opus, sonnet, gpt); default: the dashboard's, the first by name")
	var with listFlag
	fs.Var(&with, "with", "add Chakshu's rows from a results file of `chakshu eval --out` (repeatable)")
	prof := fs.String("profile", "", "count only golden comments of a profile's categories (strict, core, all) and sort by F-beta, as score_profiles.py does; default: every golden comment, as the dashboard does")
	beta := fs.Float64("beta", eval.DefaultBeta, "the F-beta shown with --profile")
	check := fs.Bool("check", false, "compare every tool's figures with the benchmark's own offline/analysis/benchmark_dashboard.json and fail on a difference")
	if stop, err := parseSubFlags(fs, args, stdout, "chakshu eval leaderboard --martian DIR [--judge NAME] [--with RESULTS] [--profile P] [--check]\n\n"+
		"Prints the Martian benchmark's published results (offline/results/<judge>/evaluations.json) as a table, one\n"+
		"row per tool sorted by F1, with tp, fp and fn summed over the pull requests as the benchmark's dashboard does;\n"+
		"--with adds Chakshu's reviewers from `chakshu eval --out` results."); stop {
		return err
	}
	if *dir == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "chakshu eval leaderboard: --martian DIR is required, and nothing else")
		return errUsage
	}
	var profile *eval.Profile
	if *prof != "" {
		i := slices.IndexFunc(eval.Profiles, func(p eval.Profile) bool { return p.Name == *prof })
		if i < 0 {
			fmt.Fprintf(stderr, "chakshu eval leaderboard: --profile %q is not strict, core or all\n", *prof)
			return errUsage
		}
		profile = &eval.Profiles[i]
	}
	j, err := eval.PickJudge(*dir, *judge)
	if err != nil {
		return err
	}
	evs, err := eval.LoadEvaluations(*dir, j)
	if err != nil {
		return err
	}
	cats, err := eval.GoldenCategories(*dir)
	if err != nil {
		return err
	}
	board := eval.NewBoard(j, profile, *beta, eval.Tally(evs, profile, cats))
	if *check {
		if profile != nil {
			fmt.Fprintln(stderr, "chakshu eval leaderboard: --check compares the dashboard's figures, which count every golden comment: drop --profile")
			return errUsage
		}
		n, err := board.CheckDashboard(*dir)
		if errors.Is(err, eval.ErrNoDashboard) {
			return fmt.Errorf("--check: %w (the dashboard covers only some judges)", err)
		}
		if err != nil {
			return fmt.Errorf("the figures differ from the benchmark's dashboard:\n%w", err)
		}
		fmt.Fprintf(stderr, "All %d tools match the benchmark's dashboard for judge %s.\n", n, j)
	}
	for _, w := range with {
		rep, err := eval.ReadReport(w)
		if err != nil {
			return err
		}
		board.AddReport(rep, evs)
	}
	return board.Write(stdout)
}

// importCmd is `chakshu eval import`.
func importCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("martian", "", "a checkout of github.com/withmartian/code-review-benchmark (required)")
	out := fs.String("out", "", "the corpus directory to write (required); run again to resume")
	full := fs.Bool("full", false, "fetch the whole base and head trees (one API call per file of the repository), not only the directories the pull request touches")
	if stop, err := parseSubFlags(fs, args, stdout, "chakshu eval import --martian DIR --out CORPUS [--full]\n\n"+
		"Writes a corpus for `chakshu eval --judge` from the Martian benchmark's golden comments: each pull request's\n"+
		"title, body and base and head trees, fetched through the GitHub API (GITHUB_TOKEN, CHAKSHU_GITHUB_URL).\n"+
		"A pull request already imported is skipped, so an interrupted import resumes."); stop {
		return err
	}
	if *dir == "" || *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "chakshu eval import: --martian DIR and --out CORPUS are required, and nothing else")
		return errUsage
	}
	api := cmp.Or(os.Getenv("CHAKSHU_GITHUB_URL"), config.DefaultGitHubURL)
	token := os.Getenv("GITHUB_TOKEN")
	if token == "" {
		fmt.Fprintln(stderr, "chakshu eval import: GITHUB_TOKEN is not set; going unauthenticated (GitHub allows 60 requests an hour)")
	}
	return eval.Import(ctx, eval.ImportConfig{Martian: *dir, Out: *out, GitHubURL: api, Token: token, Full: *full, Log: stderr})
}

// parseSubFlags parses an eval sub-command's flags, with usage as its help.
func parseSubFlags(fs *flag.FlagSet, args []string, stdout io.Writer, usage string) (bool, error) {
	fs.Usage = func() {
		fmt.Fprintf(stdout, "Usage: %s\n\nFlags:\n", usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
	}
	return parseFlags(fs, args)
}
