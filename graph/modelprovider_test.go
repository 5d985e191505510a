package graph

import (
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// Reviewer.modelStatus.provider is where the reviewer's runs go: with
// CHAKSHU_MODEL_PROVIDER=bedrock a model the catalogue routes there says
// bedrock; one without a Bedrock id says why its runs would be refused.
func TestModelStatusProvider(t *testing.T) {
	cat, err := models.Builtin().WithRoutes("bedrock", map[string]models.Route{"claude-sonnet-5-5": {Model: "global.anthropic.claude-sonnet-5-5-v1:0"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		platform, model, provider string
		warn                      bool
	}{
		{"", "claude-sonnet-5-5", "anthropic", false},
		{"bedrock", "claude-sonnet-5-5", "bedrock", false},
		{"bedrock", "claude-opus-5-5", "anthropic", true},
	} {
		h := &api{cfg: Config{Models: models.Static(cat), Settings: Settings{Platform: tc.platform}}}
		got := h.modelStatus(&ent.Reviewer{Config: &reviewerconfig.Config{Model: tc.model}})
		if got.Provider != tc.provider || (got.Warning != nil) != tc.warn {
			t.Errorf("%s via %q: provider %q warning %v", tc.model, tc.platform, got.Provider, got.Warning)
		}
		if tc.warn && !strings.Contains(*got.Warning, "no bedrock id") {
			t.Errorf("warning %q does not say why", *got.Warning)
		}
	}
}
