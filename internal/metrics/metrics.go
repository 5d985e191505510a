// Package metrics exposes Chakshu's Prometheus metrics: a collector that
// reads runs, the queue, webhook handling and model spend from the database
// on each scrape (cheap GROUP BY queries, so every web process reports the
// same numbers), and a RoundTripper that counts GitHub calls by endpoint.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/chakshu-dev/chakshu/ent"
	entrun "github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// Config builds the database collector.
type Config struct {
	// DB is read on each scrape. Required.
	DB *store.DB
	// Log receives scrape query errors; nil discards.
	Log *slog.Logger
	// Timeout bounds one scrape's queries; zero means 5 s.
	Timeout time.Duration
	// Now is the clock for ages; nil means time.Now.
	Now func() time.Time
}

// DurationBuckets are the run duration histogram's upper bounds, in seconds.
var DurationBuckets = []float64{30, 60, 120, 300, 600, 1200, 2700}

// Collector reads the database on scrape.
type Collector struct {
	cfg Config

	runs, queueDepth, queueAge, duration, webhooks, webhookAge, cost *prometheus.Desc
}

var _ prometheus.Collector = (*Collector)(nil)

// New validates cfg and returns the collector (register it on a registry).
func New(cfg Config) (*Collector, error) {
	if cfg.DB == nil {
		return nil, errors.New("metrics: DB is required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Collector{
		cfg: cfg,
		runs: prometheus.NewDesc("chakshu_runs", "Runs by status and reviewer (terminal statuses only grow: use increase() for rates).",
			[]string{"status", "reviewer"}, nil),
		queueDepth: prometheus.NewDesc("chakshu_run_queue_depth", "Runs waiting to be dispatched (status queued).", nil, nil),
		queueAge:   prometheus.NewDesc("chakshu_run_queue_oldest_age_seconds", "Age of the oldest queued run; 0 when none is queued.", nil, nil),
		duration: prometheus.NewDesc("chakshu_run_duration_seconds", "Review durations of finished runs (as the runner reported them), by final status.",
			[]string{"status"}, nil),
		webhooks: prometheus.NewDesc("chakshu_webhook_events", "Stored webhook deliveries by handling status (pending, processing, done, failed).",
			[]string{"status"}, nil),
		webhookAge: prometheus.NewDesc("chakshu_webhook_oldest_pending_age_seconds", "Age of the oldest webhook delivery not handled yet; 0 when none waits.", nil, nil),
		cost: prometheus.NewDesc("chakshu_model_cost_usd_total", "Model gateway spend in US dollars over all runs, by reviewer.",
			[]string{"reviewer"}, nil),
	}, nil
}

// Describe sends the descriptors.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.runs, c.queueDepth, c.queueAge, c.duration, c.webhooks, c.webhookAge, c.cost} {
		ch <- d
	}
}

// Collect queries the database. A failed query reports an invalid metric
// for its descriptor (the scrape shows the error) and logs it.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.Timeout)
	defer cancel()
	fail := func(d *prometheus.Desc, err error) {
		c.cfg.Log.Error("metrics: scrape query", "err", err)
		ch <- prometheus.NewInvalidMetric(d, err)
	}
	if err := c.byReviewer(ctx, ch); err != nil {
		fail(c.runs, err)
	}
	if err := c.queue(ctx, ch); err != nil {
		fail(c.queueDepth, err)
	}
	if err := c.durations(ctx, ch); err != nil {
		fail(c.duration, err)
	}
	if err := c.webhookStatus(ctx, ch); err != nil {
		fail(c.webhooks, err)
	}
}

// byReviewer reports run counts and spend by reviewer in one GROUP BY.
func (c *Collector) byReviewer(ctx context.Context, ch chan<- prometheus.Metric) error {
	rows, err := c.cfg.DB.SQL.QueryContext(ctx, `SELECT r.status, COALESCE(v.name, ''), COUNT(*), COALESCE(SUM(r.cost_usd), 0)
		FROM runs r LEFT JOIN reviewers v ON v.id = r.reviewer_runs GROUP BY r.status, v.name`)
	if err != nil {
		return fmt.Errorf("runs by status and reviewer: %w", err)
	}
	defer rows.Close()
	cost := map[string]float64{}
	for rows.Next() {
		var status, reviewer string
		var n int64
		var usd float64
		if err := rows.Scan(&status, &reviewer, &n, &usd); err != nil {
			return fmt.Errorf("runs by status and reviewer: %w", err)
		}
		ch <- prometheus.MustNewConstMetric(c.runs, prometheus.GaugeValue, float64(n), status, reviewer)
		cost[reviewer] += usd
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("runs by status and reviewer: %w", err)
	}
	for reviewer, usd := range cost {
		ch <- prometheus.MustNewConstMetric(c.cost, prometheus.CounterValue, usd, reviewer)
	}
	return nil
}

