package eval

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chakshu-dev/chakshu/action/agent"
	"github.com/chakshu-dev/chakshu/action/runner"
	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/gateway"
	"github.com/chakshu-dev/chakshu/internal/job"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// DefaultWindow is the default line window of matching (± lines).
const DefaultWindow = 3

// Config configures an evaluation.
type Config struct {
	Corpus    *Corpus
	Reviewers []reviewerconfig.Local
	// Models is the model catalogue; nil means the built-in one.
	Models *models.Source
	// Gateway configures the model gateway the agent and the judge go
	// through, as `chakshu web` configures it (DB and Models are set here).
	Gateway gateway.Config
	// Window is the matching window in lines (±); negative means 0.
	Window int
	// Judge scores every case as the Martian benchmark does (martian.go):
	// a model extracts the issues of each review's comments and judges
	// every golden comment against every issue. Without it, findings are
	// matched to golden comments by place (Match), which needs a corpus
	// with locations. JudgeModel is the judge's model ("" means the first
	// reviewer's).
	Judge      bool
	JudgeModel string
	// Beta is the F-beta reported beside F1 (0 means 2, as the benchmark's
	// score_profiles.py defaults).
	Beta float64
	// WorkDir gets a new folder holding the cases' repositories, workspaces
	// and the run database, kept; "" means a temporary directory removed
	// afterwards.
	WorkDir string
	// Log receives progress lines and the agents' logs; nil discards.
	Log io.Writer
}

// Report is an evaluation's outcome.
type Report struct {
	Corpus string `json:"corpus"`
	Cases  int    `json:"cases"`
	Window int    `json:"window"`
	Judge  bool   `json:"judge"`
	// Scoring is "location" or "martian" (with the judge).
	Scoring    string  `json:"scoring"`
	JudgeModel string  `json:"judge_model,omitempty"`
	Beta       float64 `json:"beta"`
	// Models are the reviewers' models; ReviewerVersions each reviewer's
	// version (a digest of its settings, CLAUDE.md and skills), so two
	// results files can be compared.
	Models           map[string]string `json:"models"`
	ReviewerVersions map[string]string `json:"reviewer_versions"`
	// WallSeconds is the evaluation's wall time.
	WallSeconds float64 `json:"wall_seconds"`
	// Reviewers are the figures per reviewer; Overall takes every
	// reviewer's findings on a case together, as they appear on the PR.
	Reviewers []Figures `json:"reviewers"`
	Overall   Figures   `json:"overall"`
	// JudgeCostUSD is what the judge's model calls cost.
	JudgeCostUSD float64 `json:"judge_cost_usd"`
	// Runs lists every review run.
	Runs []RunResult `json:"runs"`
}

// Figures are one reviewer's (or all reviewers') scores.
type Figures struct {
	Reviewer string          `json:"reviewer"`
	Profiles []ProfileScores `json:"profiles"`
	// Total counts every golden comment whatever its category, as the
	// benchmark's dashboard and leaderboard do.
	Total    Scores  `json:"total"`
	Findings int     `json:"findings"`
	CostUSD  float64 `json:"cost_usd"`
	// CostPerPR is CostUSD over the corpus's cases; TokensPerPR the input
	// and output tokens over them.
	CostPerPR   float64 `json:"cost_per_pr_usd"`
	Tokens      int64   `json:"tokens"`
	TokensPerPR float64 `json:"tokens_per_pr"`
	// Dropped counts findings the runner dropped before reporting.
	Dropped int `json:"findings_dropped"`
	// InputTokens are every input token the model read (uncached, cache
	// reads and cache writes); CacheReadTokens those read from the prompt
	// cache; CacheReadShare the second over the first.
	InputTokens     int64   `json:"input_tokens"`
	CacheReadTokens int64   `json:"cache_read_tokens"`
	CacheReadShare  float64 `json:"cache_read_share"`
	// Failed counts runs that ended without a result (their cases count
	// as reviewed with no findings).
	Failed int `json:"failed_runs"`
}

// ProfileScores are the scores under one profile.
type ProfileScores struct {
	Profile string `json:"profile"`
	Scores
	// FBeta is the F-beta score at the report's Beta.
	FBeta float64 `json:"fbeta"`
}

