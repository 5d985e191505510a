package gateway

import (
	"math"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/models"
)

// TestWorstCase: a request's reservation covers its max_tokens of output
// (at most the model's limit, which also stands in for a missing one) and
// its bytes as the dearest input, times the US-only price where it runs.
func TestWorstCase(t *testing.T) {
	e, err := models.Builtin().Lookup("claude-opus-4-6") // $25 output, $10 1-hour cache write, 128K output
	if err != nil {
		t.Fatal(err)
	}
	body := func(maxTokens string) []byte {
		return []byte(`{"model":"claude-opus-4-6",` + maxTokens + `"messages":[{"role":"user","content":"hi"}]}`)
	}
	input := func(b []byte) float64 { return float64(int64(len(b))/bytesPerToken+1) * 10 / 1e6 }
	for _, c := range []struct {
		name   string
		body   []byte
		geo    string
		output int64
		mult   float64
	}{
		{"max_tokens", body(`"max_tokens":1000,`), "", 1000, 1},
		{"no max_tokens", body(``), "", 128_000, 1},
		{"above the model's limit", body(`"max_tokens":500000,`), "", 128_000, 1},
		{"US-only", body(`"max_tokens":1000,`), "us", 1000, 1.1},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := (input(c.body) + float64(c.output)*25/1e6) * c.mult
			if got := worstCase(e, c.body, c.geo); math.Abs(got-want) > 1e-12 {
				t.Fatalf("worst case $%.6f, want $%.6f", got, want)
			}
		})
	}
}
