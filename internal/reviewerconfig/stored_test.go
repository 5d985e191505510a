package reviewerconfig

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// The reviewer row's config column holds the same JSON across releases:
// a row schema 4 wrote (a JSON map, here one stored before samples, agree
// and verify_min_confidence existed) reads as the config in force, keys it
// lacks at their defaults; and what this release writes is the object
// schema 4 reads back into its map, key for key.
func TestStoredConfigAcrossReleases(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
		old := db.Reviewer.Create().SetName("old").SetInstallation(inst).SaveX(ctx)
		const schema4 = `{"auto":{"drafts":false,"events":["opened"],"paths":null,"repos":null},` +
			`"backtest":{"max_cost_usd":5,"prs":10},"connectors":null,"description":"Security",` +
			`"fail_check_on":"major","http":null,"max_cost_usd":1.5,"max_findings":7,"max_turns":30,` +
			`"min_severity":"minor","model":"claude-opus-4-8","request_as":"","verify":true}`
		if _, err := db.SQL.ExecContext(ctx, fmt.Sprintf(`UPDATE reviewers SET config = '%s' WHERE id = %d`, schema4, old.ID)); err != nil {
			t.Fatal(err)
		}
		want := Defaults()
		want.Description, want.Model, want.MaxCostUSD, want.MaxTurns = "Security", "claude-opus-4-8", 1.5, 30
		want.MinSeverity, want.MaxFindings, want.FailCheckOn = findings.Minor, 7, "major"
		want.Auto.Events = []string{"opened"}
		if d := cmp.Diff(want, FromEnt(db.Reviewer.GetX(ctx, old.ID))); d != "" {
			t.Errorf("a row schema 4 wrote (-want +got):\n%s", d)
		}

		cfg := Defaults()
		cfg.Model, cfg.Samples, cfg.Agree, cfg.Lenses = "claude-haiku-5-5", 3, 2, []string{"races"}
		cfg.HTTP = []HTTPEndpoint{{Name: "jira", URL: "https://jira.example.com/{key}", Params: map[string]string{"key": "^[A-Z]+-[0-9]+$"}}}
		db.Reviewer.Create().SetName("new").SetInstallation(inst).SetConfig(&cfg).SaveX(ctx)
		var stored string
		if err := db.SQL.QueryRowContext(ctx, `SELECT config FROM reviewers WHERE name = 'new'`).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		var read, was map[string]any // schema 4's reading, and the map it stored for cfg
		b, _ := json.Marshal(cfg)
		if err := json.Unmarshal([]byte(stored), &read); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &was); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(was, read); d != "" {
			t.Errorf("stored config as schema 4 reads it (-schema 4's own +this release's):\n%s", d)
		}
		if got := FromEnt(db.Reviewer.Query().Where(reviewer.Name("new")).OnlyX(ctx)); !cmp.Equal(got, cfg) {
			t.Errorf("read back: %s", cmp.Diff(cfg, got))
		}
	})
}
