package main

import (
	"context"
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
	"github.com/chakshu-dev/chakshu/internal/reviewers"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
)

// evalOptions are `chakshu eval`'s flags.
type evalOptions struct {
	corpus, reviewersDir, provider, judgeModel, workDir, minProfile string
	verify                                                          string
	names                                                           listFlag
	judge, asJSON, verbose, hunches                                 bool
	window, samples, agree                                          int
	minF1                                                           float64
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// errBelowMinF1 ends `chakshu eval --min-f1` when the figure is below it.
var errBelowMinF1 = errors.New("F1 below --min-f1")

func evalCommand() command {
	o := &evalOptions{}
	return command{name: "eval", summary: "run reviewers over a labelled corpus and print precision, recall and F1",
		help: "chakshu eval --corpus DIR [--reviewer NAME...] [--provider sandbox|anthropic|bedrock|vertex|foundry|openai] [--judge] [--json]\n\n" +
			"Reviews every pull request of the corpus (DIR/golden_comments/*.json in the golden-comments format of\n" +
			"Martian's code-review benchmark, trees in DIR/cases/<owner>/<repo>/<number>/{base,head}) with each\n" +
			"reviewer, through chakshu-action's review path and Chakshu's model gateway, and matches the findings\n" +
			"the publisher would post to the expected comments by file and line window (--judge: a model confirms\n" +
			"each pair). Prints precision, recall and F1 per reviewer and overall under the benchmark's strict,\n" +
			"core and all category profiles, with cost per PR and findings dropped. --provider sandbox (the default)\n" +
			"uses the sandbox's scripted model; any other provider uses the CHAKSHU_MODEL_* and provider settings\n" +
			"below, as `chakshu web` does, and costs money. Exits 0 whatever the scores, unless --min-f1 is set.",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&o.corpus, "corpus", "", "the corpus directory (required)")
			fs.StringVar(&o.reviewersDir, "reviewers", "", "a reviewers folder (<name>/reviewer.yaml, CLAUDE.md, skills/); default: the sandbox's seeded reviewers")
			fs.Var(&o.names, "reviewer", "run only this reviewer (repeatable); default: every reviewer of the folder")
			fs.StringVar(&o.provider, "provider", "sandbox", "sandbox, or the configured provider to use: anthropic, bedrock, vertex, foundry, openai")
			fs.BoolVar(&o.judge, "judge", false, "ask a model through the gateway to confirm each matched pair (and to match expected comments without a path)")
			fs.StringVar(&o.judgeModel, "judge-model", "", "the judge's model; default: the first reviewer's")
			fs.IntVar(&o.window, "window", eval.DefaultWindow, "a finding matches an expected comment within this many lines of it (±)")
			fs.BoolVar(&o.asJSON, "json", false, "print the report as JSON")
			fs.Float64Var(&o.minF1, "min-f1", 0, "exit 1 when the overall F1 under --min-f1-profile is below this (0: never)")
			fs.StringVar(&o.minProfile, "min-f1-profile", "core", "the profile --min-f1 checks: strict, core or all")
			fs.StringVar(&o.workDir, "work-dir", "", "keep the cases' repositories and the run database in a new folder under this one (default: a temporary directory, removed)")
			fs.BoolVar(&o.verbose, "verbose", false, "print progress and the agents' logs to stderr")
			fs.IntVar(&o.samples, "samples", 0, "run every reviewer with this many agent passes (reviewer.yaml samples); 0: each reviewer's own")
			fs.IntVar(&o.agree, "agree", 0, "keep findings at least this many passes report (reviewer.yaml agree); 0: each reviewer's own, or 1 with --samples")
			fs.StringVar(&o.verify, "verify", "", "on or off: verify every reviewer's findings (reviewer.yaml verify), or not; empty: each reviewer's own")
			fs.BoolVar(&o.hunches, "hunches", false, "sandbox only: the scripted model also reports low-confidence findings that vary between passes, as a real model's doubts do (shows what --samples and --agree remove)")
		},
		run: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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
	if o.samples < 0 || o.samples > reviewers.MaxSamples || o.agree < 0 || (o.agree > 0 && o.agree > max(o.samples, 1)) {
		fmt.Fprintf(stderr, "chakshu eval: want 0 ≤ --agree ≤ --samples ≤ %d (got --samples %d --agree %d)\n", reviewers.MaxSamples, o.samples, o.agree)
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
	corpus, err := eval.Load(o.corpus)
	if err != nil {
		return err
	}
	cfg := eval.Config{Corpus: corpus, Window: o.window, Judge: o.judge, JudgeModel: o.judgeModel, WorkDir: o.workDir}
	if o.verbose {
		cfg.Log = stderr
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
	rep, err := eval.Run(ctx, cfg)
	if err != nil {
		return err
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
func loadEvalReviewers(o *evalOptions, src *models.Source) ([]reviewers.Local, error) {
	var all []reviewers.Local
	var err error
	if o.reviewersDir == "" {
		all, err = reviewers.LoadFS(sandbox.ReviewersFS(), "sandbox reviewers", src, time.Now())
	} else {
		if _, err := os.Stat(o.reviewersDir); err != nil {
			return nil, fmt.Errorf("--reviewers: %w", err)
		}
		all, err = reviewers.LoadDir(o.reviewersDir, src, time.Now())
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
	var out []reviewers.Local
	for _, n := range o.names {
		i := slices.IndexFunc(all, func(r reviewers.Local) bool { return r.Name == n })
		if i < 0 {
			names := make([]string, len(all))
			for j, r := range all {
				names[j] = r.Name
			}
			return nil, fmt.Errorf("--reviewer %s: no such reviewer (have %s)", n, strings.Join(names, ", "))
		}
		if !slices.ContainsFunc(out, func(r reviewers.Local) bool { return r.Name == n }) {
			out = append(out, all[i])
		}
	}
	return out, nil
}
