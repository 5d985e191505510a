package reviewrequest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/audit"
	"github.com/chakshu-dev/chakshu/internal/diffmap"
	"github.com/chakshu-dev/chakshu/internal/fault"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/textcut"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// maxTitle caps the PR title stored on a run.
const maxTitle = 500

// PR is what queueing needs to know of the pull request.
type PR struct {
	Number         int
	Title, HTMLURL string
	State          string
	Draft          bool
	HeadSHA        string
	HeadRef        string
	BaseSHA        string
	BaseRef        string
	// HeadRepoID and BaseRepoID are GitHub ids of the head's and the base's
	// repository; 0 when the payload did not say.
	HeadRepoID, BaseRepoID int64
}

// FromFork says whether the head lives in another repository; false when unknown.
func (p PR) FromFork() bool {
	return p.HeadRepoID != 0 && p.BaseRepoID != 0 && p.HeadRepoID != p.BaseRepoID
}

// FromGitHub converts a go-github pull request.
func FromGitHub(p *github.PullRequest) PR {
	return PR{Number: p.GetNumber(), Title: p.GetTitle(), HTMLURL: p.GetHTMLURL(), State: p.GetState(), Draft: p.GetDraft(),
		HeadSHA: p.GetHead().GetSHA(), HeadRef: p.GetHead().GetRef(), BaseSHA: p.GetBase().GetSHA(), BaseRef: p.GetBase().GetRef(),
		HeadRepoID: p.GetHead().GetRepo().GetID(), BaseRepoID: p.GetBase().GetRepo().GetID()}
}

// GetPR reads pull request n of repo (for triggers whose payload lacks its head).
func GetPR(ctx context.Context, gc *github.Client, repo *ent.Repository, n int) (PR, *github.Response, error) {
	pr, resp, err := gc.PullRequests.Get(ctx, repo.Owner, repo.Name, n)
	if err != nil {
		return PR{}, resp, fmt.Errorf("get %s#%d: %w", repo.FullName, n, err)
	}
	return FromGitHub(pr), resp, nil
}

// ChangedFiles returns a lister of the files PR n of repo changes, with
// their patches (gh.ListPRFiles), called only when picking needs them.
func ChangedFiles(gc *github.Client, repo *ent.Repository, n int) func(ctx context.Context) ([]*github.CommitFile, error) {
	return func(ctx context.Context) ([]*github.CommitFile, error) {
		return gh.ListPRFiles(ctx, gc, repo.Owner, repo.Name, n)
	}
}

// maxCarriedPatches bounds the patches a files list picking read may carry
// to the runs' jobs (the job's own cut, job.MaxDiff): past it the job lists
// the files itself and keeps what it cut.
const maxCarriedPatches = 8 << 20

// carriedFiles is the files list picking read, as the runs store it for
// their jobs (runs.pr_files), or nil when it was not read or is too large.
func carriedFiles(fs []*github.CommitFile) []byte {
	if fs == nil {
		return nil
	}
	n := 0
	for _, f := range fs {
		if n += len(f.GetPatch()); n > maxCarriedPatches {
			return nil
		}
	}
	b, err := diffmap.EncodeFiles(diffmap.FilesOf(fs))
	if err != nil {
		return nil
	}
	return b
}

// EnabledReviewers are the installation's reviewers in force, by name.
func EnabledReviewers(ctx context.Context, db *ent.Client, inst *ent.Installation) ([]*ent.Reviewer, error) {
	rs, err := db.Reviewer.Query().Where(reviewer.HasInstallationWith(installation.ID(inst.ID)), reviewer.Enabled(true)).
		Order(ent.Asc(reviewer.FieldName)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("list reviewers: %w", err)
	}
	return rs, nil
}

// Picked is the reviewers a trigger runs, as stored rows.
type Picked struct {
	Reviewers []*ent.Reviewer
	// Unknown are names asked for that no enabled reviewer has; Known are the enabled ones.
	Unknown, Known []string
}

