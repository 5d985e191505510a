package config

import (
	"strings"
	"testing"
	"time"
)

func TestSandboxModelLatency(t *testing.T) {
	cases := []struct {
		v    string
		want time.Duration
		err  bool
	}{
		{"", 0, false},
		{"0s", 0, false},
		{"300ms", 300 * time.Millisecond, false},
		{"1m", time.Minute, false},
		{"1m1s", 0, true},
		{"-1s", 0, true},
		{"slow", 0, true},
	}
	for _, c := range cases {
		t.Run(c.v, func(t *testing.T) {
			got, err := Load(lookup(map[string]string{"CHAKSHU_SANDBOX_MODEL_LATENCY": c.v}))
			if c.err {
				if err == nil || !strings.HasPrefix(err.Error(), "CHAKSHU_SANDBOX_MODEL_LATENCY:") {
					t.Fatalf("got %v, want an error naming the setting", err)
				}
				return
			}
			if err != nil || got.SandboxModelLatency != c.want {
				t.Fatalf("got %v %v, want %v", got, err, c.want)
			}
		})
	}
}
