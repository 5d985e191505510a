package config

// Defaults of the per-token rate limit (docs/api.md "Rate limits").
const (
	DefaultAPITokenRate  = 600 // requests per minute, per API token
	DefaultAPITokenBurst = 60  // requests a token may make at once
)
