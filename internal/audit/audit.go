// Package audit records admin actions (issue 22 item 9): who retried,
// cancelled, requested a review, set or deleted a credential, created or
// revoked a token, changed a budget or an installation's reviewers
// repository, asked for a reviewer sync, or turned a learning on or off.
// Each entry is written with the client of the action's own transaction, so
// an action and its record commit or roll back together.
package audit

import (
	"context"
	"fmt"
	"os/user"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/redact"
)

// The actions recorded.
const (
	RunCancel        = "run.cancel"
	ReviewRequest    = "review.request"
	WebhookRetry     = "webhook.retry"
	CredentialSet    = "credential.set"
	CredentialDelete = "credential.delete"
	TokenCreate      = "token.create"
	TokenRevoke      = "token.revoke"
	BudgetSet        = "budget.set"
	// InstallationReviewersRepo: an installation pointed at another
	// reviewers repository (GraphQL setReviewersRepository or the CLI).
	InstallationReviewersRepo = "installation.reviewers_repo"
	// ReviewersSync: a sync of an installation's reviewers asked for now
	// (GraphQL syncReviewers, the portal's "sync now"); installation 0 for
	// every installation.
	ReviewersSync = "installation.reviewers_sync"
	// LearningEnable and LearningDisable: a review learning turned on or off
	// (GraphQL setLearningEnabled; adding a disabled learning again turns it on).
	LearningEnable  = "learning.enable"
	LearningDisable = "learning.disable"
	// RepositoryOnboarding: an onboarding pull request opened or found
	// open (GraphQL openOnboardingPullRequest).
	RepositoryOnboarding = "repository.onboarding"
)

// Actions lists every action recorded, in the order of the constants (the
// schema's comment on AuditEntry.action lists them too).
var Actions = []string{RunCancel, ReviewRequest, WebhookRetry, CredentialSet, CredentialDelete, TokenCreate, TokenRevoke,
	BudgetSet, InstallationReviewersRepo, ReviewersSync, LearningEnable, LearningDisable, RepositoryOnboarding}

// Entry is one action.
type Entry struct {
	// Actor is the GitHub login, or CLIActor() for a command on the server.
	Actor  string
	Action string
	// InstallationID is Chakshu's id of the installation acted on; 0 when none.
	InstallationID int
	// Target names what was acted on; Detail what changed. Neither carries a
	// secret (both are redacted all the same).
	Target, Detail string
}

// Record writes e with c: pass the action's transactional client.
func Record(ctx context.Context, c *ent.Client, e Entry) error {
	if e.Actor == "" || e.Action == "" {
		return fmt.Errorf("audit: actor and action are required")
	}
	err := c.AuditEntry.Create().SetActor(e.Actor).SetAction(e.Action).SetInstallationID(e.InstallationID).
		SetTarget(redact.String(e.Target)).SetDetail(redact.String(e.Detail)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("record %s in the audit log: %w", e.Action, err)
	}
	return nil
}

// CLIActor names the operating-system user running a chakshu command.
func CLIActor() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return "cli:" + u.Username
	}
	return "cli"
}
