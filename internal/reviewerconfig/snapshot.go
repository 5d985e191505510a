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
	Config     map[string]any   `json:"config"`
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
	b, err := json.Marshal(r.ReviewerSnapshot)
	if err != nil {
		return nil, fmt.Errorf("run %d: reviewer snapshot: %w", r.ID, err)
	}
	var s Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("run %d: reviewer snapshot: %w", r.ID, err)
	}
	cp := *rv
	cp.ClaudeMd, cp.ConfigYaml, cp.Config, cp.Skills = s.ClaudeMD, s.ConfigYAML, s.Config, s.Skills
	return &cp, nil
}
