package graph

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/graph/model"
	"github.com/chakshu-dev/chakshu/internal/audit"
	"github.com/chakshu-dev/chakshu/internal/reviewers"
	"github.com/chakshu-dev/chakshu/internal/runs"
)

// maxNote caps the requester's note.
const maxNote = 4000

var (
	ownerRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`)
	repoRE  = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
	numRE   = regexp.MustCompile(`^[1-9][0-9]{0,9}$`)
)

// PullRequestRef names one pull request.
type PullRequestRef struct {
	Owner, Repo string
	Number      int
}

// ParsePRURL parses https://<GitHub web host>/<owner>/<repo>/pull/<n> (with an
// optional /files, /commits or /checks tab, query or fragment). webURL is
// GitHub's web base; the host and scheme must match it.
func ParsePRURL(raw, webURL string) (PullRequestRef, error) {
	var ref PullRequestRef
	bad := func(why string) (PullRequestRef, error) {
		return ref, fmt.Errorf("not a pull request URL of %s: %s", webURL, why)
	}
	raw = strings.TrimSpace(raw)
	if len(raw) > 2048 {
		return bad("too long")
	}
	base, err := url.Parse(strings.TrimRight(webURL, "/"))
	if err != nil || base.Host == "" {
		return bad("GitHub URL misconfigured")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return bad("does not parse")
	}
	if u.Scheme != base.Scheme || !strings.EqualFold(u.Host, base.Host) || u.User != nil || u.Opaque != "" {
		return bad("wrong host")
	}
	p := u.EscapedPath()
	prefix := strings.TrimRight(base.EscapedPath(), "/")
	if !strings.HasPrefix(p, prefix+"/") {
		return bad("wrong path")
	}
	parts := strings.Split(strings.TrimPrefix(p, prefix+"/"), "/")
	if len(parts) == 5 && parts[4] == "" { // trailing slash
		parts = parts[:4]
	}
	if len(parts) == 5 && slices.Contains([]string{"files", "commits", "checks"}, parts[4]) {
		parts = parts[:4]
	}
	if len(parts) != 4 || parts[2] != "pull" {
		return bad("want /<owner>/<repo>/pull/<number>")
	}
	if !ownerRE.MatchString(parts[0]) || !repoRE.MatchString(parts[1]) || parts[1] == "." || parts[1] == ".." {
		return bad("bad owner or repository name")
	}
	if !numRE.MatchString(parts[3]) {
		return bad("bad pull request number")
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil || n <= 0 || n > 1<<31-1 {
		return bad("bad pull request number")
	}
	return PullRequestRef{Owner: parts[0], Repo: parts[1], Number: n}, nil
}

// requestReview queues review runs for a PR from the portal. It runs outside
// the request transaction (tx.go: ownWrites): it calls GitHub, then queues.
func (h *api) requestReview(ctx context.Context, in model.RequestReviewInput) (*model.RequestReviewPayload, error) {
	v, err := viewer(ctx)
	if err != nil {
		return nil, err
	}
	ref, err := ParsePRURL(in.PrURL, h.webURL)
	if err != nil {
		return nil, invalid("%s", err.Error())
	}
	note := ""
	if in.Note != nil {
		note = strings.TrimSpace(*in.Note)
	}
	if len(note) > maxNote {
		return nil, invalid("the note is longer than %d characters", maxNote)
	}
	full := ref.Owner + "/" + ref.Repo
	repo, err := h.client.Repository.Query().Where(repository.FullNameEqualFold(full), repository.Removed(false)).
		WithInstallation().First(ctx)
	if ent.IsNotFound(err) {
		return nil, &apiError{CodeNotFound, fmt.Sprintf("Chakshu is not installed on %s, or you cannot read it", full)}
	}
	if err != nil {
		return nil, err
	}
	inst := repo.Edges.Installation
	if inst == nil || inst.Suspended {
		return nil, invalid("the Chakshu installation for %s is suspended", full)
	}
	if h.cfg.GitHub == nil {
		return nil, invalid("GitHub is not configured")
	}
	if err := h.requireRepoWrite(ctx, v, repo); err != nil {
		return nil, err
	}
	ic, err := h.cfg.GitHub.Installation(inst.GithubID)
	if err != nil {
		return nil, fmt.Errorf("installation client: %w", err)
	}
	pr, resp, err := ic.REST.PullRequests.Get(ctx, repo.Owner, repo.Name, ref.Number)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return nil, &apiError{CodeNotFound, fmt.Sprintf("%s has no pull request #%d", full, ref.Number)}
	}
	if err != nil {
		return nil, fmt.Errorf("get pull request: %w", err)
	}
	if pr.GetState() != "open" {
		return nil, invalid("%s#%d is %s; only open pull requests are reviewed", full, ref.Number, pr.GetState())
	}
	if pr.GetHead().GetSHA() == "" {
		return nil, errors.New("get pull request: no head sha")
	}
	picked, err := h.pickReviewers(ctx, ic.REST, repo, inst, in.Reviewers)
	if err != nil {
		return nil, err
	}
	ids := make([]int, len(picked))
	byID := map[int]*ent.Reviewer{}
	for i, r := range picked {
		ids[i] = r.ID
		byID[r.ID] = r
	}
	prURL := pr.GetHTMLURL()
	if prURL == "" {
		prURL = fmt.Sprintf("%s/%s/pull/%d", strings.TrimRight(h.webURL, "/"), repo.FullName, ref.Number)
	}
	created, skipped, err := runs.Enqueue(ctx, h.db, h.cfg.Bus, runs.Request{
		RepositoryID: repo.ID, ReviewerIDs: ids, PRNumber: ref.Number, PRTitle: pr.GetTitle(), PRURL: prURL,
		HeadSHA: pr.GetHead().GetSHA(), HeadRef: pr.GetHead().GetRef(),
		BaseSHA: pr.GetBase().GetSHA(), BaseRef: pr.GetBase().GetRef(),
		Trigger: run.TriggerPortal, Requester: v.User.Login, Note: note,
		Configure: func(rid int, c *ent.RunCreate) {
			if cfg, err := reviewers.FromEnt(byID[rid]); err == nil {
				c.SetModel(cfg.Model).SetMaxCostUsd(cfg.MaxCostUSD)
			}
			c.SetFromFork(pr.GetHead().GetRepo().GetID() != 0 && pr.GetHead().GetRepo().GetID() != pr.GetBase().GetRepo().GetID())
		},
	})
	if err != nil {
		return nil, err
	}
	out := &model.RequestReviewPayload{Runs: created, AlreadyQueued: []string{}, HeadSha: pr.GetHead().GetSHA()}
	for _, id := range skipped {
		out.AlreadyQueued = append(out.AlreadyQueued, byID[id].Name)
	}
	if out.Runs == nil {
		out.Runs = []*ent.Run{}
	}
	if len(created) > 0 {
		// After the queueing, not in its transaction: Enqueue tells an active
		// duplicate by a constraint error, which would abort a PostgreSQL one.
		skip := map[int]bool{}
		for _, id := range skipped {
			skip[id] = true
		}
		var names []string
		for _, id := range ids {
			if !skip[id] {
				names = append(names, byID[id].Name)
			}
		}
		if err := audit.Record(ctx, h.db.Client, audit.Entry{Actor: v.User.Login, Action: audit.ReviewRequest, InstallationID: inst.ID,
			Target: fmt.Sprintf("%s#%d at %s", repo.FullName, ref.Number, short(pr.GetHead().GetSHA())), Detail: "reviewers " + strings.Join(names, ", ")}); err != nil {
			h.log.Error("audit log: review request", "err", err)
		}
	}
	h.log.Info("review requested in the portal", "repo", repo.FullName, "pr", ref.Number, "requester", v.User.Login,
		"queued", len(created), "skipped", len(skipped))
	return out, nil
}

// pickReviewers resolves named reviewers of the installation, or the
// repository's defaults (.github/chakshu.yml `reviewers` on the default
// branch; every enabled reviewer when it names none).
func (h *api) pickReviewers(ctx context.Context, gh *github.Client, repo *ent.Repository, inst *ent.Installation, names []string) ([]*ent.Reviewer, error) {
	q := h.client.Reviewer.Query().Where(reviewer.HasInstallationWith(installation.ID(inst.ID)), reviewer.Enabled(true)).
		Order(ent.Asc(reviewer.FieldName))
	all, err := q.All(ctx)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, invalid("the installation has no reviewers; sync the reviewers repository first")
	}
	byName := map[string]*ent.Reviewer{}
	for _, r := range all {
		byName[strings.ToLower(r.Name)] = r
	}
	if len(names) == 0 {
		rc, found, err := reviewers.LoadRepoConfig(ctx, gh, repo.Owner, repo.Name, repo.DefaultBranch)
		if err != nil && !found {
			return nil, fmt.Errorf("default reviewers: %w", err)
		}
		names = rc.Reviewers
		if len(names) == 0 {
			return all, nil
		}
	}
	if len(names) > 50 {
		return nil, invalid("at most 50 reviewers")
	}
	var out []*ent.Reviewer
	var unknown []string
	seen := map[int]bool{}
	for _, n := range names {
		r := byName[strings.ToLower(strings.TrimSpace(n))]
		if r == nil {
			unknown = append(unknown, n)
			continue
		}
		if !seen[r.ID] {
			seen[r.ID] = true
			out = append(out, r)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, invalid("unknown reviewers: %s", strings.Join(unknown, ", "))
	}
	return out, nil
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
