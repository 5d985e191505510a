package config

import (
	"strings"
	"testing"
)

func TestReplyLimits(t *testing.T) {
	c, err := Load(lookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.ReplyLimitPerPR != DefaultReplyLimitPerPR || c.ReplyLimitPerUser != DefaultReplyLimitPerUser {
		t.Errorf("defaults %d/%d, want %d/%d", c.ReplyLimitPerPR, c.ReplyLimitPerUser, DefaultReplyLimitPerPR, DefaultReplyLimitPerUser)
	}
	c, err = Load(lookup(map[string]string{"CHAKSHU_REPLY_LIMIT_PER_PR": "1", "CHAKSHU_REPLY_LIMIT_PER_USER": "3"}))
	if err != nil || c.ReplyLimitPerPR != 1 || c.ReplyLimitPerUser != 3 {
		t.Fatalf("set: %v %+v", err, c)
	}
	for name, v := range map[string]string{"CHAKSHU_REPLY_LIMIT_PER_PR": "0", "CHAKSHU_REPLY_LIMIT_PER_USER": "ten"} {
		if _, err := Load(lookup(map[string]string{name: v})); err == nil || !strings.HasPrefix(err.Error(), name) {
			t.Errorf("%s=%s: err %v, want one naming it", name, v, err)
		}
	}
}