// RunResult is one reviewer's review of one case.
type RunResult struct {
	Case     string    `json:"case"`
	Reviewer string    `json:"reviewer"`
	Findings []Finding `json:"findings"`
	// Summary is the review's summary comment.
	Summary string `json:"summary,omitempty"`
	// Candidates are the issues judged (with the judge: extracted from the
	// summary and the findings when Extracted, else the comments as
	// posted).
	Candidates []string `json:"candidates,omitempty"`
	Extracted  bool     `json:"extracted,omitempty"`
	// Matched are the expected comments (by index) the findings matched
	// (with the judge, Finding indexes Candidates).
	Matched []Pair `json:"matched"`
	// Evaluation is the case's scoring, in the benchmark's format.
	Evaluation Evaluation `json:"evaluation"`
	CostUSD    float64    `json:"cost_usd"`
	Tokens     int64      `json:"tokens"`
	Dropped    int        `json:"findings_dropped"`
	// InputTokens and CacheReadTokens are as in Figures.
	InputTokens     int64 `json:"input_tokens"`
	CacheReadTokens int64 `json:"cache_read_tokens"`
	// Failure is why the run produced no result ("" when it did).
	Failure string `json:"failure,omitempty"`
}

// Run reviews every case with every reviewer and scores the findings.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Corpus == nil || len(cfg.Reviewers) == 0 {
		return nil, errors.New("eval: a corpus and at least one reviewer are required")
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Models == nil {
		cfg.Models = models.Static(models.Builtin())
	}
	cfg.Window = max(cfg.Window, 0)
	if cfg.WorkDir != "" {
		if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
			return nil, err
		}
	}
	work, err := os.MkdirTemp(cfg.WorkDir, "chakshu-eval-")
	if err != nil {
		return nil, err
	}
	if cfg.WorkDir == "" {
		defer os.RemoveAll(work)
	}
	w, err := startWorld(ctx, cfg, work)
	if err != nil {
		return nil, err
	}
	defer w.close()

	start := time.Now()
	if cfg.Beta <= 0 {
		cfg.Beta = DefaultBeta
	}
	rep := &Report{Corpus: cfg.Corpus.Dir, Cases: len(cfg.Corpus.Cases), Window: cfg.Window, Judge: cfg.Judge, Scoring: "location",
		Beta: cfg.Beta, Models: map[string]string{}, ReviewerVersions: map[string]string{}}
	var jd *modelJudge
	if cfg.Judge {
		rep.Scoring, rep.JudgeModel = "martian", cfg.JudgeModel
		if rep.JudgeModel == "" {
			rep.JudgeModel = cfg.Reviewers[0].Config.Model
		}
		if jd, err = w.newJudge(ctx, rep.JudgeModel); err != nil {
			return nil, err
		}
	}
	// score scores one review (or the union of all) of case k.
	score := func(k *Case, fs []Finding, summaries []string) (Evaluation, []Pair, []string, bool, error) {
		if jd == nil {
			m := Match(fs, k.Expected, cfg.Window)
			return FromMatching(m, fs, k.Expected), m.Pairs, nil, false, nil
		}
		if len(k.Expected) == 0 {
			// Skipped whatever the review says: nothing to extract.
			return Evaluation{Skipped: true, Reason: "No golden comments"}, []Pair{}, nil, false, nil
		}
		bodies := append([]string{}, summaries...)
		for _, f := range fs {
			bodies = append(bodies, f.Comment())
		}
		cands, extracted := Candidates(ctx, bodies, jd.extract)
		ev, err := JudgeReview(ctx, k.Expected, cands, jd.verdict)
		return ev, martianPairs(ev, k.Expected, cands), cands, extracted, err
	}
	// Counts per profile (in the order of Profiles), per reviewer and overall.
	byReviewer := map[string][]Counts{}
	totals := map[string]*Counts{}
	figs := map[string]*Figures{}
	overall := make([]Counts, len(Profiles))
	var overallTotal Counts
	rep.Overall = Figures{Reviewer: "overall"}
	for _, rv := range cfg.Reviewers {
		byReviewer[rv.Name] = make([]Counts, len(Profiles))
		totals[rv.Name] = &Counts{}
		figs[rv.Name] = &Figures{Reviewer: rv.Name}
		rep.Models[rv.Name] = rv.Config.Model
		rep.ReviewerVersions[rv.Name] = ReviewerVersion(rv)
	}
	for ci := range cfg.Corpus.Cases {
		k := &cfg.Corpus.Cases[ci]
		fmt.Fprintf(cfg.Log, "case %s: %s\n", k.Name, k.Title)
		pr, err := buildRepo(ctx, filepath.Join(work, "cases", strconv.Itoa(ci)), k)
		if err != nil {
			return nil, err
		}
		var all []Finding
		var summaries []string
		for _, rv := range cfg.Reviewers {
			rr, err := w.review(ctx, k, pr, rv)
			if err != nil {
				return nil, err
			}
			var sums []string
			if rr.Summary != "" {
				sums = []string{rr.Summary}
			}
			ev, pairs, cands, extracted, err := score(k, rr.Findings, sums)
			if err != nil {
				return nil, fmt.Errorf("judge: %w", err)
			}
			ev.Tool = rv.Name
			rr.Evaluation, rr.Matched, rr.Candidates, rr.Extracted = ev, pairs, cands, extracted
			for i, p := range Profiles {
				byReviewer[rv.Name][i].AddProfile(p, ev, nil)
			}
			totals[rv.Name].Total(ev)
			f := figs[rv.Name]
			f.Findings += len(rr.Findings)
			f.CostUSD += rr.CostUSD
			f.Tokens += rr.Tokens
			f.Dropped += rr.Dropped
			f.InputTokens += rr.InputTokens
			f.CacheReadTokens += rr.CacheReadTokens
			if rr.Failure != "" {
				f.Failed++
			}
			all = append(all, rr.Findings...)
			summaries = append(summaries, sums...)
			rep.Runs = append(rep.Runs, *rr)
			fmt.Fprintf(cfg.Log, "  %s: %d findings, %d matched, $%.4f, %d tokens%s\n", rv.Name, len(rr.Findings), ev.TP, rr.CostUSD, rr.Tokens, failNote(rr.Failure))
		}
		ev, _, _, _, err := score(k, all, summaries)
		if err != nil {
			return nil, fmt.Errorf("judge: %w", err)
		}
		for i, p := range Profiles {
			overall[i].AddProfile(p, ev, nil)
		}
		overallTotal.Total(ev)
	}
	cases := float64(max(len(cfg.Corpus.Cases), 1))
	for _, rv := range cfg.Reviewers {
		f := figs[rv.Name]
		f.Profiles = scores(byReviewer[rv.Name], cfg.Beta)
		f.Total = totals[rv.Name].Score()
		f.CostPerPR = f.CostUSD / cases
		f.TokensPerPR = float64(f.Tokens) / cases
		f.CacheReadShare = share(f.CacheReadTokens, f.InputTokens)
		rep.Reviewers = append(rep.Reviewers, *f)
		rep.Overall.Findings += f.Findings
		rep.Overall.CostUSD += f.CostUSD
		rep.Overall.Tokens += f.Tokens
		rep.Overall.Dropped += f.Dropped
		rep.Overall.InputTokens += f.InputTokens
		rep.Overall.CacheReadTokens += f.CacheReadTokens
		rep.Overall.Failed += f.Failed
	}
	if n := len(rep.Runs); n > 0 && rep.Overall.Failed == n {
		// Nothing was measured: a broken provider setting, not a score.
		return nil, fmt.Errorf("eval: every review failed (the first, %s on %s: %s)", rep.Runs[0].Reviewer, rep.Runs[0].Case, rep.Runs[0].Failure)
	}
	rep.Overall.Profiles = scores(overall, cfg.Beta)
	rep.Overall.Total = overallTotal.Score()
	if jd != nil {
		rep.JudgeCostUSD = jd.cost(ctx)
	}
	rep.Overall.CostPerPR = rep.Overall.CostUSD / cases
	rep.Overall.TokensPerPR = float64(rep.Overall.Tokens) / cases
	rep.Overall.CacheReadShare = share(rep.Overall.CacheReadTokens, rep.Overall.InputTokens)
	rep.WallSeconds = time.Since(start).Seconds()
	return rep, nil
}

