package graph

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/internal/intake"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/apitoken"
	"github.com/chakshu-dev/chakshu/ent/connectorcredential"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewlearning"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/user"
	"github.com/chakshu-dev/chakshu/graph/model"
	"github.com/chakshu-dev/chakshu/internal/audit"
	"github.com/chakshu-dev/chakshu/internal/connectors"
	"github.com/chakshu-dev/chakshu/internal/learnings"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/server/auth"
)

// maxTokensPerUser caps active API tokens per user.
const maxTokensPerUser = 50

// notifyAfterCommit wakes topic once the request's transaction commits.
func (h *api) notifyAfterCommit(ctx context.Context, topic string) {
	afterCommit(ctx, func() {
		if err := h.cfg.Bus.Notify(context.WithoutCancel(ctx), topic); err != nil {
			h.log.Warn("notify", "topic", topic, "err", err)
		}
	})
}

// requireRepoWrite applies the PR-comment rule (reviewrequest.Access: the allow-list,
// the repository's owner, or write access on GitHub as the installation sees
// it), and lets global admins and admins of the repository's installation in.
func (h *api) requireRepoWrite(ctx context.Context, v *auth.Viewer, repo *ent.Repository) error {
	if v.Admin {
		return nil
	}
	inst, err := repo.QueryInstallation().Only(allowAllCtx(ctx))
	if err != nil {
		return fmt.Errorf("repository installation: %w", err)
	}
	if v.AdminOf(inst.ID) {
		return nil
	}
	if h.cfg.GitHub == nil {
		return forbidden("GitHub is not configured, so write access to %s cannot be checked", repo.FullName)
	}
	ic, err := h.cfg.GitHub.Installation(inst.GithubID)
	if err != nil {
		return fmt.Errorf("installation client: %w", err)
	}
	ok, err := h.requests.Access.CanWrite(ctx, ic.REST, repo, v.User.Login, "")
	if err != nil {
		return fmt.Errorf("check permission on %s: %w", repo.FullName, err)
	}
	if !ok {
		return forbidden("you need write access to %s", repo.FullName)
	}
	return nil
}

func (h *api) cancelRun(ctx context.Context, id int) (*ent.Run, error) {
	v, err := viewer(ctx)
	if err != nil {
		return nil, err
	}
	c := h.clientFrom(ctx)
	r, err := c.Run.Query().Where(run.ID(id)).WithRepository().Only(ctx)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(r.Requester, v.User.Login) {
		if err := h.requireRepoWrite(ctx, v, r.Edges.Repository); err != nil {
			return nil, err
		}
	}
	err = runstate.Transition(ctx, c, id, runstate.Change{
		From: runstate.Active, To: run.StatusCancelled,
		Message: fmt.Sprintf("Cancelled by %s in the portal.", v.User.Login),
	})
	if errors.Is(err, runstate.ErrConflict) {
		return nil, invalid("the run has already finished")
	}
	if err != nil {
		return nil, err
	}
	if err := h.auditRun(ctx, c, v.User.Login, audit.RunCancel, r); err != nil {
		return nil, err
	}
	return c.Run.Get(ctx, id)
}

func (h *api) retryWebhookEvent(ctx context.Context, id int) (*ent.WebhookEvent, error) {
	v, err := viewer(ctx)
	if err != nil {
		return nil, err
	}
	if !v.AnyAdmin() {
		return nil, errAdminOnly
	}
	ev, err := h.client.WebhookEvent.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	a, err := h.access(ctx)
	if err != nil {
		return nil, err
	}
	if ok, err := h.adminOverObject(ctx, a, ev); err != nil {
		return nil, err
	} else if !ok {
		return nil, errAdminOnly
	}
	// The retry writes through the store, then wakes the event workers; this
	// mutation is in ownWrites, so no request transaction holds the write lock.
	err = h.db.WithTx(ctx, func(tx *ent.Tx) error { // the retry and its audit entry, together
		if err := intake.RetryWebhookEvent(ctx, tx.Client(), id); err != nil {
			return err
		}
		return audit.Record(ctx, tx.Client(), audit.Entry{Actor: v.User.Login, Action: audit.WebhookRetry,
			InstallationID: h.installationOfEvent(ctx, ev), Target: fmt.Sprintf("webhook %s %s (%s)", ev.Event, ev.DeliveryID, ev.Repository)})
	})
	if errors.Is(err, intake.ErrEventNotFailed) {
		return nil, invalid("only failed events can be retried (this one is %s)", ev.Status)
	} else if err != nil {
		return nil, err
	}
	if err := h.cfg.Bus.Notify(ctx, wakeup.TopicEvents); err != nil {
		h.log.Warn("notify", "topic", wakeup.TopicEvents, "err", err)
	}
	return h.client.WebhookEvent.Get(ctx, id)
}

