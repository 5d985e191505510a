// Package metrics exposes Chakshu's Prometheus metrics: a collector that
// reports runs, the queue, webhook handling and model spend from the
// database on each scrape, and a RoundTripper that counts GitHub calls by
// endpoint. A scrape never scans the runs or webhook_events tables: totals
// come from the cost rollup (kept by triggers on every write to a run,
// internal/store/rollup.go; a few rows per reviewer and month), and the
// counts of work in progress read only the rows in those statuses through
// the status indexes, so a scrape costs the same at a million runs as at ten
// (queries.go; TestScrapeReadsNoWholeTable checks the query plans).
package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	entrun "github.com/chakshu-dev/chakshu/ent/run"
	entschema "github.com/chakshu-dev/chakshu/ent/schema"
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

// DurationBucketIndexes are the rollup's duration buckets (store.DurationBound:
// quarter octaves from 1 s) reported as the histogram's upper bounds: whole
// octaves from 32 s to 2048 s (about 34 minutes).
var DurationBucketIndexes = []int{20, 24, 28, 32, 36, 40, 44}

// Collector reads the database on scrape.
type Collector struct {
	cfg Config

	finished, active, queueDepth, queueAge, duration, webhooks, webhookAge, cost, outcomes, writeWait *prometheus.Desc
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
		finished: prometheus.NewDesc("chakshu_runs_finished_total", "Runs that ended, by final status (succeeded, failed, cancelled) and reviewer, over all time (from the cost rollup).",
			[]string{"status", "reviewer"}, nil),
		active: prometheus.NewDesc("chakshu_runs_active", "Runs in progress, by status (queued, dispatched, running, publishing) and reviewer.",
			[]string{"status", "reviewer"}, nil),
		queueDepth: prometheus.NewDesc("chakshu_run_queue_depth", "Runs waiting to be dispatched (status queued).", nil, nil),
		queueAge:   prometheus.NewDesc("chakshu_run_queue_oldest_age_seconds", "Age of the oldest queued run; 0 when none is queued.", nil, nil),
		duration: prometheus.NewDesc("chakshu_run_duration_seconds", "Review durations of succeeded and failed runs (as the runner reported them), by reviewer, from the cost rollup's histogram; the sum is estimated from its buckets (within 19%).",
			[]string{"reviewer"}, nil),
		webhooks: prometheus.NewDesc("chakshu_webhook_events", "Stored webhook deliveries not handled successfully, by status (pending, processing, failed).",
			[]string{"status"}, nil),
		webhookAge: prometheus.NewDesc("chakshu_webhook_oldest_pending_age_seconds", "Age of the oldest webhook delivery not handled yet; 0 when none waits.", nil, nil),
		cost: prometheus.NewDesc("chakshu_model_cost_usd_total", "Model gateway spend in US dollars over all runs, by reviewer (from the cost rollup).",
			[]string{"reviewer"}, nil),
		outcomes: prometheus.NewDesc("chakshu_findings_outcomes", "Posted findings whose outcome was decided in the last 30 days, by reviewer and outcome (fixed, acknowledged, dismissed, open_at_merge, closed_unmerged); shadow runs excluded.",
			[]string{"reviewer", "outcome"}, nil),
		writeWait: prometheus.NewDesc("chakshu_sqlite_write_wait_seconds", "On SQLite, how long the webhook intake (intake) and pruning with the WAL's cutting back (background) waited in this process for the database's one write connection and its write lock. Not reported on PostgreSQL.",
			[]string{"writer"}, nil),
	}, nil
}

// Describe sends the descriptors.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.finished, c.active, c.queueDepth, c.queueAge, c.duration, c.webhooks, c.webhookAge, c.cost, c.outcomes, c.writeWait} {
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
	if err := c.totals(ctx, ch); err != nil {
		fail(c.finished, err)
	}
	if err := c.inProgress(ctx, ch); err != nil {
		fail(c.active, err)
	}
	if err := c.queue(ctx, ch); err != nil {
		fail(c.queueDepth, err)
	}
	if err := c.webhookStatus(ctx, ch); err != nil {
		fail(c.webhooks, err)
	}
	if err := c.findingOutcomes(ctx, ch); err != nil {
		fail(c.outcomes, err)
	}
	c.writeWaits(ch)
}

// writeWaits reports the waits for SQLite's write connection, kept in memory as they
// happen (store.WriteWaits): nothing to query.
func (c *Collector) writeWaits(ch chan<- prometheus.Metric) {
	for writer, w := range c.cfg.DB.WriteWaits() {
		buckets := make(map[float64]uint64, len(w.Buckets))
		var n uint64
		for i, b := range w.Buckets {
			n += b
			buckets[store.WriteWaitBounds[i].Seconds()] = n
		}
		ch <- prometheus.MustNewConstHistogram(c.writeWait, w.Count, w.Sum.Seconds(), buckets, writer)
	}
}