// DefaultBeta is the default F-beta (score_profiles.py's --beta default).
const DefaultBeta = 2

// martianPairs are a judged evaluation's matches as indexes: golden comment
// and the candidate it kept.
func martianPairs(ev Evaluation, es []Expected, cands []string) []Pair {
	out := []Pair{}
	for _, tp := range ev.TruePositives {
		e := slices.IndexFunc(es, func(x Expected) bool { return x.Comment == tp.GoldenComment })
		c := slices.Index(cands, tp.MatchedCandidate)
		if e >= 0 && c >= 0 {
			out = append(out, Pair{Finding: c, Expected: e})
		}
	}
	return out
}

// ReviewerVersion is a short digest of what makes a reviewer review as it
// does: its settings, CLAUDE.md and skills.
func ReviewerVersion(rv reviewerconfig.Local) string {
	h := sha256.New()
	b, _ := json.Marshal(struct {
		Config   reviewerconfig.Config
		ClaudeMD string
		Skills   []runnerproto.Skill
	}{rv.Config, rv.ClaudeMD, rv.Skills})
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))[:12]
}

func scores(c []Counts, beta float64) []ProfileScores {
	out := make([]ProfileScores, len(Profiles))
	for i, p := range Profiles {
		s := c[i].Score()
		out[i] = ProfileScores{Profile: p.Name, Scores: s, FBeta: FBeta(s.Precision, s.Recall, beta)}
	}
	return out
}

