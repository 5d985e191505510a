package learnings

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/reviewlearning"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/textcut"
)

// Proposal is a finding people dismissed, as a learning proposed from it
// needs it (issue 41 item 6). A proposal is stored disabled, in status
// proposed: Select never returns it, and a release that predates the
// status column does not use it either, until a person accepts it.
type Proposal struct {
	InstallationID int
	RepositoryID   int
	// FindingID makes the proposal unique: one per finding, however often
	// its outcome is read.
	FindingID int
	PRNumber  int
	// CommentID is the finding's inline comment (its thread's root).
	CommentID int64
	Reviewer  string
	Path      string
	Category  string
	Title     string
	// Reason is the outcome's reason ("@bob replied that it is wrong").
	Reason string
	// Reply is the dismissing reply's text when there is one: untrusted
	// text from a pull request, quoted as data.
	Reply string
}

// Caps of what a proposal quotes, in bytes.
const (
	maxProposalTitle = 200
	maxProposalReply = 500
)

// ProposalDirective is the directive proposed for p: what was reported and
// that people dismissed it, the reply quoted on one line, credentials
// masked, each part cut to its cap.
func ProposalDirective(p Proposal) string {
	var b strings.Builder
	who := "A reviewer"
	if p.Reviewer != "" {
		who = "The " + clip(p.Reviewer, 100) + " reviewer"
	}
	what := ""
	if p.Category != "" {
		what = " " + clip(p.Category, 60)
	}
	fmt.Fprintf(&b, "%s reported the%s finding %q on %s, and it was dismissed as wrong", who, what,
		clip(p.Title, maxProposalTitle), clip(p.Path, 200))
	if p.Reason != "" {
		fmt.Fprintf(&b, " (%s)", clip(p.Reason, 200))
	}
	b.WriteString(". Do not report this again unless the code shows the problem for certain.")
	if p.Reply != "" {
		// Quoted data, not an instruction: one line, no quote marks of its own.
		fmt.Fprintf(&b, " The dismissing reply said (quoted from the pull request): %q", clip(p.Reply, maxProposalReply))
	}
	return b.String()
}

// clip masks credentials in s, puts it on one line and cuts it to max bytes
// on a rune boundary.
func clip(s string, max int) string {
	s = strings.Join(strings.Fields(redact.String(strings.ToValidUTF8(s, "�"))), " ")
	if len(s) <= max {
		return s
	}
	return textcut.Bytes(s, max-len("…")) + "…"
}

// ProposalGlob is the glob of a proposal: the finding's file, its glob
// metacharacters escaped; the file's directory when that is too long.
func ProposalGlob(p string) string {
	esc := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if strings.ContainsRune(`*?[]{}\`, r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	for _, g := range []string{esc(p), esc(path.Dir(p)) + "/**"} {
		if p != "" && reviewerconfig.ValidateGlob(g) == nil {
			return g
		}
	}
	return ""
}

// proposalKey is the dedupe key of a finding's proposal.
func proposalKey(findingID int) string {
	h := sha256.Sum256([]byte("proposal:finding:" + strconv.Itoa(findingID)))
	return hex.EncodeToString(h[:])
}

// Propose stores the learning proposed from a dismissed finding, once per
// finding: a second call for the same finding (a re-read, a race) returns
// the first proposal with created false, whatever became of it.
func Propose(ctx context.Context, client *ent.Client, p Proposal) (l *ent.ReviewLearning, created bool, err error) {
	if p.FindingID == 0 {
		return nil, false, fmt.Errorf("%w: a proposal needs its finding", ErrInvalid)
	}
	n, err := New{Scope: ScopeRepo, InstallationID: p.InstallationID, RepositoryID: p.RepositoryID,
		Glob: ProposalGlob(p.Path), Directive: ProposalDirective(p), Source: SourceOutcome,
		PRNumber: p.PRNumber, CommentID: p.CommentID}.normalise()
	if err != nil {
		return nil, false, err
	}
	key := proposalKey(p.FindingID)
	read := func() (*ent.ReviewLearning, error) {
		return client.ReviewLearning.Query().Where(reviewlearning.DedupeKey(key)).Only(ctx)
	}
	if l, err := read(); err == nil {
		return l, false, nil
	} else if !ent.IsNotFound(err) {
		return nil, false, fmt.Errorf("propose learning: %w", err)
	}
	l, err = client.ReviewLearning.Create().
		SetScope(reviewlearning.ScopeRepo).SetInstallationID(n.InstallationID).SetRepositoryID(n.RepositoryID).
		SetGlob(n.Glob).SetDirective(n.Directive).SetDedupeKey(key).SetSource(SourceOutcome).
		SetPrNumber(n.PRNumber).SetCommentID(n.CommentID).SetFindingID(p.FindingID).
		SetStatus(reviewlearning.StatusProposed).SetEnabled(false).Save(ctx)
	if err == nil {
		return l, true, nil
	}
	if !ent.IsConstraintError(err) {
		return nil, false, fmt.Errorf("propose learning: %w", err)
	}
	if l, err = read(); err != nil {
		return nil, false, fmt.Errorf("propose learning: read back: %w", err)
	}
	return l, false, nil
}

// Decide accepts (in force from the next review, enabled) or discards
// (kept, never used) a proposed learning of the installation. It reports
// ent.NotFoundError for an id outside the installation and ErrInvalid for a
// learning that is not proposed (decided already, or not a proposal).
func Decide(ctx context.Context, client *ent.Client, installationID, id int, accept bool) (*ent.ReviewLearning, error) {
	st := reviewlearning.StatusDiscarded
	if accept {
		st = reviewlearning.StatusAccepted
	}
	n, err := client.ReviewLearning.Update().
		Where(reviewlearning.ID(id), reviewlearning.StatusEQ(reviewlearning.StatusProposed),
			reviewlearning.HasInstallationWith(installation.ID(installationID))).
		SetStatus(st).SetEnabled(accept).Save(ctx)
	if err != nil {
		return nil, fmt.Errorf("decide learning %d: %w", id, err)
	}
	l, err := client.ReviewLearning.Query().
		Where(reviewlearning.ID(id), reviewlearning.HasInstallationWith(installation.ID(installationID))).Only(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: learning %d is %s, not proposed", ErrInvalid, id, l.Status)
	}
	return l, nil
}