func (c *Collector) queue(ctx context.Context, ch chan<- prometheus.Metric) error {
	q := c.cfg.DB.Run.Query().Where(entrun.StatusEQ(entrun.StatusQueued))
	n, err := q.Clone().Count(ctx)
	if err != nil {
		return fmt.Errorf("queue depth: %w", err)
	}
	ch <- prometheus.MustNewConstMetric(c.queueDepth, prometheus.GaugeValue, float64(n))
	age := 0.0
	if n > 0 {
		oldest, err := q.Order(ent.Asc(entrun.FieldCreatedAt)).Select(entrun.FieldCreatedAt).First(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return fmt.Errorf("oldest queued run: %w", err)
		}
		if oldest != nil {
			age = max(0, c.cfg.Now().Sub(oldest.CreatedAt).Seconds())
		}
	}
	ch <- prometheus.MustNewConstMetric(c.queueAge, prometheus.GaugeValue, age)
	return nil
}

func (c *Collector) durations(ctx context.Context, ch chan<- prometheus.Metric) error {
	q := "SELECT status, COUNT(*), COALESCE(SUM(duration_ms), 0)"
	for _, b := range DurationBuckets {
		q += fmt.Sprintf(", COALESCE(SUM(CASE WHEN duration_ms <= %d THEN 1 ELSE 0 END), 0)", int64(b*1000))
	}
	q += " FROM runs WHERE finished_at IS NOT NULL AND duration_ms > 0 GROUP BY status"
	rows, err := c.cfg.DB.SQL.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("run durations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var status string
		var n, sumMS int64
		counts := make([]int64, len(DurationBuckets))
		dst := []any{&status, &n, &sumMS}
		for i := range counts {
			dst = append(dst, &counts[i])
		}
		if err := rows.Scan(dst...); err != nil {
			return fmt.Errorf("run durations: %w", err)
		}
		buckets := map[float64]uint64{}
		for i, b := range DurationBuckets {
			buckets[b] = uint64(counts[i])
		}
		ch <- prometheus.MustNewConstHistogram(c.duration, uint64(n), float64(sumMS)/1000, buckets, status)
	}
	return rows.Err()
}

func (c *Collector) webhookStatus(ctx context.Context, ch chan<- prometheus.Metric) error {
	var counts []struct {
		Status string `json:"status"`
		Count  int    `json:"count"`
	}
	if err := c.cfg.DB.WebhookEvent.Query().GroupBy(webhookevent.FieldStatus).Aggregate(ent.Count()).Scan(ctx, &counts); err != nil {
		return fmt.Errorf("webhook events by status: %w", err)
	}
	seen := map[string]bool{}
	for _, s := range counts {
		seen[s.Status] = true
		ch <- prometheus.MustNewConstMetric(c.webhooks, prometheus.GaugeValue, float64(s.Count), s.Status)
	}
	for _, s := range []webhookevent.Status{webhookevent.StatusPending, webhookevent.StatusProcessing, webhookevent.StatusDone, webhookevent.StatusFailed} {
		if !seen[string(s)] { // every status present, so alerts see 0 rather than nothing
			ch <- prometheus.MustNewConstMetric(c.webhooks, prometheus.GaugeValue, 0, string(s))
		}
	}
	age := 0.0
	oldest, err := c.cfg.DB.WebhookEvent.Query().
		Where(webhookevent.StatusIn(webhookevent.StatusPending, webhookevent.StatusProcessing)).
		Order(ent.Asc(webhookevent.FieldReceivedAt)).Select(webhookevent.FieldReceivedAt).First(ctx)
	switch {
	case err == nil:
		age = max(0, c.cfg.Now().Sub(oldest.ReceivedAt).Seconds())
	case !ent.IsNotFound(err):
		return fmt.Errorf("oldest pending webhook: %w", err)
	}
	ch <- prometheus.MustNewConstMetric(c.webhookAge, prometheus.GaugeValue, age)
	return nil
}
