package doctor

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

func TestDoctorModelsInUse(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		clock := func() time.Time { return now }
		inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
		for name, model := range map[string]string{"old": "claude-opus-4-5", "gone": "claude-sonnet-4-5", "fast": "claude-haiku-4-5"} {
			db.Reviewer.Create().SetName(name).SetInstallation(inst).SetConfig(&reviewerconfig.Config{Model: model}).SaveX(ctx)
		}
		// The upstream serves every catalogue model except Haiku 4.5.
		model := httptest.NewServer(scriptedmodel.New(scriptedmodel.Config{APIKey: "right", Now: clock,
			Catalog: without(t, models.Builtin(), "claude-haiku-4-5-20251001")}))
		defer model.Close()
		run := func(key string) map[string]Check {
			cs := Run(ctx, Config{Settings: Settings{ModelURL: model.URL, ModelAPIKey: key, PublicURL: model.URL}, DB: db, Now: clock})
			out := map[string]Check{}
			for _, c := range cs {
				if strings.HasPrefix(c.Name, "model ") {
					out[c.Name] = c
				}
			}
			return out
		}
		cs := run("right")
		for name, want := range map[string]struct {
			ok     bool
			detail string
		}{
			"model claude-sonnet-5-5": {true, "used by (default); active"},
			"model claude-opus-4-5":   {true, "warning: used by old; deprecated until 2027-01-22; use claude-opus-5-5"},
			"model claude-sonnet-4-5": {false, "retired"},
			"model claude-haiku-4-5":  {false, "does not serve claude-haiku-4-5 (404)"},
		} {
			c, ok := cs[name]
			if !ok || c.OK != want.ok || !strings.Contains(c.Detail, want.detail) {
				t.Errorf("%s: %+v, want ok=%v detail containing %q", name, c, want.ok, want.detail)
			}
		}
		// A bad key is told apart from an unknown model.
		c := run("wrong")["model claude-sonnet-5-5"]
		if c.OK || !strings.Contains(c.Detail, "refused the key") || !strings.Contains(c.Fix, "CHAKSHU_MODEL_API_KEY") {
			t.Errorf("bad key: %+v", c)
		}
	})
}

// without is cat less one model id.
func without(t *testing.T, cat *models.Catalog, id string) *models.Catalog {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"models":[`)
	first := true
	for _, e := range cat.Entries() {
		if e.ID == id {
			continue
		}
		if !first {
			b.WriteString(",")
		}
		first = false
		aliases, _ := json.Marshal(e.Aliases)
		b.WriteString(`{"id":"` + e.ID + `","aliases":` + string(aliases) + `,"provider":"anthropic","price":{},"lifecycle":{"status":"active"}}`)
	}
	b.WriteString("]}")
	c, err := models.Parse([]byte(b.String()), "upstream")
	if err != nil {
		t.Fatal(err)
	}
	return c
}
