package config

// Defaults of the hourly reply-run limits (README "Security"): a reply in
// Chakshu's review thread costs an Actions run, a check run and model spend.
const (
	DefaultReplyLimitPerPR   = 20 // reply runs per pull request per hour
	DefaultReplyLimitPerUser = 10 // reply runs per person per installation per hour
)
