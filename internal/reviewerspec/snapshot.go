package reviewerspec

import "github.com/chakshu-dev/chakshu/internal/runnerproto"

// Snapshot is one version of a reviewer's content: the values a parsed
// reviewer puts in its Reviewer row's content columns (claude_md,
// config_yaml, config, skills), and, stored as JSON with those keys, a
// shadow run's reviewer_snapshot and a backtest's old and new snapshots.
type Snapshot struct {
	ClaudeMD   string `json:"claude_md"`
	ConfigYAML string `json:"config_yaml"`
	// Config is the parsed reviewer.yaml (nil: none, the defaults).
	Config *Config             `json:"config"`
	Skills []runnerproto.Skill `json:"skills"`
}
