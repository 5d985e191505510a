package config

import (
	"strings"
	"testing"
	"time"
)

// CHAKSHU_MODEL_RETRY_HORIZON at its limits: 1s and 20m are accepted, one
// step past either is refused with the setting's name.
func TestModelRetryHorizon(t *testing.T) {
	cases := []struct {
		v    string
		want time.Duration
		err  bool
	}{
		{"", DefaultModelRetryHorizon, false},
		{"1s", time.Second, false},
		{"999ms", 0, true},
		{"5m", 5 * time.Minute, false},
		{"20m", 20 * time.Minute, false},
		{"20m1s", 0, true},
		{"0s", 0, true},
		{"-1m", 0, true},
		{"soon", 0, true},
	}
	for _, c := range cases {
		t.Run(c.v, func(t *testing.T) {
			got, err := Load(lookup(map[string]string{"CHAKSHU_MODEL_RETRY_HORIZON": c.v}))
			if c.err {
				if err == nil || !strings.HasPrefix(err.Error(), "CHAKSHU_MODEL_RETRY_HORIZON:") {
					t.Fatalf("got %v, want an error naming the setting", err)
				}
				return
			}
			if err != nil || got.ModelRetryHorizon != c.want {
				t.Fatalf("got %v %v, want %v", got.ModelRetryHorizon, err, c.want)
			}
		})
	}
}