// Pick runs reviewerconfig.Pick for trigger t on pr of repoFullName over the
// enabled reviewers all. The PR's files are listed (files) only when an auto
// review's path globs need them.
func Pick(ctx context.Context, all []*ent.Reviewer, rc reviewerconfig.RepoConfig, repoFullName string, t reviewerconfig.Trigger,
	draft bool, files func(context.Context) ([]string, error)) (Picked, error) {
	cands := reviewerconfig.CandidatesFromEnt(all)
	in := reviewerconfig.PickInput{Trigger: t, PR: reviewerconfig.PR{Repo: repoFullName, Draft: draft}, Reviewers: cands, RepoConfig: rc}
	if t.Kind == reviewerconfig.TriggerAuto && files != nil &&
		slices.ContainsFunc(cands, func(c reviewerconfig.Candidate) bool { return len(c.Config.Auto.Paths) > 0 }) {
		fs, err := files(ctx)
		if err != nil {
			return Picked{}, err
		}
		in.PR.ChangedFiles = fs
	}
	res := reviewerconfig.Pick(in)
	byID := make(map[int]*ent.Reviewer, len(all))
	for _, r := range all {
		byID[r.ID] = r
	}
	out := Picked{Unknown: res.Unknown, Known: res.Known}
	for _, p := range res.Reviewers {
		if r := byID[p.ID]; r != nil {
			out.Reviewers = append(out.Reviewers, r)
		}
	}
	return out, nil
}

// Ask is one request to queue reviews on a PR's head.
type Ask struct {
	Repo      *ent.Repository
	PR        PR
	Reviewers []*ent.Reviewer
	Trigger   run.Trigger
	// Requester is who asked ("" for automatic reviews); Note their note;
	// Target the team:/user: whose review request this answers.
	Requester, Note, Target string
	// Audit records the request in the audit log as Requester's
	// (audit.ReviewRequest), in the queueing transaction, when it queues a
	// run: the portal's requests.
	Audit bool
	// RepoConfig is .github/chakshu.yml as picking read it (RepoConfig.Text),
	// stored on the runs so their jobs do not read it again; nil when
	// picking did not read it.
	RepoConfig *string
	// PRFiles is the PR's files list as picking read it at the head
	// (diffmap.EncodeFiles), stored on the runs so their jobs do not list
	// it again; nil when picking did not read it.
	PRFiles []byte
}

// Queued is what Queue did.
type Queued struct {
	Created []*ent.Run
	// Skipped are the reviewers that already had a run queued or in flight
	// for the PR's head.
	Skipped []*ent.Reviewer
}

// Queue asks for one review run per reviewer on the PR's head; a reviewer
// that already has one queued or in flight for that head is skipped. Each
// run takes its reviewer's model and cost cap.
func Queue(ctx context.Context, db *store.DB, bus wakeup.Bus, a Ask) (Queued, error) {
	if len(a.Reviewers) == 0 {
		return Queued{}, nil
	}
	cfgs := map[int]reviewerconfig.Config{}
	byID := map[int]*ent.Reviewer{}
	ids := make([]int, len(a.Reviewers))
	for i, r := range a.Reviewers {
		ids[i], byID[r.ID] = r.ID, r
		cfgs[r.ID] = reviewerconfig.FromEnt(r)
	}
	pr := a.PR
	var inTx func(context.Context, *ent.Client, []*ent.Run, []int) error
	if a.Audit {
		inTx = func(ctx context.Context, c *ent.Client, created []*ent.Run, skipped []int) error {
			return auditRequest(ctx, c, a, created, skipped)
		}
	}
	created, skipped, err := runstate.Enqueue(ctx, db, bus, runstate.Request{
		RepositoryID: a.Repo.ID, ReviewerIDs: ids, PRNumber: pr.Number, PRTitle: textcut.Bytes(pr.Title, maxTitle),
		PRURL: pr.HTMLURL, HeadSHA: pr.HeadSHA, HeadRef: pr.HeadRef, BaseSHA: pr.BaseSHA, BaseRef: pr.BaseRef,
		Trigger: a.Trigger, Requester: a.Requester, Note: a.Note, RequestTarget: a.Target,
		Configure: func(id int, c *ent.RunCreate) {
			if cfg, ok := cfgs[id]; ok {
				c.SetModel(cfg.Model).SetMaxCostUsd(cfg.MaxCostUSD)
			}
			c.SetFromFork(pr.FromFork()).SetNillableRepoConfig(a.RepoConfig)
			if a.PRFiles != nil {
				c.SetPrFiles(a.PRFiles)
			}
		},
		InTx: inTx,
	})
	if err != nil {
		return Queued{}, fmt.Errorf("queue runs on %s#%d: %w", a.Repo.FullName, pr.Number, err)
	}
	q := Queued{Created: created}
	for _, id := range skipped {
		q.Skipped = append(q.Skipped, byID[id])
	}
	return q, nil
}

