package graph

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/graph/model"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/reviewrequest"
)

// maxNote caps the requester's note; maxNamed the reviewers one request names.
const (
	maxNote  = 4000
	maxNamed = 50
)

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
	if len(in.Reviewers) > maxNamed {
		return nil, invalid("at most %d reviewers", maxNamed)
	}
	ic, err := h.cfg.GitHub.Installation(inst.GithubID)
	if err != nil {
		return nil, fmt.Errorf("installation client: %w", err)
	}
	out, err := h.requests.Request(ctx, reviewrequest.Request{Repo: repo, Inst: inst, GitHub: ic.REST,
		Login: v.User.Login, Trusted: v.Admin || v.AdminOf(inst.ID), Number: ref.Number,
		Trigger:    reviewerconfig.Trigger{Kind: reviewerconfig.TriggerPortal, Names: in.Reviewers},
		RunTrigger: run.TriggerPortal, Note: note, RefuseUnknown: true, Audit: true})
	if err != nil {
		return nil, err
	}
	if out.NoReviewers {
		return nil, invalid("the installation has no reviewers; sync the reviewers repository first")
	}
	res := &model.RequestReviewPayload{Runs: out.Created, AlreadyQueued: []string{}, HeadSha: out.PR.HeadSHA}
	for _, r := range out.Skipped {
		res.AlreadyQueued = append(res.AlreadyQueued, r.Name)
	}
	if res.Runs == nil {
		res.Runs = []*ent.Run{}
	}
	h.log.Info("review requested in the portal", "repo", repo.FullName, "pr", ref.Number, "requester", v.User.Login,
		"queued", len(out.Created), "skipped", len(out.Skipped))
	return res, nil
}
