// Package learnings stores review learnings (DESIGN §7): directives for future
// reviews, scoped to a repository or a whole installation and optionally to a
// file glob, and selects the ones that apply to a pull request's files.
package learnings

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewlearning"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

// Scope of a learning.
type Scope string

// Scopes.
const (
	// ScopeRepo applies to one repository.
	ScopeRepo Scope = "repo"
	// ScopeInstallation applies to every repository of the installation.
	ScopeInstallation Scope = "installation"
)

// Sources of a learning.
const (
	SourceReply  = "reply"
	SourcePortal = "portal"
	// SourceOutcome is a learning proposed from a finding people dismissed
	// (Propose): it is never used until a person accepts it.
	SourceOutcome = "outcome"
)

// MaxDirective caps a directive, in bytes.
const MaxDirective = 2000

// ErrInvalid wraps every validation failure of New; its message is safe to show.
var ErrInvalid = errors.New("invalid learning")

// New is a learning to create.
type New struct {
	Scope          Scope
	InstallationID int
	// RepositoryID is required for ScopeRepo; for ScopeInstallation it is
	// optional provenance (where it was said).
	RepositoryID int
	// Glob limits the learning to matching files; empty matches every file.
	Glob      string
	Directive string
	// Provenance.
	Source    string
	PRNumber  int
	CommentID int64
	Author    string
}

// normalise checks n and returns it cleaned up (directive whitespace collapsed).
func (n New) normalise() (New, error) {
	bad := func(format string, a ...any) (New, error) {
		return n, fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
	}
	if n.Scope == "" {
		n.Scope = ScopeRepo
	}
	if n.Source == "" {
		n.Source = SourcePortal
	}
	n.Glob = strings.TrimSpace(n.Glob)
	n.Directive = strings.Join(strings.Fields(n.Directive), " ")
	switch {
	case n.Scope != ScopeRepo && n.Scope != ScopeInstallation:
		return bad("scope: want repo or installation")
	case n.InstallationID == 0:
		return bad("installation is required")
	case n.Scope == ScopeRepo && n.RepositoryID == 0:
		return bad("a repo learning needs its repository")
	case n.Source != SourceReply && n.Source != SourcePortal && n.Source != SourceOutcome:
		return bad("source: want reply, portal or outcome")
	case n.Directive == "":
		return bad("directive is empty")
	case len(n.Directive) > MaxDirective:
		return bad("directive is %d bytes, over the limit of %d", len(n.Directive), MaxDirective)
	case !utf8.ValidString(n.Directive) || !utf8.ValidString(n.Author):
		return bad("directive is not valid UTF-8")
	case len(n.Author) > 100:
		return bad("author too long")
	}
	if n.Glob != "" {
		if err := reviewerconfig.ValidateGlob(n.Glob); err != nil {
			return bad("glob: %v", err)
		}
	}
	return n, nil
}

