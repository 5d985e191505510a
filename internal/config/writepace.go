package config

// Defaults of the per-installation pace of content-creating writes to
// GitHub: GitHub's documented secondary limits ("Rate limits for the REST
// API": in general no more than 80 content-generating requests a minute and
// 500 an hour). Enterprise Server sets its own (or none).
const (
	DefaultGitHubWritesPerMinute = 80
	DefaultGitHubWritesPerHour   = 500
)

// loadWritePace reads CHAKSHU_GITHUB_WRITES_PER_MINUTE and
// CHAKSHU_GITHUB_WRITES_PER_HOUR (0 turns that window off).
func (c *Config) loadWritePace(get func(name, def string) string) error {
	return loadWholeNumbers(get, []wholeNumber{
		{"CHAKSHU_GITHUB_WRITES_PER_MINUTE", &c.GitHubWritesPerMinute, DefaultGitHubWritesPerMinute, 0},
		{"CHAKSHU_GITHUB_WRITES_PER_HOUR", &c.GitHubWritesPerHour, DefaultGitHubWritesPerHour, 0},
	})
}
