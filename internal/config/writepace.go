package config

// Defaults of the per-installation pace of content-creating writes to
// GitHub: GitHub's documented secondary limits ("Rate limits for the REST
// API": in general no more than 80 content-generating requests a minute and
// 500 an hour). Enterprise Server sets its own (or none).
const (
	DefaultGitHubWritesPerMinute = 80
	DefaultGitHubWritesPerHour   = 500
)