// auditRequest records a's request in the audit log with c (the queueing
// transaction's client), naming the reviewers it queued; nothing when it
// queued none.
func auditRequest(ctx context.Context, c *ent.Client, a Ask, created []*ent.Run, skipped []int) error {
	if len(created) == 0 {
		return nil
	}
	instID, err := c.Repository.Query().Where(repository.ID(a.Repo.ID)).QueryInstallation().OnlyID(ctx)
	if err != nil {
		return fmt.Errorf("audit review request: installation: %w", err)
	}
	var names []string
	for _, r := range a.Reviewers {
		if !slices.Contains(skipped, r.ID) {
			names = append(names, r.Name)
		}
	}
	return audit.Record(ctx, c, audit.Entry{Actor: a.Requester, Action: audit.ReviewRequest, InstallationID: instID,
		Target: fmt.Sprintf("%s#%d at %s", a.Repo.FullName, a.PR.Number, gh.ShortSHA(a.PR.HeadSHA)), Detail: "reviewers " + strings.Join(names, ", ")})
}

// Requests is the "request a review" use case. Webhook handling and the
// portal call Request; they differ only in who asks and how outcomes are
// told (a PR comment, a GraphQL answer).
type Requests struct {
	DB     *store.DB
	Bus    wakeup.Bus
	Access Access
}

// Request is one ask for reviews.
type Request struct {
	Repo *ent.Repository
	Inst *ent.Installation
	// GitHub is the installation's REST client.
	GitHub *github.Client
	// Login and Association are who asks and GitHub's author_association of
	// their comment ("" in the portal).
	Login, Association string
	// Trusted skips the access check: an event GitHub sends for a PR change
	// (auto review, review request, label) or a portal admin.
	Trusted bool
	// PR is the pull request when the payload carries it; nil reads PR Number.
	PR     *PR
	Number int
	// Trigger is what picking sees; RunTrigger is stored on the runs.
	Trigger    reviewerconfig.Trigger
	RunTrigger run.Trigger
	// Note is the requester's note; Target the team:/user: a review request named.
	Note, Target string
	// Files lists the PR's changed files when auto review path globs need
	// them (the runs keep the list for their jobs); nil never lists.
	Files func(context.Context) ([]*github.CommitFile, error)
	// RefuseUnknown refuses the whole request, queueing nothing, when a name
	// asked for (or listed in chakshu.yml) is no enabled reviewer; without it
	// the known ones are queued and Outcome.Unknown lists the rest.
	RefuseUnknown bool
	// InvalidConfig is told of a .github/chakshu.yml that does not parse
	// (the defaults apply) when picking read it; nil ignores it.
	InvalidConfig func(context.Context, RepoConfig) error
	// Audit records the request in the audit log as Login's, in the
	// queueing transaction (Ask.Audit): the portal's requests.
	Audit bool
}

// Outcome is what Request did.
type Outcome struct {
	PR PR
	Picked
	Queued
	// NoReviewers is an installation without enabled reviewers: nothing was read or queued.
	NoReviewers bool
}

// Refusals of Request, each of a fault kind with its safe sentence.
var (
	// ErrNotAllowed: the person has no write access (fault.Forbidden).
	ErrNotAllowed = errors.New("no write access")
	// ErrNotOpen: the pull request is closed or merged (fault.Invalid).
	ErrNotOpen = errors.New("pull request not open")
)

