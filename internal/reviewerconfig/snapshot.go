package reviewerconfig

import (
	"encoding/json"
	"fmt"

	"github.com/chakshu-dev/chakshu/ent"
)

// Snapshot is a shadow run's reviewer (Run.reviewer_snapshot): the version
// of a reviewer a backtest replays, which need not be the one in force.
// Its fields have the shapes of the Reviewer row's claude_md, config_yaml,
// config (parsed reviewer.yaml) and skills.
type Snapshot struct {
	ClaudeMD   string           `json:"claude_md"`
	ConfigYAML string           `json:"config_yaml"`
	Config     *Config          `json:"config"`
	Skills     []map[string]any `json:"skills"`
}

// Map is the snapshot as stored on the run.
func (s Snapshot) Map() map[string]any {
	b, _ := json.Marshal(s)
	var m map[string]any
	json.Unmarshal(b, &m) //nolint:errcheck // a struct of JSON values always round-trips
	return m
}

// ForRun is the reviewer run r reviews with: rv (the reviewer in force)
// with its CLAUDE.md, reviewer.yaml and skills replaced by the run's
// snapshot when it has one (a shadow run), else rv itself. The reviewer row
// is not changed; the copy only carries the snapshot to the job, the
// dispatcher's model check and the publisher's rules, so the three cannot
// disagree on which version ran.
func ForRun(r *ent.Run, rv *ent.Reviewer) (*ent.Reviewer, error) {
	if len(r.ReviewerSnapshot) == 0 {
		return rv, nil
	}
	s, err := snapshotFrom(r.ReviewerSnapshot)
	if err != nil {
		return nil, fmt.Errorf("run %d: %w", r.ID, err)
	}
	cp := *rv
	cp.ClaudeMd, cp.ConfigYaml, cp.Config, cp.Skills = s.ClaudeMD, s.ConfigYAML, s.Config, s.Skills
	return &cp, nil
}

// snapshotFrom reads a stored reviewer_snapshot (Columns.Snapshot), its
// config over the defaults.
func snapshotFrom(m map[string]any) (Snapshot, error) {
	var s Snapshot
	b, err := json.Marshal(m)
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		return s, fmt.Errorf("reviewer snapshot: %w", err)
	}
	return s, nil
}
