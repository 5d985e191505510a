package config

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

func TestRetentionDefaults(t *testing.T) {
	c, err := Load(lookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Retention.WebhookEvents < RedeliveryWindow("https://ghe.example.com/api/v3/") {
		t.Fatal("the default row retention is shorter than Enterprise Server's redelivery window")
	}
}

// Each retention setting parses days, durations and 0; the row retention of
// handled webhooks is refused one unit below GitHub's redelivery window
// (3 days on github.com, 7 on Enterprise Server) and accepted at it; the
// worker retention must exceed the dead-worker limit.
func TestRetentionSettings(t *testing.T) {
	ghes := map[string]string{"CHAKSHU_GITHUB_URL": "https://ghe.example.com/api/v3"}
	for _, c := range []struct {
		name string
		env  map[string]string
		want func(*Config) bool
		err  string
	}{
		{"days", map[string]string{"CHAKSHU_RETAIN_RUNS": "30d"}, func(c *Config) bool { return c.Retention.Runs == 30*day }, ""},
		{"duration", map[string]string{"CHAKSHU_RETAIN_WEBHOOK_PAYLOADS": "36h"}, func(c *Config) bool { return c.Retention.WebhookPayloads == 36*time.Hour }, ""},
		{"for ever", map[string]string{"CHAKSHU_RETAIN_RUN_EVENTS": "0", "CHAKSHU_RETAIN_WEBHOOK_EVENTS": "0"}, func(c *Config) bool { return c.Retention.RunEvents == 0 && c.Retention.WebhookEvents == 0 }, ""},
		{"bad", map[string]string{"CHAKSHU_RETAIN_FAILED_EVENTS": "a week"}, nil, "CHAKSHU_RETAIN_FAILED_EVENTS: want a duration"},
		{"negative", map[string]string{"CHAKSHU_RETAIN_FAILED_EVENTS": "-1d"}, nil, "CHAKSHU_RETAIN_FAILED_EVENTS: want a duration"},
		{"github.com window", map[string]string{"CHAKSHU_RETAIN_WEBHOOK_EVENTS": "3d"}, func(c *Config) bool { return c.Retention.WebhookEvents == 3*day }, ""},
		{"below github.com window", map[string]string{"CHAKSHU_RETAIN_WEBHOOK_EVENTS": "71h"}, nil, "CHAKSHU_RETAIN_WEBHOOK_EVENTS: at least 3d"},
		{"GHES window", merge(ghes, map[string]string{"CHAKSHU_RETAIN_WEBHOOK_EVENTS": "7d"}), func(c *Config) bool { return c.Retention.WebhookEvents == 7*day }, ""},
		{"below GHES window", merge(ghes, map[string]string{"CHAKSHU_RETAIN_WEBHOOK_EVENTS": "6d"}), nil, "CHAKSHU_RETAIN_WEBHOOK_EVENTS: at least 7d"},
		{"workers at dead limit", map[string]string{"CHAKSHU_RETAIN_WORKERS": "90s"}, nil, "CHAKSHU_RETAIN_WORKERS: must be longer"},
		{"workers past dead limit", map[string]string{"CHAKSHU_RETAIN_WORKERS": "91s"}, func(c *Config) bool { return c.Retention.Workers == 91*time.Second }, ""},
		{"interval", map[string]string{"CHAKSHU_PRUNE_INTERVAL": "10s"}, func(c *Config) bool { return c.PruneInterval == 10*time.Second }, ""},
		{"interval zero", map[string]string{"CHAKSHU_PRUNE_INTERVAL": "0s"}, nil, "CHAKSHU_PRUNE_INTERVAL"},
		{"batch 1", map[string]string{"CHAKSHU_PRUNE_BATCH": "1"}, func(c *Config) bool { return c.Retention.Batch == 1 }, ""},
		{"batch 0", map[string]string{"CHAKSHU_PRUNE_BATCH": "0"}, nil, "CHAKSHU_PRUNE_BATCH: want a whole number ≥ 1"},
		{"write target", map[string]string{"CHAKSHU_PRUNE_WRITE_TARGET": "3ms"}, func(c *Config) bool { return c.PruneWriteTarget == 3*time.Millisecond }, ""},
		{"write target default", map[string]string{}, func(c *Config) bool { return c.PruneWriteTarget == time.Millisecond }, ""},
		{"write target zero", map[string]string{"CHAKSHU_PRUNE_WRITE_TARGET": "0"}, nil, "CHAKSHU_PRUNE_WRITE_TARGET: want a duration such as 1ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(lookup(c.env))
			if c.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), c.err) {
					t.Fatalf("got %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || !c.want(cfg) {
				t.Fatalf("got %+v, %v", cfg, err)
			}
		})
	}
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func TestPreviousSecretKeys(t *testing.T) {
	k := func(b byte) string {
		x := make([]byte, 32)
		for i := range x {
			x[i] = b
		}
		return base64.StdEncoding.EncodeToString(x)
	}
	for _, c := range []struct {
		name string
		env  map[string]string
		n    int
		err  string
	}{
		{"two", map[string]string{"CHAKSHU_SECRET_KEY": k(1), "CHAKSHU_SECRET_KEY_PREVIOUS": k(2) + ", " + k(3)}, 2, ""},
		{"none", map[string]string{"CHAKSHU_SECRET_KEY": k(1)}, 0, ""},
		{"short", map[string]string{"CHAKSHU_SECRET_KEY": k(1), "CHAKSHU_SECRET_KEY_PREVIOUS": base64.StdEncoding.EncodeToString(make([]byte, 31))}, 0, "CHAKSHU_SECRET_KEY_PREVIOUS: want 32-byte keys"},
		{"current again", map[string]string{"CHAKSHU_SECRET_KEY": k(1), "CHAKSHU_SECRET_KEY_PREVIOUS": k(1)}, 0, "CHAKSHU_SECRET_KEY_PREVIOUS: holds the current"},
		{"without current", map[string]string{"CHAKSHU_SECRET_KEY_PREVIOUS": k(2)}, 0, "CHAKSHU_SECRET_KEY_PREVIOUS: set CHAKSHU_SECRET_KEY"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(lookup(c.env))
			if c.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), c.err) {
					t.Fatalf("got %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || len(cfg.SecretKeyPrevious) != c.n {
				t.Fatalf("got %d keys, %v", len(cfg.SecretKeyPrevious), err)
			}
		})
	}
}