// Request checks access, reads the PR when needed and the repository's
// config from its default branch, picks the reviewers and queues a run for each.
// It returns ErrNotAllowed or ErrNotOpen wrapped in a *fault.Error when it
// refuses, and a *fault.Error of kind NotFound for a PR that does not exist.
func (s *Requests) Request(ctx context.Context, r Request) (Outcome, error) {
	var out Outcome
	if !r.Trusted {
		ok, err := s.Access.CanWrite(ctx, r.GitHub, r.Repo, r.Login, r.Association)
		if err != nil {
			return out, err
		}
		if !ok {
			return out, fault.New(fault.Forbidden, fmt.Sprintf("you need write access to %s", r.Repo.FullName), ErrNotAllowed)
		}
	}
	all, err := EnabledReviewers(ctx, s.DB.Client, r.Inst)
	if err != nil {
		return out, err
	}
	if r.PR != nil {
		out.PR = *r.PR
	} else {
		pr, resp, err := GetPR(ctx, r.GitHub, r.Repo, r.Number)
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			return out, fault.New(fault.NotFound, fmt.Sprintf("%s has no pull request #%d", r.Repo.FullName, r.Number), err)
		}
		if err != nil {
			return out, err
		}
		if pr.HeadSHA == "" {
			return out, fmt.Errorf("get %s#%d: no head sha", r.Repo.FullName, r.Number)
		}
		out.PR = pr
	}
	if out.PR.State != "open" {
		return out, fault.New(fault.Invalid, fmt.Sprintf("%s#%d is %s; only open pull requests are reviewed",
			r.Repo.FullName, out.PR.Number, out.PR.State), ErrNotOpen)
	}
	if len(all) == 0 {
		out.NoReviewers = true
		return out, nil
	}
	var rc RepoConfig
	var read *string // the file as read, for the runs' jobs (instructions and path filters)
	if needsConfig(r.Trigger) {
		if rc, err = LoadRepoConfig(ctx, r.GitHub, r.Repo); err != nil {
			return out, err
		}
		read = &rc.Text
		if rc.Invalid != nil && r.InvalidConfig != nil {
			if err := r.InvalidConfig(ctx, rc); err != nil {
				return out, err
			}
		}
	}
	var listed []*github.CommitFile // the files, when picking read them
	var names func(context.Context) ([]string, error)
	if r.Files != nil {
		names = func(ctx context.Context) ([]string, error) {
			fs, err := r.Files(ctx)
			if err != nil {
				return nil, err
			}
			listed = fs
			out := make([]string, len(fs))
			for i, f := range fs {
				out[i] = f.GetFilename()
			}
			return out, nil
		}
	}
	if out.Picked, err = Pick(ctx, all, rc.RepoConfig, r.Repo.FullName, r.Trigger, out.PR.Draft, names); err != nil {
		return out, err
	}
	if r.RefuseUnknown && len(out.Unknown) > 0 {
		unknown := slices.Sorted(slices.Values(out.Unknown))
		return out, fault.Newf(fault.Invalid, "unknown reviewers: %s", strings.Join(unknown, ", "))
	}
	out.Queued, err = Queue(ctx, s.DB, s.Bus, Ask{Repo: r.Repo, PR: out.PR, Reviewers: out.Picked.Reviewers,
		Trigger: r.RunTrigger, Requester: r.Login, Note: r.Note, Target: r.Target, Audit: r.Audit, RepoConfig: read, PRFiles: carriedFiles(listed)})
	return out, err
}

// needsConfig says whether picking for t reads .github/chakshu.yml: the
// defaults of a bare ask and auto review do; named reviewers, "all" and review
// requests (mapped by reviewer.yaml alone) do not.
func needsConfig(t reviewerconfig.Trigger) bool {
	switch t.Kind {
	case reviewerconfig.TriggerComment, reviewerconfig.TriggerPortal:
		return !t.All && len(t.Names) == 0
	case reviewerconfig.TriggerLabel:
		return strings.EqualFold(strings.TrimSpace(t.Label), reviewerconfig.LabelReview)
	case reviewerconfig.TriggerAuto:
		return true
	}
	return false
}
