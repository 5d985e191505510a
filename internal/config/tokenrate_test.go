package config

import (
	"testing"
)

func TestAPITokenRate(t *testing.T) {
	c, err := Load(lookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.APITokenRate != DefaultAPITokenRate || c.APITokenBurst != DefaultAPITokenBurst {
		t.Errorf("defaults %d/%d, want %d/%d", c.APITokenRate, c.APITokenBurst, DefaultAPITokenRate, DefaultAPITokenBurst)
	}
	cases := []struct {
		name, rate, burst   string
		wantRate, wantBurst int
		err                 string
	}{
		{"set", "120", "10", 120, 10, ""},
		{"rate 0 turns it off", "0", "", 0, DefaultAPITokenBurst, ""},
		{"burst 1 is the least", "", "1", DefaultAPITokenRate, 1, ""},
		{"burst 0", "", "0", 0, 0, "CHAKSHU_API_TOKEN_BURST"},
		{"negative rate", "-1", "", 0, 0, "CHAKSHU_API_TOKEN_RATE"},
		{"not a number", "10/s", "", 0, 0, "CHAKSHU_API_TOKEN_RATE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := loadCase(t, map[string]string{"CHAKSHU_API_TOKEN_RATE": tc.rate, "CHAKSHU_API_TOKEN_BURST": tc.burst}, tc.err)
			if c == nil {
				return
			}
			if c.APITokenRate != tc.wantRate || c.APITokenBurst != tc.wantBurst {
				t.Errorf("got %d/%d, want %d/%d", c.APITokenRate, c.APITokenBurst, tc.wantRate, tc.wantBurst)
			}
		})
	}
}
