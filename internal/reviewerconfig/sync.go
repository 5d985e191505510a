package reviewerconfig

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/go-github/v88/github"
	"github.com/shurcooL/githubv4"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// Limits of what a reviewers repository may hold.
const (
	// MaxClaudeMDBytes caps a reviewer's CLAUDE.md.
	MaxClaudeMDBytes = 128 << 10
	// MaxSkillMDBytes caps a SKILL.md.
	MaxSkillMDBytes = 128 << 10
	// MaxSkillFileBytes caps each other file of a skill.
	MaxSkillFileBytes = 256 << 10
	// MaxSkillBytes caps one skill's files together.
	MaxSkillBytes = 1 << 20
	// MaxReviewerBytes caps one reviewer's files together.
	MaxReviewerBytes = 2 << 20
	// MaxSkills caps a reviewer's skills.
	MaxSkills = 50
	// MaxSkillFiles caps the files of one skill besides SKILL.md.
	MaxSkillFiles = 100
)

// DefaultReviewersRepoName is the reviewers repository's name under the
// installation's account when Installation.reviewers_repo is empty.
const DefaultReviewersRepoName = "chakshu-reviewers"

// ReviewersRepo is owner/name of the installation's reviewers repository.
func ReviewersRepo(in *ent.Installation) string {
	if in.ReviewersRepo != "" {
		return in.ReviewersRepo
	}
	return in.AccountLogin + "/" + DefaultReviewersRepoName
}

// IsReviewersRepo reports whether fullName (owner/name) is the installation's
// reviewers repository; a push to its default branch should RequestSync.
func IsReviewersRepo(in *ent.Installation, fullName string) bool {
	return strings.EqualFold(ReviewersRepo(in), fullName)
}

// ErrNoReviewersRepo: the reviewers repository does not exist or the App cannot see it.
var ErrNoReviewersRepo = errors.New("not found, or the app is not installed on it")

// Clients gives GitHub clients for an installation, by GitHub's installation id.
type Clients interface {
	Installation(githubID int64) (*gh.Installation, error)
}

var _ Clients = (*gh.Apps)(nil)

// SyncerConfig builds a Syncer.
type SyncerConfig struct {
	DB      *store.DB
	Clients Clients
	Log     *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Models is the model catalogue each reviewer's model is checked
	// against; nil means the built-in one.
	Models *models.Source
}

// Syncer copies reviewers from an installation's reviewers repository into the
// reviewers table.
type Syncer struct{ cfg SyncerConfig }