func (h *api) syncReviewers(ctx context.Context, installationID *int) (bool, error) {
	if installationID == nil { // every installation: global admins only
		if err := requireAdmin(ctx); err != nil {
			return false, err
		}
	} else if err := requireAdminOf(ctx, *installationID); err != nil {
		return false, err
	}
	v, err := viewer(ctx)
	if err != nil {
		return false, err
	}
	c := h.clientFrom(ctx)
	u := c.Installation.Update().Where(installation.Suspended(false)).SetSyncRequestedAt(time.Now())
	entry := audit.Entry{Actor: v.User.Login, Action: audit.ReviewersSync, Target: "every installation"}
	if installationID != nil {
		in, err := c.Installation.Get(ctx, *installationID)
		if err != nil {
			return false, err
		}
		u.Where(installation.ID(*installationID))
		entry.InstallationID, entry.Target = in.ID, "installation "+in.AccountLogin
		entry.Detail = "reviewers repository " + reviewerconfig.ReviewersRepo(in)
	}
	n, err := u.Save(ctx)
	if err != nil {
		return false, fmt.Errorf("request reviewer sync: %w", err)
	}
	if installationID == nil {
		entry.Detail = fmt.Sprintf("%d installations", n)
	}
	if err := audit.Record(ctx, c, entry); err != nil { // in the request's transaction
		return false, err
	}
	h.notifyAfterCommit(ctx, wakeup.TopicSync)
	return true, nil
}

// setReviewersRepository points an installation at another reviewers
// repository: admins of that installation only, checked here.
func (h *api) setReviewersRepository(ctx context.Context, installationID int, repo string) (*ent.Installation, error) {
	if err := requireAdminOf(ctx, installationID); err != nil {
		return nil, err
	}
	v, err := viewer(ctx)
	if err != nil {
		return nil, err
	}
	in, err := reviewerconfig.SetReviewersRepoAs(ctx, h.clientFrom(ctx), v.User.Login, installationID, repo)
	if errors.Is(err, reviewerconfig.ErrBadReviewersRepo) {
		return nil, invalid("%s", err.Error())
	}
	if err != nil {
		return nil, err
	}
	h.notifyAfterCommit(ctx, wakeup.TopicSync)
	return in, nil
}

func (h *api) createLearning(ctx context.Context, in model.CreateLearningInput) (*ent.ReviewLearning, error) {
	v, err := viewer(ctx)
	if err != nil {
		return nil, err
	}
	c := h.clientFrom(ctx)
	var repo *ent.Repository
	var instID int
	if in.RepositoryID != nil {
		if repo, err = c.Repository.Get(ctx, *in.RepositoryID); err != nil {
			return nil, err
		}
		if instID, err = repo.QueryInstallation().OnlyID(allowAllCtx(ctx)); err != nil {
			return nil, fmt.Errorf("learning installation: %w", err)
		}
	}
	if in.InstallationID != nil {
		if _, err := c.Installation.Get(ctx, *in.InstallationID); err != nil {
			return nil, err
		}
		if instID != 0 && instID != *in.InstallationID {
			return nil, invalid("the repository is not in that installation")
		}
		instID = *in.InstallationID
	}
	n := learnings.New{Scope: learnings.Scope(in.Scope), InstallationID: instID, Directive: in.Directive,
		Source: learnings.SourcePortal, Author: v.User.Login}
	if in.Glob != nil {
		n.Glob = *in.Glob
	}
	switch in.Scope {
	case reviewlearning.ScopeRepo:
		if repo == nil {
			return nil, invalid("a repository learning needs repositoryID")
		}
		if err := h.requireRepoWrite(ctx, v, repo); err != nil {
			return nil, err
		}
		n.RepositoryID = repo.ID
	case reviewlearning.ScopeInstallation:
		if instID == 0 {
			return nil, invalid("an installation learning needs installationID or repositoryID")
		}
		if !v.AdminOf(instID) {
			return nil, forbidden("only admins of the installation can add learnings for all of it")
		}
		if repo != nil {
			n.RepositoryID = repo.ID
		}
	}
	// Authorised above; the duplicate check must see every row.
	l, created, err := learnings.Create(allowAllCtx(ctx), c, n)
	if errors.Is(err, learnings.ErrInvalid) {
		return nil, invalid("%s", err.Error())
	}
	if err != nil {
		return nil, err
	}
	if !created && !l.Enabled { // adding a disabled learning again turns it back on
		if err := h.auditLearning(ctx, c, v.User.Login, l.ID, true, "added again"); err != nil {
			return nil, err
		}
		return c.ReviewLearning.UpdateOne(l).SetEnabled(true).Save(ctx)
	}
	return l, nil
}

