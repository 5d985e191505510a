package reviewerconfig

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// A shadow run's reviewer_snapshot holds the same JSON across releases: a
// snapshot schema 4 wrote as a map (its config without keys added since)
// reads, through ForRun, as the reviewer version it replays, config keys it
// lacks at their defaults and skills in the runner's form; a run without a
// snapshot reviews with the reviewer in force.
func TestStoredSnapshotAcrossReleases(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
		repo := db.Repository.Create().SetGithubID(2).SetOwner("acme").SetName("api").SetFullName("acme/api").
			SetInstallation(inst).SaveX(ctx)
		rv := db.Reviewer.Create().SetName("security").SetClaudeMd("in force").SetInstallation(inst).SaveX(ctx)
		rn := db.Run.Create().SetRepository(repo).SetReviewer(rv).SetTrigger(run.TriggerBacktest).SetShadow(true).
			SetPrNumber(1).SetHeadSha("head").SaveX(ctx)
		const schema4 = `{"claude_md":"# rules","config_yaml":"model: claude-opus-4-8\n",` +
			`"config":{"model":"claude-opus-4-8","max_cost_usd":3.5},` +
			`"skills":[{"content":"# sql\n","description":"SQL checks","files":{"ref.md":"x"},"name":"sql"}]}`
		if _, err := db.SQL.ExecContext(ctx, fmt.Sprintf(`UPDATE runs SET reviewer_snapshot = '%s' WHERE id = %d`, schema4, rn.ID)); err != nil {
			t.Fatal(err)
		}
		back := ForRun(db.Run.GetX(ctx, rn.ID), rv)
		cfg := Defaults()
		cfg.Model, cfg.MaxCostUSD = "claude-opus-4-8", 3.5
		if back.ClaudeMd != "# rules" || back.ConfigYaml != "model: claude-opus-4-8\n" || !cmp.Equal(FromEnt(back), cfg) {
			t.Errorf("ForRun of a row schema 4 wrote: %q %q %s", back.ClaudeMd, back.ConfigYaml, cmp.Diff(cfg, FromEnt(back)))
		}
		want := []Skill{{Name: "sql", Description: "SQL checks", Content: "# sql\n", Files: map[string]string{"ref.md": "x"}}}
		if d := cmp.Diff(want, Skills(back)); d != "" {
			t.Errorf("skills (-want +got):\n%s", d)
		}
		if got := ForRun(&ent.Run{}, rv); got != rv {
			t.Errorf("a run without a snapshot reviews with %+v", got)
		}
		if c := ConfigOfSnapshot(&Snapshot{}); !cmp.Equal(c, Defaults()) {
			t.Errorf("config of an empty snapshot: %+v", c)
		}
	})
}
