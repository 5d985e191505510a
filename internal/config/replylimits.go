package config

import (
	"fmt"
	"strconv"
)

// Defaults of the hourly reply-run limits (README "Security"): a reply in
// Chakshu's review thread costs an Actions run, a check run and model spend.
const (
	DefaultReplyLimitPerPR   = 20 // reply runs per pull request per hour
	DefaultReplyLimitPerUser = 10 // reply runs per person per installation per hour
)

// loadReplyLimits reads CHAKSHU_REPLY_LIMIT_PER_PR and
// CHAKSHU_REPLY_LIMIT_PER_USER (whole numbers ≥ 1).
func (c *Config) loadReplyLimits(get func(name, def string) string) error {
	return loadWholeNumbers(get, []wholeNumber{
		{"CHAKSHU_REPLY_LIMIT_PER_PR", &c.ReplyLimitPerPR, DefaultReplyLimitPerPR, 1},
		{"CHAKSHU_REPLY_LIMIT_PER_USER", &c.ReplyLimitPerUser, DefaultReplyLimitPerUser, 1},
	})
}

// wholeNumber is an integer setting: its name, where it goes, its default
// and its least value.
type wholeNumber struct {
	name string
	dst  *int
	def  int
	min  int
}

func loadWholeNumbers(get func(name, def string) string, ss []wholeNumber) error {
	for _, s := range ss {
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