// decidedOutcomes are the outcomes chakshu_findings_outcomes reports: each
// for every reviewer it reports, so a rate sees 0 rather than nothing.
var decidedOutcomes = []finding.Outcome{finding.OutcomeFixed, finding.OutcomeAcknowledged, finding.OutcomeDismissed,
	finding.OutcomeOpenAtMerge, finding.OutcomeClosedUnmerged}

// findingOutcomes reports the findings decided within OutcomesWindow, by
// reviewer and outcome.
func (c *Collector) findingOutcomes(ctx context.Context, ch chan<- prometheus.Metric) error {
	// SQLite compares times as text in the writer's zone (see runstats.RunSet).
	since := c.cfg.Now().Add(-OutcomesWindow).In(time.Local)
	rows, err := c.cfg.DB.SQL.QueryContext(ctx, c.cfg.DB.Rebind(outcomesQuery), false, since, true)
	if err != nil {
		return fmt.Errorf("finding outcomes: %w", err)
	}
	defer rows.Close()
	counts := map[string]map[string]int64{}
	for rows.Next() {
		var reviewer, outcome string
		var n int64
		if err := rows.Scan(&reviewer, &outcome, &n); err != nil {
			return fmt.Errorf("finding outcomes: %w", err)
		}
		if counts[reviewer] == nil {
			counts[reviewer] = map[string]int64{}
		}
		counts[reviewer][outcome] += n
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("finding outcomes: %w", err)
	}
	for reviewer, m := range counts {
		for _, o := range decidedOutcomes {
			ch <- prometheus.MustNewConstMetric(c.outcomes, prometheus.GaugeValue, float64(m[string(o)]), reviewer, string(o))
		}
	}
	return nil
}

// totals reports finished runs, spend and durations per reviewer from the
// rollup's per-reviewer monthly rows.
func (c *Collector) totals(ctx context.Context, ch chan<- prometheus.Metric) error {
	rows, err := c.cfg.DB.SQL.QueryContext(ctx, totalsQuery)
	if err != nil {
		return fmt.Errorf("rollup totals: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var reviewer string
		var succeeded, failed, cancelled int64
		var usd float64
		h := make([]int64, entschema.CostRollupBuckets)
		dst := []any{&reviewer, &succeeded, &failed, &cancelled, &usd}
		for i := range h {
			dst = append(dst, &h[i])
		}
		if err := rows.Scan(dst...); err != nil {
			return fmt.Errorf("rollup totals: %w", err)
		}
		for st, n := range map[string]int64{"succeeded": succeeded, "failed": failed, "cancelled": cancelled} {
			ch <- prometheus.MustNewConstMetric(c.finished, prometheus.CounterValue, float64(n), st, reviewer)
		}
		ch <- prometheus.MustNewConstMetric(c.cost, prometheus.CounterValue, usd, reviewer)
		count, sum, buckets := histogram(h)
		ch <- prometheus.MustNewConstHistogram(c.duration, count, sum, buckets, reviewer)
	}
	return rows.Err()
}

// histogram turns the rollup's bucket counts into a cumulative histogram at
// DurationBucketIndexes, with the sum estimated at each bucket's geometric
// middle.
func histogram(h []int64) (count uint64, sum float64, buckets map[float64]uint64) {
	buckets = map[float64]uint64{}
	var cum uint64
	next := 0
	for i, n := range h {
		cum += uint64(n)
		lo := 0.0
		if i > 0 {
			lo = float64(store.DurationBound(i-1)) / 1000
		}
		hi := float64(store.DurationBound(i)) / 1000
		if lo == 0 {
			lo = hi / math.Pow(2, 0.25)
		}
		sum += float64(n) * math.Sqrt(lo*hi)
		if next < len(DurationBucketIndexes) && DurationBucketIndexes[next] == i {
			buckets[hi] = cum
			next++
		}
	}
	return cum, sum, buckets
}

// inProgress reports runs not finished yet, by status and reviewer.
func (c *Collector) inProgress(ctx context.Context, ch chan<- prometheus.Metric) error {
	rows, err := c.cfg.DB.SQL.QueryContext(ctx, activeQuery)
	if err != nil {
		return fmt.Errorf("runs in progress: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var status, reviewer string
		var n int64
		if err := rows.Scan(&status, &reviewer, &n); err != nil {
			return fmt.Errorf("runs in progress: %w", err)
		}
		ch <- prometheus.MustNewConstMetric(c.active, prometheus.GaugeValue, float64(n), status, reviewer)
	}
	return rows.Err()
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

func (c *Collector) webhookStatus(ctx context.Context, ch chan<- prometheus.Metric) error {
	rows, err := c.cfg.DB.SQL.QueryContext(ctx, webhookQuery)
	if err != nil {
		return fmt.Errorf("webhook events by status: %w", err)
	}
	counts := map[string]int64{}
	for rows.Next() {
		var st string
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			rows.Close()
			return fmt.Errorf("webhook events by status: %w", err)
		}
		counts[st] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("webhook events by status: %w", err)
	}
	for _, s := range webhookStatuses { // every status present, so alerts see 0 rather than nothing
		ch <- prometheus.MustNewConstMetric(c.webhooks, prometheus.GaugeValue, float64(counts[string(s)]), string(s))
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
