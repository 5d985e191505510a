package config

import (
	"fmt"
	"strconv"
)

// Defaults of the per-token rate limit (docs/api.md "Rate limits").
const (
	DefaultAPITokenRate  = 600 // requests per minute, per API token
	DefaultAPITokenBurst = 60  // requests a token may make at once
)

// loadTokenRate reads CHAKSHU_API_TOKEN_RATE (requests per minute per API
// token; 0 turns the limit off) and CHAKSHU_API_TOKEN_BURST (at least 1).
func (c *Config) loadTokenRate(get func(name, def string) string) error {
	for _, s := range []struct {
		name string
		dst  *int
		def  int
		min  int
	}{
		{"CHAKSHU_API_TOKEN_RATE", &c.APITokenRate, DefaultAPITokenRate, 0},
		{"CHAKSHU_API_TOKEN_BURST", &c.APITokenBurst, DefaultAPITokenBurst, 1},
	} {
		*s.dst = s.def
		if v := get(s.name, ""); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < s.min {
				return fmt.Errorf("%s: want a whole number ≥ %d, got %q", s.name, s.min, v)
			}
			*s.dst = n
		}
	}
	return nil
}
