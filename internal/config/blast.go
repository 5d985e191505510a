package config

import (
	"fmt"
	"strings"
)

// Conclusions a check run of a run that failed in Chakshu itself (not a
// finding) may end with (CHAKSHU_INFRA_FAILURE_CONCLUSION).
const (
	InfraFailureFailure = "failure"
	InfraFailureNeutral = "neutral"
)

// loadBlastRadius reads CHAKSHU_MAX_CONCURRENT_RUNS (whole number ≥ 0; 0: no
// cap) and CHAKSHU_INFRA_FAILURE_CONCLUSION (failure or neutral).
func (c *Config) loadBlastRadius(get func(name, def string) string) error {
	if err := loadWholeNumbers(get, []wholeNumber{
		{"CHAKSHU_MAX_CONCURRENT_RUNS", &c.MaxConcurrentRuns, 0, 0},
	}); err != nil {
		return err
	}
	switch v := strings.ToLower(get("CHAKSHU_INFRA_FAILURE_CONCLUSION", InfraFailureFailure)); v {
	case InfraFailureFailure, InfraFailureNeutral:
		c.InfraFailureConclusion = v
	default:
		return fmt.Errorf("CHAKSHU_INFRA_FAILURE_CONCLUSION: want failure or neutral, got %q", v)
	}
	return nil
}
