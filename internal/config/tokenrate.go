package config

// Defaults of the per-token rate limit (docs/api.md "Rate limits").
const (
	DefaultAPITokenRate  = 600 // requests per minute, per API token
	DefaultAPITokenBurst = 60  // requests a token may make at once
)

// loadTokenRate reads CHAKSHU_API_TOKEN_RATE (requests per minute per API
// token; 0 turns the limit off) and CHAKSHU_API_TOKEN_BURST (at least 1).
func (c *Config) loadTokenRate(get func(name, def string) string) error {
	return loadWholeNumbers(get, []wholeNumber{
		{"CHAKSHU_API_TOKEN_RATE", &c.APITokenRate, DefaultAPITokenRate, 0},
		{"CHAKSHU_API_TOKEN_BURST", &c.APITokenBurst, DefaultAPITokenBurst, 1},
	})
}
