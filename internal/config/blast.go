package config

// Conclusions a check run of a run that failed in Chakshu itself (not a
// finding) may end with (CHAKSHU_INFRA_FAILURE_CONCLUSION).
const (
	InfraFailureFailure = "failure"
	InfraFailureNeutral = "neutral"
)
