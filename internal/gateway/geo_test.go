package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/http/httptest"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestInferenceGeoMetered: US-only inference costs 1.1x on Claude Opus 4.6
// and later (docs "Data residency"; pricing page), whether the request asks
// for it or the workspace's default says so; where inference ran is read
// from usage.inference_geo, which the scripted model reports as the API
// does. A model before Opus 4.6 refuses inference_geo with 400, metered at
// nothing.
func TestInferenceGeoMetered(t *testing.T) {
	cat := models.Builtin()
	for _, c := range []struct {
		name, model, reqGeo, workspace string
		operator                       string // CHAKSHU_MODEL_INFERENCE_GEO
		status                         int
		mult                           float64
	}{
		{"global by default", "claude-opus-4-6", "", "", "", 200, 1},
		{"us asked", "claude-opus-4-6", "us", "", "", 200, 1.1},
		{"us asked, newest model", "claude-sonnet-5-5", "us", "", "", 200, 1.1},
		{"global asked in a us workspace", "claude-opus-4-6", "global", "us", "us", 200, 1},
		{"workspace default us, stated", "claude-opus-4-6", "", "us", "us", 200, 1.1},
		{"workspace default us, not stated: the answer says", "claude-opus-4-6", "", "us", "", 200, 1.1},
		{"older model refuses the parameter", "claude-sonnet-4-5-20250929", "us", "", "", 400, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				ctx := context.Background()
				model := httptest.NewServer(scriptedmodel.New(scriptedmodel.Config{InferenceGeo: c.workspace}))
				defer model.Close()
				g, err := New(Config{DB: db, Log: slog.New(slog.DiscardHandler), UpstreamURL: model.URL, InferenceGeo: c.operator})
				if err != nil {
					t.Fatal(err)
				}
				rn := fixture(t, db, 100)
				db.Run.UpdateOne(rn).SetModel(c.model).ExecX(ctx)
				rn.Model = c.model
				geo := ""
				if c.reqGeo != "" {
					geo = fmt.Sprintf(`,"inference_geo":%q`, c.reqGeo)
				}
				w := post(t, g, rn, fmt.Sprintf(`{"model":%q,"max_tokens":100%s,"messages":[{"role":"user","content":"hi"}]}`, c.model, geo), false)
				if w.Code != c.status {
					t.Fatalf("status %d %s, want %d", w.Code, w.Body, c.status)
				}
				got := db.Run.Query().Where(run.ID(rn.ID)).OnlyX(ctx)
				entry, err := cat.Lookup(c.model)
				if err != nil {
					t.Fatal(err)
				}
				base := entry.Cost(models.Usage{InputTokens: got.InputTokens, OutputTokens: got.OutputTokens,
					CacheReadInputTokens: got.CacheReadTokens, CacheCreationInputTokens: got.CacheWriteTokens})
				if want := base * c.mult; math.Abs(got.CostUsd-want) > 1e-12 {
					t.Fatalf("metered $%.8f, want $%.8f (%gx of $%.8f)", got.CostUsd, want, c.mult, base)
				}
			})
		})
	}
}
