package publish

import (
	"context"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/runstate"
)

// ResolveBlocked is what the Status page and a run's timeline say when GitHub
// refuses to resolve a thread. GitHub gates resolveReviewThread on Contents:
// write for App tokens and answers FORBIDDEN "Resource not accessible by
// integration" otherwise (github/gh-aw#35726); an installation keeps the
// permissions it had until an owner accepts the App's new ones.
const ResolveBlocked = "GitHub refused to resolve review threads: resolving needs the Contents: write permission, " +
	"which this installation has not accepted yet. An owner of the account accepts the App's new permissions " +
	"(Settings → GitHub Apps → Chakshu → Configure → review the permission request); until then outdated threads stay open."

// errResolveForbidden is GitHub's FORBIDDEN answer to resolveReviewThread.
type errResolveForbidden struct{ err error }

func (e errResolveForbidden) Error() string { return e.err.Error() }
func (e errResolveForbidden) Unwrap() error { return e.err }

// resolveForbidden reports whether err is GitHub refusing the token the
// mutation (githubv4 surfaces GraphQL errors by their message).
func resolveForbidden(err error) bool {
	return err != nil && strings.Contains(err.Error(), "Resource not accessible by integration")
}

// resolve resolves one thread through the write port (whose token for it
// holds Contents: write); GitHub's FORBIDDEN comes back as
// errResolveForbidden.
func (p *Publisher) resolve(ctx context.Context, repo *ent.Repository, threadID string) error {
	if err := p.cfg.Write.ResolveThread(ctx, ghwrite.RepoOf(repo), threadID); err != nil {
		if resolveForbidden(err) {
			return errResolveForbidden{err}
		}
		return err
	}
	return nil
}

// resolveRefused records, once per run, that GitHub refused to resolve: on
// the installation (the Status page lists it until a resolve succeeds) and in
// the run's timeline.
func (p *Publisher) resolveRefused(ctx context.Context, r *ent.Run, err error) {
	log := logging.From(ctx)
	inst := r.Edges.Repository.Edges.Installation
	log.Warn("resolve refused: the installation has not granted contents:write", "err", err)
	if uerr := p.cfg.DB.Installation.Update().Where(installation.ID(inst.ID), installation.ResolveBlocked("")).
		SetResolveBlocked(ResolveBlocked).Exec(ctx); uerr != nil {
		log.Warn("record resolve refusal on the installation", "err", uerr)
	}
	if nerr := runstate.Note(ctx, p.cfg.DB.Client, r.ID, "Could not resolve outdated threads: the installation has not granted Contents: write.", ResolveBlocked); nerr != nil {
		log.Warn("record resolve refusal in the timeline", "err", nerr)
	}
}

// resolveWorked clears the installation's refusal once a resolve succeeds.
func (p *Publisher) resolveWorked(ctx context.Context, r *ent.Run) {
	log := logging.From(ctx)
	inst := r.Edges.Repository.Edges.Installation
	if err := p.cfg.DB.Installation.Update().Where(installation.ID(inst.ID), installation.ResolveBlockedNEQ("")).
		SetResolveBlocked("").Exec(ctx); err != nil {
		log.Warn("clear resolve refusal", "err", err)
	}
}