// learningToChange reads learning id for a change by the viewer: admins
// of its installation, or people with write access to its repository.
func (h *api) learningToChange(ctx context.Context, c *ent.Client, id int) (*auth.Viewer, *ent.ReviewLearning, error) {
	v, err := viewer(ctx)
	if err != nil {
		return nil, nil, err
	}
	l, err := c.ReviewLearning.Query().Where(reviewlearning.ID(id)).WithRepository().
		WithInstallation(func(q *ent.InstallationQuery) { q.Select(installation.FieldID) }).Only(ctx)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case l.Edges.Installation != nil && v.AdminOf(l.Edges.Installation.ID):
	case l.Edges.Repository == nil:
		return nil, nil, forbidden("only admins can change learnings for a whole installation")
	default:
		if err := h.requireRepoWrite(ctx, v, l.Edges.Repository); err != nil {
			return nil, nil, err
		}
	}
	return v, l, nil
}

// decideLearning accepts or discards a proposed learning, with the access
// setLearningEnabled needs; the audit log records it as turned on or off.
func (h *api) decideLearning(ctx context.Context, id int, accept bool) (*ent.ReviewLearning, error) {
	c := h.clientFrom(ctx)
	v, l, err := h.learningToChange(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if l.Status != reviewlearning.StatusProposed {
		return nil, invalid("learning %d is %s, not proposed", l.ID, l.Status)
	}
	detail := "discarded the proposal"
	if accept {
		detail = "accepted the proposal"
	}
	if err := h.auditLearning(ctx, c, v.User.Login, l.ID, accept, detail); err != nil {
		return nil, err
	}
	out, err := learnings.Decide(ctx, c, l.Edges.Installation.ID, l.ID, accept)
	if errors.Is(err, learnings.ErrInvalid) {
		return nil, invalid("%s", err.Error())
	}
	return out, err
}

func (h *api) setLearningEnabled(ctx context.Context, id int, enabled bool) (*ent.ReviewLearning, error) {
	c := h.clientFrom(ctx)
	v, l, err := h.learningToChange(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if l.Status != reviewlearning.StatusAccepted {
		return nil, invalid("learning %d is %s: accept or discard a proposed learning instead", l.ID, l.Status)
	}
	detail := "was enabled"
	if !l.Enabled {
		detail = "was disabled"
	}
	if err := h.auditLearning(ctx, c, v.User.Login, l.ID, enabled, detail); err != nil {
		return nil, err
	}
	return c.ReviewLearning.UpdateOne(l).SetEnabled(enabled).Save(ctx)
}

// auditLearning records learning id turned on or off in c's transaction:
// the target names it and where it applies, the detail quotes its directive.
func (h *api) auditLearning(ctx context.Context, c *ent.Client, actor string, id int, enabled bool, detail string) error {
	l, err := c.ReviewLearning.Query().Where(reviewlearning.ID(id)).WithRepository().WithInstallation().Only(allowAllCtx(ctx))
	if err != nil {
		return fmt.Errorf("learning %d: %w", id, err)
	}
	where := "installation " + l.Edges.Installation.AccountLogin
	if l.Edges.Repository != nil {
		where = l.Edges.Repository.FullName
	}
	if l.Glob != "" {
		where += " " + l.Glob
	}
	action := audit.LearningDisable
	if enabled {
		action = audit.LearningEnable
	}
	directive := l.Directive
	if r := []rune(directive); len(r) > 120 {
		directive = string(r[:120]) + "…"
	}
	return audit.Record(ctx, c, audit.Entry{Actor: actor, Action: action, InstallationID: l.Edges.Installation.ID,
		Target: fmt.Sprintf("learning %d (%s)", l.ID, where), Detail: fmt.Sprintf("%s: %q", detail, directive)})
}

func (h *api) credentials(ctx context.Context) (*connectors.Credentials, error) {
	s, err := connectors.NewSealer(h.cfg.Settings.SecretKey, h.cfg.Settings.SecretKeyPrevious...)
	if err != nil {
		return nil, err
	}
	return &connectors.Credentials{DB: h.clientFrom(ctx), Sealer: s}, nil
}

func (h *api) setConnectorCredential(ctx context.Context, in model.SetConnectorCredentialInput) (*ent.ConnectorCredential, error) {
	if err := requireAdminOf(ctx, in.InstallationID); err != nil {
		return nil, err
	}
	v, _ := viewer(ctx)
	if !connectors.ValidName(in.Connector) || !connectors.ValidName(in.Name) {
		return nil, invalid("connector and credential names are letters, digits, '.', '_' and '-' (at most 64)")
	}
	if in.Secret == "" || len(in.Secret) > connectors.MaxCredentialBytes {
		return nil, invalid("a credential is 1 to %d bytes", connectors.MaxCredentialBytes)
	}
	if _, err := connectors.NormalizeHosts(in.Connector, in.Hosts); err != nil {
		return nil, invalid("%s", strings.TrimPrefix(err.Error(), "connectors: "))
	}
	c := h.clientFrom(ctx)
	if _, err := c.Installation.Get(ctx, in.InstallationID); err != nil {
		return nil, err
	}
	creds, err := h.credentials(ctx)
	if err != nil {
		return nil, err
	}
	if err := creds.Set(ctx, in.InstallationID, in.Connector, in.Name, in.Secret, v.User.Login, in.Hosts); err != nil {
		return nil, err
	}
	if err := audit.Record(ctx, c, audit.Entry{Actor: v.User.Login, Action: audit.CredentialSet, InstallationID: in.InstallationID,
		Target: fmt.Sprintf("connector %s credential %s", in.Connector, in.Name), Detail: "hosts " + strings.Join(in.Hosts, ",")}); err != nil {
		return nil, err
	}
	return h.oneCredential(ctx, in.InstallationID, in.Connector, in.Name)
}

func (h *api) oneCredential(ctx context.Context, instID int, connector, name string) (*ent.ConnectorCredential, error) {
	all, err := h.connectorCredentials(ctx, &instID)
	if err != nil {
		return nil, err
	}
	for _, cc := range all {
		if cc.Connector == connector && cc.Name == name {
			return cc, nil
		}
	}
	return nil, errNotFound
}

func (h *api) deleteConnectorCredential(ctx context.Context, id int) (bool, error) {
	instID, err := h.db.ConnectorCredential.Query().Where(connectorcredential.ID(id)).QueryInstallation().OnlyID(allowAllCtx(ctx))
	if ent.IsNotFound(err) {
		if err := requireAdmin(ctx); err != nil { // no answer about other installations' ids
			return false, err
		}
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := requireAdminOf(ctx, instID); err != nil {
		return false, err
	}
	c := h.clientFrom(ctx)
	cc, err := c.ConnectorCredential.Get(ctx, id)
	if err != nil {
		return false, err
	}
	n, err := c.ConnectorCredential.Delete().Where(connectorcredential.ID(id)).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("delete credential %d: %w", id, err)
	}
	v, _ := viewer(ctx)
	if err := audit.Record(ctx, c, audit.Entry{Actor: v.User.Login, Action: audit.CredentialDelete, InstallationID: instID,
		Target: fmt.Sprintf("connector %s credential %s", cc.Connector, cc.Name)}); err != nil {
		return false, err
	}
	return n > 0, nil
}

// DefaultTokenLifetime is how long an API token lasts when no expiresAt is given.
const DefaultTokenLifetime = 90 * 24 * time.Hour

func (h *api) createAPIToken(ctx context.Context, in model.CreateAPITokenInput) (*model.CreateAPITokenPayload, error) {
	v, err := viewer(ctx)
	if err != nil {
		return nil, err
	}
	if v.Method != auth.MethodSession {
		return nil, forbidden("API tokens are created from a signed-in portal session")
	}
	name := strings.TrimSpace(in.Name)
	if name == "" || len(name) > 100 {
		return nil, invalid("a token name is 1 to 100 characters")
	}
	if apitoken.ScopeValidator(in.Scope) != nil {
		return nil, invalid("scope is read or write")
	}
	if in.ExpiresAt != nil && !in.ExpiresAt.After(time.Now()) {
		return nil, invalid("expiresAt must be in the future")
	}
	if in.ExpiresAt == nil { // tokens expire by default; the payload shows when
		exp := time.Now().Add(DefaultTokenLifetime).Truncate(time.Second)
		in.ExpiresAt = &exp
	}
	c := h.clientFrom(ctx)
	n, err := c.APIToken.Query().Where(apitoken.HasOwnerWith(user.ID(v.User.ID)), apitoken.RevokedAtIsNil()).Count(ctx)
	if err != nil {
		return nil, err
	}
	if n >= maxTokensPerUser {
		return nil, invalid("you have %d active tokens; revoke one first", n)
	}
	secret := auth.NewToken()
	t, err := c.APIToken.Create().SetName(name).SetScope(in.Scope).SetTokenHash(auth.HashToken(secret)).
		SetPrefix(auth.TokenDisplayPrefix(secret)).SetNillableExpiresAt(in.ExpiresAt).SetOwnerID(v.User.ID).Save(ctx)
	if err != nil {
		return nil, fmt.Errorf("create api token: %w", err)
	}
	if err := audit.Record(ctx, c, audit.Entry{Actor: v.User.Login, Action: audit.TokenCreate,
		Target: fmt.Sprintf("API token %q (%s…)", name, t.Prefix), Detail: fmt.Sprintf("scope %s, expires %s", in.Scope, in.ExpiresAt.UTC().Format(time.DateOnly))}); err != nil {
		return nil, err
	}
	return &model.CreateAPITokenPayload{Token: secret, APIToken: t}, nil
}

func (h *api) revokeAPIToken(ctx context.Context, id int) (*ent.APIToken, error) {
	v, err := viewer(ctx)
	if err != nil {
		return nil, err
	}
	c := h.clientFrom(ctx)
	// The filtered client finds only the viewer's own tokens (admins: any).
	t, err := c.APIToken.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if t.RevokedAt != nil {
		return t, nil
	}
	if err := audit.Record(ctx, c, audit.Entry{Actor: v.User.Login, Action: audit.TokenRevoke,
		Target: fmt.Sprintf("API token %q (%s…)", t.Name, t.Prefix)}); err != nil {
		return nil, err
	}
	return c.APIToken.UpdateOne(t).SetRevokedAt(time.Now()).Save(ctx)
}

// auditRun records action on run r (its repository loaded) in c's transaction.
func (h *api) auditRun(ctx context.Context, c *ent.Client, actor, action string, r *ent.Run) error {
	instID, err := r.Edges.Repository.QueryInstallation().OnlyID(allowAllCtx(ctx))
	if err != nil {
		return fmt.Errorf("run installation: %w", err)
	}
	return audit.Record(ctx, c, audit.Entry{Actor: actor, Action: action, InstallationID: instID,
		Target: fmt.Sprintf("%s#%d run %d", r.Edges.Repository.FullName, r.PrNumber, r.ID)})
}

// installationOfEvent is Chakshu's id of a webhook event's installation, 0
// when it names none Chakshu knows.
func (h *api) installationOfEvent(ctx context.Context, ev *ent.WebhookEvent) int {
	var id int
	var err error
	switch {
	case ev.InstallationID != 0:
		id, err = h.db.Installation.Query().Where(installation.GithubID(ev.InstallationID)).OnlyID(ctx)
	case ev.Repository != "":
		id, err = h.db.Repository.Query().Where(repository.FullName(ev.Repository)).QueryInstallation().OnlyID(ctx)
	default:
		return 0
	}
	if err != nil {
		return 0
	}
	return id
}