func failNote(f string) string {
	if f == "" {
		return ""
	}
	return " (failed: " + f + ")"
}

// prRepo is a case as a git repository checked out at its head.
type prRepo struct {
	dir, base, head string
	diff            string
	files           []string
}

// buildRepo commits the case's base, then its head, in a fresh repository
// under dir, and takes the PR's diff and files from git (the format GitHub's
// diff has).
func buildRepo(ctx context.Context, dir string, k *Case) (*prRepo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.quotepath=off", "-c", "core.autocrlf=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=chakshu-eval", "GIT_AUTHOR_EMAIL=eval@chakshu.invalid", "GIT_COMMITTER_NAME=chakshu-eval",
			"GIT_COMMITTER_EMAIL=eval@chakshu.invalid", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("case %s: git %s: %v: %s", k.Name, args[0], err, strings.TrimSpace(string(out)))
		}
		return string(out), nil
	}
	commit := func(tree, msg string) (string, error) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return "", err
		}
		for _, e := range ents {
			if e.Name() != ".git" {
				if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
					return "", err
				}
			}
		}
		if tree != "" {
			if err := os.CopyFS(dir, os.DirFS(tree)); err != nil {
				return "", fmt.Errorf("case %s: copy %s: %w", k.Name, tree, err)
			}
		}
		if _, err := git("add", "-A", "."); err != nil {
			return "", err
		}
		if _, err := git("commit", "-q", "--allow-empty", "--no-verify", "-m", msg); err != nil {
			return "", err
		}
		sha, err := git("rev-parse", "HEAD")
		return strings.TrimSpace(sha), err
	}
	if _, err := git("init", "-q", "-b", "main"); err != nil {
		return nil, err
	}
	base := k.Base
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		base = "" // no base tree: the PR adds everything
	}
	r := &prRepo{dir: dir}
	var err error
	if r.base, err = commit(base, "base"); err != nil {
		return nil, err
	}
	if r.head, err = commit(k.Head, k.Title); err != nil {
		return nil, err
	}
	if r.diff, err = git("diff", "--no-color", "--no-ext-diff", "-M", r.base, r.head); err != nil {
		return nil, err
	}
	names, err := git("diff", "--name-only", "-M", r.base, r.head)
	if err != nil {
		return nil, err
	}
	r.files = strings.Fields(names)
	if r.files == nil {
		r.files = []string{}
	}
	return r, nil
}

// world is the model gateway (over a throwaway database, as Chakshu's runner
// API serves it) that the agents and the judge call.
type world struct {
	cfg   Config
	work  string
	db    *store.DB
	gw    *gateway.Gateway
	srv   *http.Server
	url   string
	inst  *ent.Installation
	repos map[string]*ent.Repository
	revs  map[string]*ent.Reviewer
	http  *http.Client
	// jobs assembles each review's job as the runner API does.
	jobs *job.Builder

	mu     sync.Mutex
	tokens map[int]string
}