// DedupeKey is the hash that makes a learning unique per scope, installation,
// repository (repo scope), glob and directive.
func (n New) DedupeKey() string {
	repo := 0
	if n.Scope == ScopeRepo {
		repo = n.RepositoryID
	}
	h := sha256.New()
	for _, s := range []string{string(n.Scope), strconv.Itoa(n.InstallationID), strconv.Itoa(repo), n.Glob,
		strings.ToLower(n.Directive)} {
		fmt.Fprintf(h, "%d:%s\n", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Create stores a learning. A duplicate (same scope, installation,
// repository, glob and directive) returns the existing one unchanged, with
// created false. Validation failures wrap ErrInvalid.
func Create(ctx context.Context, client *ent.Client, n New) (l *ent.ReviewLearning, created bool, err error) {
	n, err = n.normalise()
	if err != nil {
		return nil, false, err
	}
	key := n.DedupeKey()
	if l, err := client.ReviewLearning.Query().Where(reviewlearning.DedupeKey(key)).Only(ctx); err == nil {
		return l, false, nil
	} else if !ent.IsNotFound(err) {
		return nil, false, fmt.Errorf("create learning: %w", err)
	}
	c := client.ReviewLearning.Create().
		SetScope(reviewlearning.Scope(n.Scope)).
		SetInstallationID(n.InstallationID).
		SetGlob(n.Glob).
		SetDirective(n.Directive).
		SetDedupeKey(key).
		SetSource(n.Source).
		SetPrNumber(n.PRNumber).
		SetCommentID(n.CommentID).
		SetAuthor(n.Author)
	if n.RepositoryID != 0 {
		c.SetRepositoryID(n.RepositoryID)
	}
	// Two callers may race on the same directive: the loser reads the winner's row.
	l, err = c.Save(ctx)
	if err == nil {
		return l, true, nil
	}
	if !ent.IsConstraintError(err) {
		return nil, false, fmt.Errorf("create learning: %w", err)
	}
	l, err = client.ReviewLearning.Query().Where(reviewlearning.DedupeKey(key)).Only(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("create learning: read back: %w", err)
	}
	return l, false, nil
}

// Caps bound what Select returns.
type Caps struct {
	// MaxCount caps the learnings (default 20).
	MaxCount int
	// MaxBytes caps the directives and globs together (default 8 KiB).
	MaxBytes int
}

// DefaultCaps are the caps when zero values are given.
var DefaultCaps = Caps{MaxCount: 20, MaxBytes: 8 << 10}

// Selection is the learnings for one job.
type Selection struct {
	Learnings []runnerproto.Learning
	// Omitted counts the matching learnings left out by the caps.
	Omitted int
}

// Marker is the truncation marker to put after the learnings in the prompt,
// or "" when nothing was left out.
func (s Selection) Marker() string {
	if s.Omitted == 0 {
		return ""
	}
	if s.Omitted == 1 {
		return "[1 more matching learning was left out to fit the limit]"
	}
	return fmt.Sprintf("[%d more matching learnings were left out to fit the limit]", s.Omitted)
}

// maxCandidates bounds the rows Select reads.
const maxCandidates = 2000

// Select returns the enabled learnings of the installation that apply to the
// repository (its own and installation-wide) and whose glob matches one of
// changedFiles (an empty glob matches always), most recently used first (a
// never-used learning counts as used when created), capped in count and bytes.
func Select(ctx context.Context, client *ent.Client, installationID, repoID int, changedFiles []string, caps Caps) (Selection, error) {
	if caps.MaxCount <= 0 {
		caps.MaxCount = DefaultCaps.MaxCount
	}
	if caps.MaxBytes <= 0 {
		caps.MaxBytes = DefaultCaps.MaxBytes
	}
	ls, err := client.ReviewLearning.Query().
		Where(reviewlearning.Enabled(true), reviewlearning.StatusEQ(reviewlearning.StatusAccepted),
			reviewlearning.HasInstallationWith(installation.ID(installationID)),
			reviewlearning.Or(
				reviewlearning.ScopeEQ(reviewlearning.ScopeInstallation),
				reviewlearning.And(reviewlearning.ScopeEQ(reviewlearning.ScopeRepo), reviewlearning.HasRepositoryWith(repository.ID(repoID))),
			)).
		Order(ent.Desc(reviewlearning.FieldID)).Limit(maxCandidates).All(ctx)
	if err != nil {
		return Selection{}, fmt.Errorf("select learnings: %w", err)
	}
	var match []*ent.ReviewLearning
	for _, l := range ls {
		if l.Glob == "" || anyMatch(l.Glob, changedFiles) {
			match = append(match, l)
		}
	}
	used := func(l *ent.ReviewLearning) time.Time {
		if l.LastUsedAt != nil {
			return *l.LastUsedAt
		}
		return l.CreatedAt
	}
	sort.SliceStable(match, func(i, j int) bool {
		ti, tj := used(match[i]), used(match[j])
		if !ti.Equal(tj) {
			return ti.After(tj)
		}
		return match[i].ID > match[j].ID
	})
	var sel Selection
	size := 0
	for i, l := range match {
		n := len(l.Directive) + len(l.Glob)
		if len(sel.Learnings) >= caps.MaxCount || size+n > caps.MaxBytes {
			sel.Omitted = len(match) - i
			break
		}
		size += n
		sel.Learnings = append(sel.Learnings, runnerproto.Learning{ID: l.ID, Glob: l.Glob, Directive: l.Directive})
	}
	return sel, nil
}

func anyMatch(glob string, files []string) bool {
	for _, f := range files {
		if reviewerconfig.MatchGlob(glob, f, true) {
			return true
		}
	}
	return false
}
