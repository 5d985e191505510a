package config

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/internal/retention"
)

const day = 24 * time.Hour

// RedeliveryWindow is how far back GitHub at apiURL lets deliveries be
// redelivered: 3 days on github.com, 7 on Enterprise Server (docs
// "Redelivering webhooks", both editions).
func RedeliveryWindow(apiURL string) time.Duration {
	if apiURL == DefaultGitHubURL || strings.Contains(apiURL, "://api.github.com") {
		return 3 * day
	}
	return 7 * day
}

// parseAge reads a retention age: a Go duration (36h), whole days (30d), or
// 0 for ever.
func parseAge(v string) (time.Duration, error) {
	if v == "0" {
		return 0, nil
	}
	if d, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, errors.New("bad days")
		}
		return time.Duration(n) * day, nil
	}
	x, err := time.ParseDuration(v)
	if err != nil || x < 0 {
		return 0, errors.New("bad duration")
	}
	return x, nil
}

// retentionOf is the pruning the worker settings say (what retention.PruneBatch
// keeps).
func retentionOf(w WorkerOnly) retention.Retention {
	return retention.Retention{
		WebhookPayloads: time.Duration(w.RetainWebhookPayloads), WebhookEvents: time.Duration(w.RetainWebhookEvents),
		FailedEvents: time.Duration(w.RetainFailedEvents), RunEvents: time.Duration(w.RetainRunEvents),
		Runs: time.Duration(w.RetainRuns), Workers: time.Duration(w.RetainWorkers), Batch: w.PruneBatch,
	}
}

// checkRetention checks the retention ages against GitHub's redelivery
// window and the worker timings.
func (c *Config) checkRetention() error {
	r := c.Retention
	if w := RedeliveryWindow(c.GitHubURL); r.WebhookEvents != 0 && r.WebhookEvents < w {
		return fmt.Errorf("CHAKSHU_RETAIN_WEBHOOK_EVENTS: at least %dd: GitHub lets deliveries of the last %d days be redelivered, and a redelivery must still be recognised", w/day, w/day)
	}
	if r.Workers != 0 && r.Workers <= c.DeadWorkerAfter {
		return fmt.Errorf("CHAKSHU_RETAIN_WORKERS: must be longer than CHAKSHU_DEAD_WORKER_AFTER (%s), or a live worker's row could go", c.DeadWorkerAfter)
	}
	return nil
}

// loadPreviousKeys reads CHAKSHU_SECRET_KEY_PREVIOUS: keys still accepted
// for opening what they sealed or signed, during a rotation.
func (c *Config) loadPreviousKeys(keys []string) error {
	for _, v := range keys {
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil || len(b) != 32 {
			return errors.New("CHAKSHU_SECRET_KEY_PREVIOUS: want 32-byte keys, base64-encoded, comma-separated")
		}
		if string(b) == string(c.SecretKey) {
			return errors.New("CHAKSHU_SECRET_KEY_PREVIOUS: holds the current CHAKSHU_SECRET_KEY; list only the keys it replaced")
		}
		c.SecretKeyPrevious = append(c.SecretKeyPrevious, b)
	}
	if len(c.SecretKeyPrevious) > 0 && len(c.SecretKey) == 0 {
		return errors.New("CHAKSHU_SECRET_KEY_PREVIOUS: set CHAKSHU_SECRET_KEY (the new key) too")
	}
	return nil
}