func startWorld(ctx context.Context, cfg Config, work string) (*world, error) {
	dbDir := filepath.Join(work, "db")
	if err := os.MkdirAll(dbDir, 0o755); err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, store.Options{DataDir: dbDir})
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	gc := cfg.Gateway
	gc.DB, gc.Models = db, cfg.Models
	if gc.Log == nil {
		gc.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	gw, err := gateway.New(gc)
	if err != nil {
		db.Close()
		return nil, err
	}
	w := &world{cfg: cfg, work: work, db: db, gw: gw, repos: map[string]*ent.Repository{}, revs: map[string]*ent.Reviewer{},
		tokens: map[int]string{}, http: &http.Client{Timeout: 15 * time.Minute}, jobs: newJobs(cfg.Models)}
	if w.inst, err = db.Installation.Create().SetGithubID(1).SetAccountLogin("eval").Save(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("eval database: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		db.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /runs/{id}/model/v1/messages", w.serveModel)
	w.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go w.srv.Serve(ln) //nolint:errcheck
	w.url = "http://" + ln.Addr().String()
	return w, nil
}

func (w *world) close() {
	w.srv.Close()
	w.db.Close()
}

// serveModel authenticates the run token as the runner API does and hands
// the request to the gateway.
func (w *world) serveModel(rw http.ResponseWriter, r *http.Request) {
	id, _ := strconv.Atoi(r.PathValue("id"))
	w.mu.Lock()
	tok := w.tokens[id]
	w.mu.Unlock()
	h := r.Header.Get("Authorization")
	if tok == "" || (h != "Bearer "+tok && r.Header.Get("x-api-key") != tok) {
		http.Error(rw, `{"error":{"code":"unauthorized","message":"unknown run token"}}`, http.StatusUnauthorized)
		return
	}
	rn, err := w.db.Run.Get(r.Context(), id)
	if err != nil {
		http.Error(rw, `{"error":{"code":"internal","message":"run not found"}}`, http.StatusInternalServerError)
		return
	}
	w.gw.Serve(rw, r, rn)
}

// newRun stores a running run of reviewer rv on owner/repo and returns it
// with its token.
func (w *world) newRun(ctx context.Context, k *Case, rv reviewerconfig.Local, model string, maxCost float64, head string) (*ent.Run, string, error) {
	full := k.Owner + "/" + k.Repo
	repo := w.repos[full]
	var err error
	if repo == nil {
		repo, err = w.db.Repository.Create().SetGithubID(int64(len(w.repos) + 1)).SetOwner(k.Owner).SetName(k.Repo).
			SetFullName(full).SetInstallation(w.inst).Save(ctx)
		if err != nil {
			return nil, "", fmt.Errorf("eval database: %w", err)
		}
		w.repos[full] = repo
	}
	rev := w.revs[rv.Name]
	if rev == nil {
		rev, err = w.db.Reviewer.Create().SetName(rv.Name).SetConfig(&rv.Config).SetClaudeMd(rv.ClaudeMD).
			SetInstallation(w.inst).Save(ctx)
		if err != nil {
			return nil, "", fmt.Errorf("eval database: %w", err)
		}
		w.revs[rv.Name] = rev
	}
	rn, err := w.db.Run.Create().SetRepository(repo).SetReviewer(rev).SetPrNumber(k.Number).SetPrTitle(k.Title).
		SetPrURL(k.URL).SetHeadSha(head).SetTrigger(run.TriggerPortal).SetStatus(run.StatusRunning).
		SetModel(model).SetMaxCostUsd(maxCost).Save(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("eval database: %w", err)
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return nil, "", err
	}
	tok := hex.EncodeToString(b)
	w.mu.Lock()
	w.tokens[rn.ID] = tok
	w.mu.Unlock()
	return rn, tok, nil
}

func (w *world) costOf(ctx context.Context, id int) float64 {
	return w.usageOf(ctx, id).cost
}

// usage is a run's cost and tokens as the gateway metered them.
type usage struct {
	cost                     float64
	tokens, input, cacheRead int64
}

// usageOf is a run's cost, its input and output tokens, its input tokens
// (uncached, cache reads and writes) and its cache reads.
func (w *world) usageOf(ctx context.Context, id int) usage {
	rn, err := w.db.Run.Get(ctx, id)
	if err != nil {
		return usage{}
	}
	in := rn.InputTokens + rn.CacheReadTokens + rn.CacheWriteTokens
	return usage{cost: rn.CostUsd, tokens: in + rn.OutputTokens, input: in, cacheRead: rn.CacheReadTokens}
}

// share is part over all, 0 when all is 0.
func share(part, all int64) float64 {
	if all == 0 {
		return 0
	}
	return float64(part) / float64(all)
}

// newJobs is eval's job builder: the settings' defaults, the catalogue
// eval runs with, no GitHub (the case's facts come from git).
func newJobs(catalog *models.Source) *job.Builder {
	return job.New(job.Config{Models: catalog})
}

// reviewJob is the job of reviewer rv on case k, assembled from the case's
// facts by internal/job as the runner API assembles a pull request's: the
// same model, limits, samples and prompts for the same reviewer.
func reviewJob(jobs *job.Builder, k *Case, pr *prRepo, rv reviewerconfig.Local, runID int, baseURL, token string) (*runnerproto.Job, error) {
	a, err := jobs.Assemble(job.Parts{Kind: run.KindReview, RunID: runID, Repository: k.Owner + "/" + k.Repo,
		PR: runnerproto.PR{Number: k.Number, Title: k.Title, Body: k.Body, URL: k.URL, HeadSHA: pr.head, BaseSHA: pr.base,
			HeadRef: "eval/head", BaseRef: "main"},
		Reviewer: job.Reviewer{Name: rv.Name, ClaudeMD: rv.ClaudeMD, Skills: rv.Skills, Config: rv.Config},
		Changes:  job.Changes{Files: pr.files, Diff: pr.diff},
		BaseURL:  baseURL, RunToken: token})
	if err != nil {
		return nil, err
	}
	return a.Job, nil
}

// review runs reviewer rv on case k through the runner's review path, and
// keeps the findings the publisher would post.
func (w *world) review(ctx context.Context, k *Case, pr *prRepo, rv reviewerconfig.Local) (*RunResult, error) {
	rc := rv.Config
	rn, tok, err := w.newRun(ctx, k, rv, rc.Model, rc.MaxCostUSD, pr.head)
	if err != nil {
		return nil, err
	}
	j, err := reviewJob(w.jobs, k, pr, rv, rn.ID, fmt.Sprintf("%s/runs/%d", w.url, rn.ID), tok)
	if err != nil {
		return nil, err
	}
	res, err := runner.Review(ctx, runner.ReviewConfig{Job: j, CheckoutDir: pr.dir, WorkDir: filepath.Join(w.work, "ws"),
		Log: w.cfg.Log, HTTPClient: w.http, Agent: agent.Config{}})
	rr := &RunResult{Case: k.Name, Reviewer: rv.Name, Findings: []Finding{}, Matched: []Pair{}}
	u := w.usageOf(ctx, rn.ID)
	rr.CostUSD, rr.Tokens, rr.InputTokens, rr.CacheReadTokens = u.cost, u.tokens, u.input, u.cacheRead
	if res != nil {
		rr.Dropped = res.Dropped
	}
	var rf *runner.ReviewFailure
	switch {
	case errors.As(err, &rf):
		rr.Failure = rf.Reason
		return rr, nil
	case err != nil:
		return nil, err
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	result := res.Outcome.Result.Review // parsed once, by the runner's submit tool
	if result == nil {
		rr.Failure = "the result is not a review's"
		return rr, nil
	}
	rr.Summary = result.Summary
	plan := publish.MakePlan(result.Findings, publish.Rules{MinSeverity: rc.MinSeverity, MaxFindings: rc.MaxFindings}, nil, nil)
	for _, it := range plan.Posted() {
		rr.Findings = append(rr.Findings, Finding{Reviewer: rv.Name, Path: it.Path, Line: it.Line, Severity: string(it.Severity),
			Category: it.Category, Title: it.Title, Body: it.Body})
	}
	return rr, nil
}
