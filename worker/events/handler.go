package events

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/logging"
)

// handler handles one event.
type handler struct {
	*Loop
	ev *ent.WebhookEvent
	// dropPayload: once handled, the event's payload is emptied at once
	// (retention keeps the row for deduplication): set by handlers of
	// events Chakshu stores only because GitHub sends them.
	dropPayload bool
}

// dispatch picks the handler of the event type; other events are done, ignored.
func (h *handler) dispatch(ctx context.Context) error {
	if needsInstallation(h.ev.Event) && h.ev.InstallationID == 0 {
		logging.From(ctx).Debug("event outside an installation: ignored")
		return nil
	}
	switch h.ev.Event {
	case "issue_comment":
		return h.issueComment(ctx)
	case "pull_request":
		return h.pullRequest(ctx)
	case "pull_request_review_comment":
		return h.reviewComment(ctx)
	case "workflow_run":
		return h.workflowRun(ctx)
	case "check_run":
		return h.checkRun(ctx)
	case "installation":
		return h.installation(ctx)
	case "installation_repositories":
		return h.installationRepositories(ctx)
	case "push":
		return h.push(ctx)
	default:
		return nil
	}
}

// needsInstallation: events outside an installation (a webhook of a repository
// or org hook, an example payload) have nothing Chakshu could act on.
func needsInstallation(event string) bool {
	return event != "installation" && event != "installation_repositories"
}

// decode reads the payload into v; a payload that does not fit is permanent.
func (h *handler) decode(v any) error {
	if err := json.Unmarshal(h.ev.Payload, v); err != nil {
		return permanent("decode %s payload: %v", h.ev.Event, err)
	}
	return nil
}

// client returns the REST client of the event's installation.
func (h *handler) client(installationID int64) (*github.Client, error) {
	in, err := h.cfg.GitHub.Installation(installationID)
	if err != nil {
		return nil, fmt.Errorf("github client for installation %d: %w", installationID, err)
	}
	return in.REST, nil
}

// isBot says whether a GitHub account is a bot (Chakshu included).
func isBot(u user) bool {
	return u.Login == "" || u.Type == "Bot" || strings.HasSuffix(strings.ToLower(u.Login), "[bot]")
}

// botLogin is Chakshu's own login.
func (h *handler) botLogin() string { return strings.ToLower(h.cfg.AppSlug) + "[bot]" }

// ensureInstallation returns the installation row of GitHub installation id,
// creating it from what the event says when the installation event was missed.
func (h *handler) ensureInstallation(ctx context.Context, id int64, owner account) (*ent.Installation, error) {
	if id == 0 {
		return nil, permanent("the %s event carries no installation", h.ev.Event)
	}
	inst, err := h.cfg.DB.Installation.Query().Where(installation.GithubID(id)).Only(ctx)
	if err == nil || !ent.IsNotFound(err) {
		return inst, err
	}
	c := h.cfg.DB.Installation.Create().SetGithubID(id).SetAccountLogin(owner.Login).SetAccountID(owner.ID)
	if t := owner.Type; t != "" {
		c.SetAccountType(t)
	}
	if err := c.OnConflictColumns(installation.FieldGithubID).DoNothing().Exec(ctx); err != nil && !isNoRows(err) {
		return nil, fmt.Errorf("record installation %d: %w", id, err)
	}
	return h.cfg.DB.Installation.Query().Where(installation.GithubID(id)).Only(ctx)
}

// ensureRepo keeps the repository row of r current and returns it.
func (h *handler) ensureRepo(ctx context.Context, inst *ent.Installation, r *repoPayload) (*ent.Repository, error) {
	if r == nil || r.ID == 0 {
		return nil, permanent("the %s event carries no repository", h.ev.Event)
	}
	owner, name := splitFullName(r.FullName)
	if r.Owner.Login != "" {
		owner = r.Owner.Login
	}
	if r.Name != "" {
		name = r.Name
	}
	c := h.cfg.DB.Repository.Create().SetGithubID(r.ID).SetOwner(owner).SetName(name).
		SetFullName(owner + "/" + name).SetRemoved(false).SetInstallation(inst)
	up := c.OnConflictColumns(repository.FieldGithubID).UpdateOwner().UpdateName().UpdateFullName().UpdateRemoved()
	if r.DefaultBranch != "" {
		c.SetDefaultBranch(r.DefaultBranch)
		up.UpdateDefaultBranch()
	}
	if r.Private != nil {
		c.SetPrivate(*r.Private)
		up.UpdatePrivate()
	}
	if err := up.Exec(ctx); err != nil {
		return nil, fmt.Errorf("record repository %s: %w", r.FullName, err)
	}
	return h.cfg.DB.Repository.Query().Where(repository.GithubID(r.ID)).WithInstallation().Only(ctx)
}

// repoOf resolves the installation and repository rows of an event.
func (h *handler) repoOf(ctx context.Context, c *common) (*ent.Installation, *ent.Repository, error) {
	if c.Repository == nil {
		return nil, nil, permanent("the %s event carries no repository", h.ev.Event)
	}
	in, err := h.ensureInstallation(ctx, c.Installation.ID, c.Repository.Owner)
	if err != nil {
		return nil, nil, err
	}
	repo, err := h.ensureRepo(ctx, in, c.Repository)
	if err != nil {
		return nil, nil, err
	}
	return in, repo, nil
}

// canWrite applies reviewrequest.Access, the one rule for who may ask.
func (h *handler) canWrite(ctx context.Context, gc *github.Client, repo *ent.Repository, login, association string) (bool, error) {
	return h.requests.Access.CanWrite(ctx, gc, repo, login, association)
}

// commentOnce posts body (with a hidden marker) on the PR's conversation,
// unless a retry of this event finds it already posted.
func (h *handler) commentOnce(ctx context.Context, repo *ent.Repository, pr int, marker, body string) error {
	return h.comment(ctx, repo, pr, marker, body, h.ev.Attempts > 1)
}

// comment posts body with marker; lookFirst looks for it before posting.
func (h *handler) comment(ctx context.Context, repo *ent.Repository, pr int, marker, body string, lookFirst bool) error {
	body = strings.TrimRight(body, "\n") + "\n\n" + marker
	_, err := h.cfg.Write.Comment(ctx, ghwrite.RepoOf(repo), pr, body, hasMarker(marker), lookFirst)
	return err
}

// replyOnce answers in a review thread (replies endpoint), unless a retry of
// this event finds the answer already there.
func (h *handler) replyOnce(ctx context.Context, repo *ent.Repository, pr int, rootID int64, marker, body string) error {
	return h.reply(ctx, repo, pr, rootID, marker, body, h.ev.Attempts > 1)
}

// reply answers in a review thread with marker; lookFirst looks for it before posting.
func (h *handler) reply(ctx context.Context, repo *ent.Repository, pr int, rootID int64, marker, body string, lookFirst bool) error {
	body = strings.TrimRight(body, "\n") + "\n\n" + marker
	_, err := h.cfg.Write.Reply(ctx, ghwrite.RepoOf(repo), pr, rootID, body, hasMarker(marker), lookFirst)
	return err
}

func hasMarker(marker string) ghwrite.Mine {
	return func(body string) bool { return strings.Contains(body, marker) }
}

func splitFullName(s string) (string, string) {
	o, n, _ := strings.Cut(s, "/")
	return o, n
}

func isNoRows(err error) bool {
	return errors.Is(err, sql.ErrNoRows)
}