// NewSyncer validates cfg.
func NewSyncer(cfg SyncerConfig) (*Syncer, error) {
	if cfg.DB == nil || cfg.Clients == nil {
		return nil, errors.New("reviewers: syncer needs DB and Clients")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Syncer{cfg: cfg}, nil
}

// Report says what a sync did.
type Report struct {
	InstallationID int
	// Repo is owner/name of the reviewers repository.
	Repo string
	// Commit is the head of its default branch that was read.
	Commit string
	// Unchanged: the commit was already synced without errors and every
	// model in force is still usable; nothing was read.
	Unchanged bool
	// Stale: another sync that started later already wrote; this one wrote nothing.
	Stale bool
	// Synced are the reviewers now in force at Commit.
	Synced []string
	// Failed maps reviewers whose files are broken to the problem (file:line);
	// their last good version stays in force.
	Failed map[string]string
	// Disabled are reviewers that left the repository.
	Disabled []string
	// Ignored are folders under reviewers/ that cannot be reviewers, with why.
	Ignored map[string]string
}

// snapshot is the reviewers repository at one commit.
type snapshot struct {
	commit    string
	reviewers map[string]*parsedReviewer
	ignored   map[string]string
}

type parsedReviewer struct {
	name       string
	config     Config
	configYAML string
	claudeMD   string
	skills     []Skill
	err        error
}

// Sync reads the installation's reviewers repository at the head of its
// default branch and stores every reviewer found there. It is safe to run
// from several workers at once: the sync that started last wins.
func (s *Syncer) Sync(ctx context.Context, installationID int) (Report, error) {
	started := s.cfg.Now().UTC().Truncate(time.Microsecond)
	inst, err := s.cfg.DB.Installation.Get(ctx, installationID)
	if err != nil {
		return Report{}, fmt.Errorf("sync reviewers: installation %d: %w", installationID, err)
	}
	rep := Report{InstallationID: installationID, Repo: ReviewersRepo(inst)}
	log := s.cfg.Log.With("installation_id", inst.GithubID, "repo", rep.Repo)

	snap, unchanged, err := s.fetch(ctx, inst, rep.Repo)
	if err != nil {
		serr := s.recordFailure(ctx, inst.ID, started, err)
		return rep, errors.Join(err, serr)
	}
	rep.Commit = snap.commit
	if unchanged {
		rep.Unchanged = true
		return rep, nil
	}
	if err := s.store(ctx, inst, snap, started, &rep); err != nil {
		return rep, err
	}
	log.Info("reviewers synced", "commit", snap.commit, "synced", len(rep.Synced), "failed", len(rep.Failed),
		"disabled", len(rep.Disabled), "stale", rep.Stale)
	return rep, nil
}

// recordFailure stores why the repository could not be read; reviewers stay as they are.
func (s *Syncer) recordFailure(ctx context.Context, id int, started time.Time, cause error) error {
	_, err := s.cfg.DB.Installation.Update().
		Where(installation.ID(id), installation.Or(installation.LastSyncAtIsNil(), installation.LastSyncAtLT(started))).
		SetLastSyncAt(started).SetLastSyncError(redact.String(cause.Error())).Save(ctx)
	if err != nil {
		return fmt.Errorf("record sync failure: %w", err)
	}
	return nil
}

func (s *Syncer) fetch(ctx context.Context, inst *ent.Installation, full string) (*snapshot, bool, error) {
	owner, name, ok := strings.Cut(full, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, false, fmt.Errorf("reviewers repository %q: want owner/name", full)
	}
	clients, err := s.cfg.Clients.Installation(inst.GithubID)
	if err != nil {
		return nil, false, fmt.Errorf("reviewers repository %s: %w", full, err)
	}
	rest := clients.REST
	// One GraphQL call gives the default branch and its head.
	var q struct {
		Repository *struct {
			DefaultBranchRef *struct {
				Name   string
				Target struct {
					Oid string
				}
			}
		} `graphql:"repository(owner: $owner, name: $name)"`
	}
	err = clients.GraphQL.Query(ctx, &q, map[string]any{"owner": githubv4.String(owner), "name": githubv4.String(name)})
	if err != nil && strings.Contains(err.Error(), "Could not resolve to a Repository") || err == nil && q.Repository == nil {
		return nil, false, fmt.Errorf("reviewers repository %s: %w", full, ErrNoReviewersRepo)
	}
	if err != nil {
		return nil, false, fmt.Errorf("reviewers repository %s: %w", full, err)
	}
	if q.Repository.DefaultBranchRef == nil || q.Repository.DefaultBranchRef.Target.Oid == "" {
		return nil, false, fmt.Errorf("reviewers repository %s is empty (no default branch)", full)
	}
	commit := q.Repository.DefaultBranchRef.Target.Oid
	if commit == inst.LastSyncCommit && inst.LastSyncError == "" {
		lapsed, err := s.modelsLapsed(ctx, inst.ID)
		if err != nil {
			return nil, false, err
		}
		if !lapsed {
			return &snapshot{commit: commit}, true, nil
		}
		// A model in force retired, or left the operator's catalogue, since
		// this commit was synced: read it again so that is a sync error.
	}
	tree, _, err := rest.Git.GetTree(ctx, owner, name, commit, true)
	if err != nil {
		return nil, false, fmt.Errorf("reviewers repository %s: tree at %s: %w", full, commit, err)
	}
	if tree.GetTruncated() {
		return nil, false, fmt.Errorf("reviewers repository %s: too many files to list at %s", full, short(commit))
	}
	f := &fetcher{rest: rest, owner: owner, repo: name, commit: commit, models: s.cfg.Models, now: s.cfg.Now()}
	return f.snapshot(ctx, tree.Entries)
}

// modelsLapsed says whether a reviewer in force names a model the catalogue
// now refuses. A lifecycle changes without a commit (a retirement date
// passes, an operator edits CHAKSHU_MODEL_CATALOG), so every periodic sync
// of an unchanged repository checks the models again (DESIGN §7, Models).
func (s *Syncer) modelsLapsed(ctx context.Context, installationID int) (bool, error) {
	rs, err := s.cfg.DB.Reviewer.Query().
		Where(reviewer.HasInstallationWith(installation.ID(installationID)), reviewer.Enabled(true), reviewer.SyncError("")).
		All(ctx)
	if err != nil {
		return false, fmt.Errorf("check the models of the reviewers in force: %w", err)
	}
	now := s.cfg.Now()
	for _, r := range rs {
		if CheckModel(s.cfg.Models, FromEnt(r).Model, now) != nil {
			return true, nil
		}
	}
	return false, nil
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// fetcher reads files of the reviewers repository at one commit.
type fetcher struct {
	rest                *github.Client
	owner, repo, commit string
	models              *models.Source
	now                 time.Time
	// local, when set, reads files from a directory instead (LoadDir).
	local func(p string, limit int) (string, error)
}

// file is a blob of the tree.
type file struct {
	path string
	size int
}

func (f *fetcher) snapshot(ctx context.Context, entries []*github.TreeEntry) (*snapshot, bool, error) {
	snap := &snapshot{commit: f.commit, reviewers: map[string]*parsedReviewer{}, ignored: map[string]string{}}
	dirs := map[string][]file{}
	var order []string
	for _, e := range entries {
		p := e.GetPath()
		rest, ok := strings.CutPrefix(p, "reviewers/")
		if !ok {
			continue
		}
		name, sub, ok := strings.Cut(rest, "/")
		if !ok {
			continue // a file directly under reviewers/, or the folder itself
		}
		if e.GetType() != "blob" {
			if _, seen := dirs[name]; !seen {
				dirs[name] = nil
				order = append(order, name)
			}
			continue
		}
		if _, seen := dirs[name]; !seen {
			order = append(order, name)
		}
		dirs[name] = append(dirs[name], file{path: sub, size: e.GetSize()})
	}
	sort.Strings(order)
	for _, name := range order {
		if !ValidName(name) {
			snap.ignored[name] = fmt.Sprintf("reviewers/%s: folder name is not a reviewer name (want [a-z0-9-]{1,64})", name)
			continue
		}
		if len(snap.reviewers) >= maxReviewers {
			snap.ignored[name] = fmt.Sprintf("reviewers/%s: over the limit of %d reviewers", name, maxReviewers)
			continue
		}
		pr, err := f.reviewer(ctx, name, dirs[name])
		if err != nil {
			return nil, false, err // GitHub failed: nothing is stored from a partial read
		}
		snap.reviewers[name] = pr
	}
	return snap, false, nil
}

// problem makes a file-level sync error.
func problem(file, format string, a ...any) error {
	return &ParseError{Problems: []Problem{{File: file, Msg: fmt.Sprintf(format, a...)}}}
}

// reviewer reads and parses one reviewer folder. Broken files are returned in
// parsedReviewer.err; the error return is for GitHub failures.
func (f *fetcher) reviewer(ctx context.Context, name string, files []file) (*parsedReviewer, error) {
	pr := &parsedReviewer{name: name}
	dir := "reviewers/" + name + "/"
	byPath := map[string]file{}
	total := 0
	for _, fl := range files {
		byPath[fl.path] = fl
	}
	get := func(fl file, limit int) (string, error) {
		if fl.size > limit {
			return "", problem(dir+fl.path, "file is %d bytes, over the %d byte limit", fl.size, limit)
		}
		total += fl.size
		if total > MaxReviewerBytes {
			return "", problem(dir+fl.path, "the reviewer's files are over the %d byte limit together", MaxReviewerBytes)
		}
		return f.read(ctx, dir+fl.path, limit)
	}

	yml, ok := byPath["reviewer.yaml"]
	if !ok {
		pr.err = problem(dir+"reviewer.yaml", "missing: every reviewer needs a reviewer.yaml")
		return pr, nil
	}
	text, err := get(yml, MaxReviewerYAMLBytes)
	if err != nil {
		return f.fail(pr, err)
	}
	pr.configYAML = text
	if pr.config, pr.err = ParseReviewerYAML(dir+"reviewer.yaml", []byte(text)); pr.err != nil {
		return pr, nil
	}
	// Lifecycle is checked before a run, not during one: an unknown or
	// retired model is a sync error (DESIGN §7, Models).
	if err := CheckModel(f.models, pr.config.Model, f.now); err != nil {
		pr.err = problem(dir+"reviewer.yaml", "%s", err.Error())
		return pr, nil
	}
	if md, ok := byPath["CLAUDE.md"]; ok {
		if pr.claudeMD, err = get(md, MaxClaudeMDBytes); err != nil {
			return f.fail(pr, err)
		}
	}

	// Skills: skills/<skill>/SKILL.md and the files beside it.
	skillFiles := map[string][]file{}
	var skillNames []string
	for _, fl := range files {
		rest, ok := strings.CutPrefix(fl.path, "skills/")
		if !ok {
			continue
		}
		skill, sub, ok := strings.Cut(rest, "/")
		if !ok {
			continue // a file directly under skills/
		}
		if _, seen := skillFiles[skill]; !seen {
			skillNames = append(skillNames, skill)
		}
		skillFiles[skill] = append(skillFiles[skill], file{path: sub, size: fl.size})
	}
	sort.Strings(skillNames)
	if len(skillNames) > MaxSkills {
		pr.err = problem(dir+"skills", "%d skills, over the limit of %d", len(skillNames), MaxSkills)
		return pr, nil
	}
	for _, sn := range skillNames {
		sdir := dir + "skills/" + sn + "/"
		if !ValidName(sn) {
			pr.err = problem(sdir, "skill folder name is not valid (want [a-z0-9-]{1,64})")
			return pr, nil
		}
		sfiles := skillFiles[sn]
		sort.Slice(sfiles, func(i, j int) bool { return sfiles[i].path < sfiles[j].path })
		sk := Skill{Files: map[string]string{}}
		skillTotal := 0
		found := false
		for _, fl := range sfiles {
			skillTotal += fl.size
			if skillTotal > MaxSkillBytes {
				pr.err = problem(sdir, "the skill's files are over the %d byte limit together", MaxSkillBytes)
				return pr, nil
			}
			if fl.path == "SKILL.md" {
				found = true
				content, err := get(file{path: "skills/" + sn + "/SKILL.md", size: fl.size}, MaxSkillMDBytes)
				if err != nil {
					return f.fail(pr, err)
				}
				sk.Content = content
				sk.Name, sk.Description, err = parseSkillFrontMatter(sdir+"SKILL.md", []byte(content))
				if err != nil {
					pr.err = err
					return pr, nil
				}
				if sk.Name != sn {
					pr.err = problem(sdir+"SKILL.md", "front matter name %q differs from the skill's folder %q", sk.Name, sn)
					return pr, nil
				}
				continue
			}
			if len(sk.Files) >= MaxSkillFiles {
				pr.err = problem(sdir, "over the limit of %d files beside SKILL.md", MaxSkillFiles)
				return pr, nil
			}
			content, err := get(file{path: "skills/" + sn + "/" + fl.path, size: fl.size}, MaxSkillFileBytes)
			if err != nil {
				return f.fail(pr, err)
			}
			if !utf8.ValidString(content) || strings.ContainsRune(content, 0) {
				continue // binary files are not given to the agent
			}
			sk.Files[fl.path] = content
		}
		if !found {
			pr.err = problem(sdir+"SKILL.md", "missing: every skill folder needs a SKILL.md")
			return pr, nil
		}
		if len(sk.Files) == 0 {
			sk.Files = nil
		}
		pr.skills = append(pr.skills, sk)
	}
	return pr, nil
}

// CheckModel says why model cannot be used now (unknown, retired, no
// price), or nil.
func CheckModel(src *models.Source, model string, now time.Time) error {
	cat, _ := src.Catalog() // a broken operator file leaves the last good catalogue
	if _, _, err := cat.Check(model, now); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// fail sorts a read error: file problems go on the reviewer, GitHub failures up.
func (f *fetcher) fail(pr *parsedReviewer, err error) (*parsedReviewer, error) {
	var pe *ParseError
	if errors.As(err, &pe) {
		pr.err = err
		return pr, nil
	}
	return nil, err
}

// read returns a file's text at the commit, refusing more than limit bytes.
func (f *fetcher) read(ctx context.Context, p string, limit int) (string, error) {
	if f.local != nil {
		return f.local(p, limit)
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := fmt.Sprintf("repos/%s/%s/contents/%s?ref=%s", url.PathEscape(f.owner), url.PathEscape(f.repo),
		strings.Join(segs, "/"), url.QueryEscape(f.commit))
	req, err := f.rest.NewRequest(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	req.Header.Set("Accept", "application/vnd.github.raw")
	resp, err := f.rest.BareDo(req)
	if err != nil {
		return "", fmt.Errorf("read %s at %s: %w", p, short(f.commit), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return "", fmt.Errorf("read %s at %s: %w", p, short(f.commit), err)
	}
	if len(b) > limit {
		return "", problem(p, "file is over the %d byte limit", limit)
	}
	return string(b), nil
}

// store writes a snapshot in one transaction. The conditional update of the
// installation's last_sync_at orders concurrent syncs: it locks the row until
// commit and refuses a snapshot older than the one in force.
func (s *Syncer) store(ctx context.Context, inst *ent.Installation, snap *snapshot, started time.Time, rep *Report) error {
	now := s.cfg.Now()
	var problems []string
	names := make([]string, 0, len(snap.reviewers))
	for n := range snap.reviewers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := snap.reviewers[n].err; err != nil {
			problems = append(problems, n)
		}
	}
	summary := ""
	switch {
	case len(problems) > 0 && len(snap.ignored) > 0:
		summary = fmt.Sprintf("%d reviewers have sync errors (%s); %d folders under reviewers/ were ignored",
			len(problems), strings.Join(problems, ", "), len(snap.ignored))
	case len(problems) > 0:
		summary = fmt.Sprintf("%d reviewers have sync errors: %s", len(problems), strings.Join(problems, ", "))
	case len(snap.ignored) > 0:
		var why []string
		for _, n := range sortedKeys(snap.ignored) {
			why = append(why, snap.ignored[n])
		}
		summary = strings.Join(why, "; ")
	}
	err := s.cfg.DB.WithTx(ctx, func(tx *ent.Tx) error {
		rep.Synced, rep.Failed, rep.Disabled, rep.Stale = nil, nil, nil, false // a retried transaction starts afresh
		n, err := tx.Installation.Update().
			Where(installation.ID(inst.ID), installation.Or(installation.LastSyncAtIsNil(), installation.LastSyncAtLT(started))).
			SetLastSyncAt(started).SetLastSyncCommit(snap.commit).SetLastSyncError(redact.String(summary)).Save(ctx)
		if err != nil {
			return fmt.Errorf("update installation: %w", err)
		}
		if n == 0 {
			rep.Stale = true
			return nil
		}
		existing, err := tx.Reviewer.Query().Where(reviewer.HasInstallationWith(installation.ID(inst.ID))).All(ctx)
		if err != nil {
			return fmt.Errorf("list reviewers: %w", err)
		}
		byName := map[string]*ent.Reviewer{}
		for _, r := range existing {
			byName[r.Name] = r
		}
		for _, name := range names {
			pr := snap.reviewers[name]
			old := byName[name]
			if pr.err != nil {
				msg := redact.String(pr.err.Error())
				if rep.Failed == nil {
					rep.Failed = map[string]string{}
				}
				rep.Failed[name] = msg
				if old != nil {
					err = tx.Reviewer.UpdateOne(old).SetSyncError(msg).SetSyncErrorAt(now).SetSyncErrorCommit(snap.commit).Exec(ctx)
				} else { // never good: shown with its error, never picked
					err = tx.Reviewer.Create().SetInstallationID(inst.ID).SetName(name).SetEnabled(false).
						SetSyncError(msg).SetSyncErrorAt(now).SetSyncErrorCommit(snap.commit).Exec(ctx)
				}
				if err != nil {
					return fmt.Errorf("record error of reviewer %s: %w", name, err)
				}
				continue
			}
			rep.Synced = append(rep.Synced, name)
			cols := pr.columns()
			if old != nil {
				err = tx.Reviewer.UpdateOne(old).SetEnabled(true).SetDescription(pr.config.Description).
					SetSyncedCommit(snap.commit).SetSyncedAt(now).SetClaudeMd(cols.ClaudeMD).SetConfigYaml(cols.ConfigYAML).
					SetConfig(cols.Config).SetSkills(cols.Skills).
					SetSyncError("").ClearSyncErrorAt().SetSyncErrorCommit("").Exec(ctx)
			} else {
				err = tx.Reviewer.Create().SetInstallationID(inst.ID).SetName(name).SetEnabled(true).
					SetDescription(pr.config.Description).SetSyncedCommit(snap.commit).SetSyncedAt(now).
					SetClaudeMd(cols.ClaudeMD).SetConfigYaml(cols.ConfigYAML).SetConfig(cols.Config).
					SetSkills(cols.Skills).Exec(ctx)
			}
			if err != nil {
				return fmt.Errorf("store reviewer %s: %w", name, err)
			}
		}
		for _, r := range existing {
			if _, still := snap.reviewers[r.Name]; still || !r.Enabled {
				continue
			}
			if err := tx.Reviewer.UpdateOne(r).SetEnabled(false).Exec(ctx); err != nil {
				return fmt.Errorf("disable reviewer %s: %w", r.Name, err)
			}
			rep.Disabled = append(rep.Disabled, r.Name)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sync reviewers of installation %d: %w", inst.ID, err)
	}
	if len(snap.ignored) > 0 {
		rep.Ignored = snap.ignored
	}
	if rep.Stale {
		rep.Synced, rep.Failed, rep.Disabled = nil, nil, nil
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
