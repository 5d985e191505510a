package config

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Retention is how long the database keeps each kind of row (docs/production.md,
// Retention). 0 keeps that kind for ever.
type Retention struct {
	// WebhookPayloads empties a handled webhook's payload after this
	// (CHAKSHU_RETAIN_WEBHOOK_PAYLOADS).
	WebhookPayloads time.Duration
	// WebhookEvents deletes a handled webhook's row (kept for deduplication
	// of redeliveries) after this (CHAKSHU_RETAIN_WEBHOOK_EVENTS).
	WebhookEvents time.Duration
	// FailedEvents deletes a failed webhook after this (CHAKSHU_RETAIN_FAILED_EVENTS).
	FailedEvents time.Duration
	// RunEvents deletes finished runs' timeline entries after this (CHAKSHU_RETAIN_RUN_EVENTS).
	RunEvents time.Duration
	// Runs deletes finished runs with their findings after this; costs stay
	// exact (CHAKSHU_RETAIN_RUNS).
	Runs time.Duration
	// Workers deletes rows of workers silent for this long (CHAKSHU_RETAIN_WORKERS).
	Workers time.Duration
	// Interval is how often a worker prunes (CHAKSHU_PRUNE_INTERVAL).
	Interval time.Duration
	// Batch is the most rows of a kind one pruning transaction touches
	// (CHAKSHU_PRUNE_BATCH).
	Batch int
	// WriteTarget is how long one pruning transaction may hold the write
	// lock; batches shrink while theirs take longer (CHAKSHU_PRUNE_WRITE_TARGET).
	WriteTarget time.Duration
}

const day = 24 * time.Hour

// Retention defaults. A handled webhook's row outlives the window in which
// GitHub lets its deliveries be redelivered (3 days on github.com, 7 on
// Enterprise Server: docs "Redelivering webhooks"), so a redelivery is still
// recognised as a duplicate.
var DefaultRetention = Retention{
	WebhookPayloads: day,
	WebhookEvents:   8 * day,
	FailedEvents:    30 * day,
	RunEvents:       90 * day,
	Runs:            365 * day,
	Workers:         7 * day,
	Interval:        time.Minute,
	Batch:           500,
	WriteTarget:     time.Millisecond,
}

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

// retention is the Retention the worker settings say.
func retention(w WorkerOnly) Retention {
	return Retention{
		WebhookPayloads: time.Duration(w.RetainWebhookPayloads), WebhookEvents: time.Duration(w.RetainWebhookEvents),
		FailedEvents: time.Duration(w.RetainFailedEvents), RunEvents: time.Duration(w.RetainRunEvents),
		Runs: time.Duration(w.RetainRuns), Workers: time.Duration(w.RetainWorkers),
		Interval: w.PruneInterval, Batch: w.PruneBatch, WriteTarget: w.PruneWriteTarget,
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
