package reviewerconfig

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent"
)

// A snapshot of the reviewer in force gives back, through the snapshot
// readers, what the reviewer's own readers give: the same config and the
// same skills in the runner's form.
func TestSnapshotRoundTrip(t *testing.T) {
	cfg := Defaults()
	cfg.Model, cfg.MaxCostUSD, cfg.Backtest.PRs = "claude-opus-4-8", 3.5, 4
	skills := []Skill{{Name: "sql", Description: "SQL checks", Content: "---\nname: sql\n---\n", Files: map[string]string{"ref.md": "x"}}}
	r := &ent.Reviewer{Name: "security", ClaudeMd: "# rules", ConfigYaml: "model: claude-opus-4-8\n", Config: &cfg, Skills: skillsToJSON(skills)}
	snap := SnapshotOf(r)
	if snap[SnapshotClaudeMD] != "# rules" || snap[SnapshotConfigYAML] != "model: claude-opus-4-8\n" {
		t.Fatalf("snapshot texts: %v", snap)
	}
	got, err := ConfigOfSnapshot(snap)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(cfg, got); d != "" {
		t.Fatalf("config (-want +got):\n%s", d)
	}
	want, err := SkillsFromEnt(r)
	if err != nil {
		t.Fatal(err)
	}
	gotSkills, err := SkillsOfSnapshot(snap)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 1 || want[0].Name != "sql" {
		t.Fatalf("skills in force: %+v", want)
	}
	if d := cmp.Diff(want, gotSkills); d != "" {
		t.Fatalf("skills (-want +got):\n%s", d)
	}
	// A reviewer row made from the snapshot reads as the original.
	back, err := ForRun(&ent.Run{ReviewerSnapshot: snap}, &ent.Reviewer{Name: "security", ClaudeMd: "in force"})
	if err != nil || back.ClaudeMd != r.ClaudeMd || back.ConfigYaml != r.ConfigYaml || !cmp.Equal(back.Config, r.Config) || !cmp.Equal(back.Skills, r.Skills) {
		t.Fatalf("ForRun: %+v %v", back, err)
	}
	if c := FromEnt(back); !cmp.Equal(c, cfg) {
		t.Fatalf("config of ForRun: %+v", c)
	}
	// A snapshot without skills or config gives none and the defaults.
	empty := Columns{}.Snapshot()
	if s, err := SkillsOfSnapshot(empty); err != nil || s != nil {
		t.Fatalf("skills of an empty snapshot: %v %v", s, err)
	}
	if c, err := ConfigOfSnapshot(empty); err != nil || !cmp.Equal(c, Defaults()) {
		t.Fatalf("config of an empty snapshot: %+v %v", c, err)
	}
}
