package reviewerconfig

import (
	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/reviewerspec"
)

// Snapshot is one version of a reviewer's content: what a parsed reviewer
// puts in its Reviewer row's content columns, and a shadow run's
// reviewer_snapshot (the version a backtest replays, which need not be the
// one in force).
type Snapshot = reviewerspec.Snapshot

// SnapshotOf is the snapshot of the version of r in force (its synced columns).
func SnapshotOf(r *ent.Reviewer) *Snapshot {
	return &Snapshot{ClaudeMD: r.ClaudeMd, ConfigYAML: r.ConfigYaml, Config: r.Config, Skills: r.Skills}
}

// ForRun is the reviewer run r reviews with: rv (the reviewer in force)
// with its CLAUDE.md, reviewer.yaml and skills replaced by the run's
// snapshot when it has one (a shadow run), else rv itself. The reviewer row
// is not changed; the copy only carries the snapshot to the job, the
// dispatcher's model check and the publisher's rules, so the three cannot
// disagree on which version ran.
func ForRun(r *ent.Run, rv *ent.Reviewer) *ent.Reviewer {
	s := r.ReviewerSnapshot
	if s == nil {
		return rv
	}
	cp := *rv
	cp.ClaudeMd, cp.ConfigYaml, cp.Config, cp.Skills = s.ClaudeMD, s.ConfigYAML, s.Config, s.Skills
	return &cp
}

// ConfigOfSnapshot is the reviewer.yaml s carries, over the defaults as a
// stored reviewer's (FromEnt).
func ConfigOfSnapshot(s *Snapshot) Config {
	if s == nil || s.Config == nil {
		return Defaults()
	}
	return *s.Config
}
